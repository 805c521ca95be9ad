package sim

import (
	"fmt"
	"strconv"
)

// Param is one policy parameter: its name in URLs and the frames API, the
// values it takes and how it reads and writes a Policy. Each lesson lists the
// parameters its engine uses (Lesson.Params), in canonical URL order.
type Param struct {
	Name    string
	Choices []string // the values of an enumerated parameter
	Min     int      // bounds of an integer parameter (when Choices is empty)
	Max     int
	Default func(*Lesson) string
	get     func(Policy) string
	set     func(*Policy, string) bool
}

// Allowed describes the values Param accepts, for error messages.
func (pr Param) Allowed() string {
	if len(pr.Choices) > 0 {
		s := ""
		for i, c := range pr.Choices {
			if i > 0 {
				s += "|"
			}
			s += c
		}
		return s
	}
	return fmt.Sprintf("an integer from %d to %d", pr.Min, pr.Max)
}

// Get returns p's value of the parameter.
func (pr Param) Get(p Policy) string { return pr.get(p) }

// Set sets the parameter on p; it reports false when v is not allowed.
func (pr Param) Set(p *Policy, v string) bool {
	if len(pr.Choices) > 0 {
		ok := false
		for _, c := range pr.Choices {
			ok = ok || c == v
		}
		if !ok {
			return false
		}
		return pr.set(p, v)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < pr.Min || n > pr.Max || strconv.Itoa(n) != v {
		return false
	}
	return pr.set(p, v)
}

// Presets returns the values a student can pick with the page's buttons.
func (pr Param) Presets(l *Lesson) []string {
	switch {
	case len(pr.Choices) > 0:
		return pr.Choices
	case pr.Name == "threshold":
		var out []string
		for _, t := range l.Thresholds {
			out = append(out, strconv.Itoa(t))
		}
		return out
	case pr.Name == "alpha":
		return []string{"5", "10", "25", "50"}
	case pr.Name == "rec":
		var out []string
		for r := 1; r <= Recordings; r++ {
			out = append(out, strconv.Itoa(r))
		}
		return out
	}
	return []string{pr.Default(l)}
}

func onOffParam(name string, field func(*Policy) *bool, def string) Param {
	return Param{
		Name: name, Choices: []string{"on", "off"},
		Default: func(*Lesson) string { return def },
		get: func(p Policy) string {
			if *field(&p) {
				return "on"
			}
			return "off"
		},
		set: func(p *Policy, v string) bool { *field(p) = v == "on"; return true },
	}
}

func enumParam(name string, choices []string, field func(*Policy) *string) Param {
	return Param{
		Name: name, Choices: choices,
		Default: func(*Lesson) string { return choices[0] },
		get:     func(p Policy) string { return *field(&p) },
		set:     func(p *Policy, v string) bool { *field(p) = v; return true },
	}
}

func intParam(name string, lo, hi int, field func(*Policy) *int, def func(*Lesson) int) Param {
	return Param{
		Name: name, Min: lo, Max: hi,
		Default: func(l *Lesson) string { return strconv.Itoa(def(l)) },
		get:     func(p Policy) string { return strconv.Itoa(*field(&p)) },
		set: func(p *Policy, v string) bool {
			n, _ := strconv.Atoi(v)
			*field(p) = n
			return true
		},
	}
}

// params is every parameter any engine uses.
var params = []Param{
	onOffParam("compaction", func(p *Policy) *bool { return &p.Compaction }, "on"),
	onOffParam("memory", func(p *Policy) *bool { return &p.Memory }, "on"),
	intParam("threshold", 1, 100, func(p *Policy) *int { return &p.ThresholdPercent }, func(l *Lesson) int { return l.ThresholdPercent }),
	intParam("rec", 1, Recordings, func(p *Policy) *int { return &p.Recording }, func(*Lesson) int { return 1 }),
	enumParam("status", []string{"off", "replace", "append"}, func(p *Policy) *string { return &p.Status }),
	onOffParam("counter", func(p *Policy) *bool { return &p.Counter }, "off"),
	onOffParam("clock", func(p *Policy) *bool { return &p.Clock }, "off"),
	intParam("alpha", 1, 100, func(p *Policy) *int { return &p.AlphaPercent }, func(*Lesson) int { return 10 }),
	enumParam("strategy", []string{"tiered", "age"}, func(p *Policy) *string { return &p.Strategy }),
	onOffParam("floor", func(p *Policy) *bool { return &p.Floor }, "on"),
	enumParam("summarizer", []string{"ok", "broken"}, func(p *Policy) *string { return &p.Summarizer }),
	enumParam("budget", []string{"attempts", "successes"}, func(p *Policy) *string { return &p.Budget }),
	enumParam("pairs", []string{"kept", "broken"}, func(p *Policy) *string { return &p.Pairs }),
}

// ParamNamed returns the parameter called name.
func ParamNamed(name string) (Param, bool) {
	for _, pr := range params {
		if pr.Name == name {
			return pr, true
		}
	}
	return Param{}, false
}

// EngineParams lists the parameters each engine uses, in URL order.
var EngineParams = map[string][]string{
	EngineContext: {"compaction", "memory", "threshold", "rec"},
	EngineStatus:  {"status", "counter", "clock", "alpha"},
	EngineTiered:  {"strategy", "floor", "summarizer", "budget", "pairs"},
}

// Engines a lesson can run on.
const (
	EngineContext = "context" // compaction and memory over a fixed-size trace
	EngineStatus  = "status"  // status bar and prompt cache over a tool trajectory
	EngineTiered  = "tiered"  // tiered compression of old tool results
)

// ParamsOf returns the parameters of l's engine, in URL order.
func ParamsOf(l *Lesson) []Param {
	engine := l.Engine
	if engine == "" {
		engine = EngineContext
	}
	var out []Param
	for _, name := range EngineParams[engine] {
		pr, _ := ParamNamed(name)
		out = append(out, pr)
	}
	return out
}

// DefaultPolicy is the lesson's default mode.
func (l *Lesson) DefaultPolicy() Policy {
	var p Policy
	for _, pr := range ParamsOf(l) {
		pr.set(&p, pr.Default(l))
	}
	return p
}

// PresetPolicies lists every policy a student can reach with the page's
// buttons (every combination of every parameter's presets).
func PresetPolicies(l *Lesson) []Policy {
	out := []Policy{{}}
	for _, pr := range ParamsOf(l) {
		var next []Policy
		for _, p := range out {
			for _, v := range pr.Presets(l) {
				q := p
				pr.set(&q, v)
				next = append(next, q)
			}
		}
		out = next
	}
	return out
}

// ValidatePolicy reports the first parameter of l's engine that p sets out
// of range.
func (l *Lesson) ValidatePolicy(p Policy) error {
	for _, pr := range ParamsOf(l) {
		if !pr.Set(&p, pr.Get(p)) {
			return &PolicyError{Field: pr.Name, Allowed: pr.Allowed()}
		}
	}
	return nil
}
