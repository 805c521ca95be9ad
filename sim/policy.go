package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Param is one policy parameter a mechanism reads: its name in URLs and
// the frames API, the values it takes, the values the page offers as
// buttons and its default.
type Param struct {
	Name    string
	Choices []string // the values of an enumerated parameter
	Min     int      // bounds of an integer parameter (when Choices is empty)
	Max     int
	Presets []string // the values offered as buttons; Choices when empty
	Default string
	// Fine marks a parameter a presenter does not switch with a digit key
	// (a summary version, a price): it changes a detail, not the story.
	Fine bool
	// Labels names some values by a catalog key of the lesson's own ({pct}
	// is the value in percent): a recorded session's own threshold.
	Labels map[string]string
}

// Allowed describes the values the parameter accepts, for error messages.
func (pr Param) Allowed() string {
	if len(pr.Choices) > 0 {
		return strings.Join(pr.Choices, "|")
	}
	return fmt.Sprintf("an integer from %d to %d", pr.Min, pr.Max)
}

// Valid reports whether v is an allowed value, spelled canonically.
func (pr Param) Valid(v string) bool {
	if len(pr.Choices) > 0 {
		return slices.Contains(pr.Choices, v)
	}
	n, err := strconv.Atoi(v)
	return err == nil && n >= pr.Min && n <= pr.Max && strconv.Itoa(n) == v
}

// Offered returns the values the page's buttons offer.
func (pr Param) Offered() []string {
	if len(pr.Presets) > 0 {
		return pr.Presets
	}
	return pr.Choices
}

func onOff(name, def string) Param {
	return Param{Name: name, Choices: []string{"on", "off"}, Default: def}
}

func intParam(name string, lo, hi, def int, presets []int, fine bool) Param {
	pr := Param{Name: name, Min: lo, Max: hi, Default: strconv.Itoa(def), Fine: fine}
	for _, v := range presets {
		pr.Presets = append(pr.Presets, strconv.Itoa(v))
	}
	if len(pr.Presets) == 0 {
		pr.Presets = []string{pr.Default}
	}
	return pr
}

// Policy is how the simulated harness behaves: a value for every parameter
// of a lesson, in the lesson's canonical order. Modes of a lesson are
// policies over one trace, not separate scripts. A Policy is comparable;
// its String is the canonical URL segment
// ("compaction-on.memory-on.threshold-92.rec-1").
type Policy struct{ seg string }

// String returns the canonical segment.
func (p Policy) String() string { return p.seg }

// Get returns the value of parameter name, "" when the policy has none.
func (p Policy) Get(name string) string {
	for part := range strings.SplitSeq(p.seg, ".") {
		if n, v, ok := strings.Cut(part, "-"); ok && n == name {
			return v
		}
	}
	return ""
}

// Int returns an integer parameter's value (0 when absent).
func (p Policy) Int(name string) int {
	n, _ := strconv.Atoi(p.Get(name))
	return n
}

// On reports whether an on/off parameter is on.
func (p Policy) On(name string) bool { return p.Get(name) == "on" }

// Values returns the policy's parameters and values, in order.
func (p Policy) Values() [][2]string {
	var out [][2]string
	for part := range strings.SplitSeq(p.seg, ".") {
		n, v, _ := strings.Cut(part, "-")
		out = append(out, [2]string{n, v})
	}
	return out
}

// PolicyError names a policy parameter whose value is missing or not
// allowed.
type PolicyError struct {
	Param   string
	Allowed string
	Missing bool // the parameter was not given at all
}

// Error names the parameter and what it allows.
func (e *PolicyError) Error() string {
	if e.Missing {
		return fmt.Sprintf("policy parameter %s is missing: allowed %s", e.Param, e.Allowed)
	}
	return fmt.Sprintf("policy parameter %s: allowed %s", e.Param, e.Allowed)
}

// SetParamOrder collects the parameters of the lesson's mechanisms and puts
// them in URL order: order lists every parameter once (nil keeps the
// mechanisms' order).
func (l *Lesson) SetParamOrder(order []string) error {
	var all []Param
	for _, m := range l.Mechanisms {
		all = append(all, m.Params()...)
	}
	if order == nil {
		l.params = all
		return nil
	}
	var out []Param
	for _, name := range order {
		i := slices.IndexFunc(all, func(p Param) bool { return p.Name == name })
		if i < 0 {
			return fmt.Errorf("%q is not a parameter of the lesson's mechanisms (%s)", name, paramNames(all))
		}
		if slices.ContainsFunc(out, func(p Param) bool { return p.Name == name }) {
			return fmt.Errorf("%q is listed twice", name)
		}
		out = append(out, all[i])
	}
	if len(out) != len(all) {
		return fmt.Errorf("must list every parameter of the lesson's mechanisms once (%s)", paramNames(all))
	}
	l.params = out
	return nil
}

func paramNames(ps []Param) string {
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = p.Name
	}
	return strings.Join(names, ", ")
}

// Param returns the lesson's parameter called name.
func (l *Lesson) Param(name string) (Param, bool) {
	for _, pr := range l.params {
		if pr.Name == name {
			return pr, true
		}
	}
	return Param{}, false
}

// PolicyOf builds a policy from values by parameter name; parameters not
// in values take their default. Names the lesson does not have are errors.
func (l *Lesson) PolicyOf(values map[string]string) (Policy, error) {
	for name := range values {
		if _, ok := l.Param(name); !ok {
			return Policy{}, &PolicyError{Param: name, Allowed: "a parameter of this lesson: " + paramNames(l.params)}
		}
	}
	parts := make([]string, len(l.params))
	for i, pr := range l.params {
		v, ok := values[pr.Name]
		if !ok {
			v = pr.Default
		}
		if !pr.Valid(v) {
			return Policy{}, &PolicyError{Param: pr.Name, Allowed: pr.Allowed()}
		}
		parts[i] = pr.Name + "-" + v
	}
	return Policy{seg: strings.Join(parts, ".")}, nil
}

// DefaultPolicy is the lesson's default mode.
func (l *Lesson) DefaultPolicy() Policy {
	p, _ := l.PolicyOf(nil) // defaults are validated when the lesson is built
	return p
}

// ParsePolicy reads a policy segment: every parameter of the lesson once,
// as name-value, in any order, joined by dots.
func (l *Lesson) ParsePolicy(seg string) (Policy, error) {
	values := map[string]string{}
	for part := range strings.SplitSeq(seg, ".") {
		name, v, _ := strings.Cut(part, "-")
		pr, ok := l.Param(name)
		if !ok {
			return Policy{}, &PolicyError{Param: "policy", Allowed: "a segment like " + l.DefaultPolicy().String()}
		}
		if _, dup := values[name]; dup || !pr.Valid(v) {
			return Policy{}, &PolicyError{Param: pr.Name, Allowed: pr.Allowed()}
		}
		values[name] = v
	}
	for _, pr := range l.params {
		if _, ok := values[pr.Name]; !ok {
			return Policy{}, &PolicyError{Param: pr.Name, Allowed: pr.Allowed(), Missing: true}
		}
	}
	return l.PolicyOf(values)
}

// With returns p with parameter name set to v.
func (l *Lesson) With(p Policy, name, v string) (Policy, error) {
	values := map[string]string{}
	for _, nv := range p.Values() {
		values[nv[0]] = nv[1]
	}
	values[name] = v
	return l.PolicyOf(values)
}

// CheckPolicy reports whether p is a valid policy of l.
func (l *Lesson) CheckPolicy(p Policy) error {
	q, err := l.ParsePolicy(p.seg)
	if err != nil {
		return err
	}
	if q != p {
		return &PolicyError{Param: "policy", Allowed: "the canonical segment " + q.seg}
	}
	return nil
}

// PresetPolicies lists every policy a student can reach with the page's
// buttons: every combination of every parameter's offered values.
func (l *Lesson) PresetPolicies() []Policy {
	combos := []map[string]string{{}}
	for _, pr := range l.params {
		var next []map[string]string
		for _, c := range combos {
			for _, v := range pr.Offered() {
				m := make(map[string]string, len(c)+1)
				for k, x := range c {
					m[k] = x
				}
				m[pr.Name] = v
				next = append(next, m)
			}
		}
		combos = next
	}
	out := make([]Policy, 0, len(combos))
	for _, c := range combos {
		p, err := l.PolicyOf(c)
		if err == nil {
			out = append(out, p)
		}
	}
	return out
}

// IsPreset reports whether every value of p is offered by a button.
func (l *Lesson) IsPreset(p Policy) bool {
	for _, nv := range p.Values() {
		pr, ok := l.Param(nv[0])
		if !ok || !slices.Contains(pr.Offered(), nv[1]) {
			return false
		}
	}
	return true
}
