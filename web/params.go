package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"ctxsim/sim"
)

// State is everything a lesson page shows, and so everything its URL holds.
type State struct {
	Lang   string
	Lesson string
	Policy sim.Policy
	Step   int // 1-based
}

// param describes one policy parameter of the URL and the frames API.
type param struct {
	name    string
	allowed string
	get     func(sim.Policy) string
	set     func(*sim.Policy, string) bool
}

var onOff = "on|off"

func boolParam(name string, field func(*sim.Policy) *bool) param {
	return param{
		name: name, allowed: onOff,
		get: func(p sim.Policy) string { return onOffOf(*field(&p)) },
		set: func(p *sim.Policy, v string) bool {
			switch v {
			case "on":
				*field(p) = true
			case "off":
				*field(p) = false
			default:
				return false
			}
			return true
		},
	}
}

func intParam(name string, lo, hi int, field func(*sim.Policy) *int) param {
	return param{
		name: name, allowed: fmt.Sprintf("an integer from %d to %d", lo, hi),
		get: func(p sim.Policy) string { return strconv.Itoa(*field(&p)) },
		set: func(p *sim.Policy, v string) bool {
			n, err := strconv.Atoi(v)
			if err != nil || n < lo || n > hi || strconv.Itoa(n) != v {
				return false
			}
			*field(p) = n
			return true
		},
	}
}

// params are the policy parameters in their canonical URL order.
var params = []param{
	boolParam("compaction", func(p *sim.Policy) *bool { return &p.Compaction }),
	boolParam("memory", func(p *sim.Policy) *bool { return &p.Memory }),
	intParam("threshold", 1, 100, func(p *sim.Policy) *int { return &p.ThresholdPercent }),
	intParam("rec", 1, sim.Recordings, func(p *sim.Policy) *int { return &p.Recording }),
}

func onOffOf(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// PolicySegment is the canonical path segment of p:
// compaction-on.memory-on.threshold-92.rec-1.
func PolicySegment(p sim.Policy) string {
	parts := make([]string, len(params))
	for i, pr := range params {
		parts[i] = pr.name + "-" + pr.get(p)
	}
	return strings.Join(parts, ".")
}

// ParsePolicySegment reads a segment made by PolicySegment. Every parameter
// must appear once, in any order.
func ParsePolicySegment(seg string) (sim.Policy, error) {
	var p sim.Policy
	seen := map[string]bool{}
	for _, part := range strings.Split(seg, ".") {
		name, val, _ := strings.Cut(part, "-")
		pr, ok := paramNamed(name)
		if !ok {
			return p, badParam("policy", fmt.Sprintf("a segment like %s", PolicySegment(sim.Policy{Compaction: true, Memory: true, ThresholdPercent: 92, Recording: 1})))
		}
		if !pr.set(&p, val) {
			return p, badParam(pr.name, pr.allowed)
		}
		seen[name] = true
	}
	for _, pr := range params {
		if !seen[pr.name] {
			return p, badParam(pr.name, pr.allowed+" (missing from the policy segment)")
		}
	}
	return p, nil
}

// ApplyQuery sets the policy parameters present in q on p, for the frames
// API and for query links that redirect to a canonical path.
func ApplyQuery(p sim.Policy, q url.Values) (sim.Policy, error) {
	for _, pr := range params {
		vs, ok := q[pr.name]
		if !ok {
			continue
		}
		if len(vs) != 1 || !pr.set(&p, vs[0]) {
			return p, badParam(pr.name, pr.allowed)
		}
	}
	return p, nil
}

// HasPolicyQuery reports whether q names any policy parameter.
func HasPolicyQuery(q url.Values) bool {
	for _, pr := range params {
		if q.Has(pr.name) {
			return true
		}
	}
	return false
}

func paramNamed(name string) (param, bool) {
	for _, pr := range params {
		if pr.name == name {
			return pr, true
		}
	}
	return param{}, false
}

// LessonURL is the canonical path of a lesson state.
func LessonURL(s State) string {
	return fmt.Sprintf("/%s/%s/%s/%d", s.Lang, s.Lesson, PolicySegment(s.Policy), s.Step)
}

// ParseStep reads a 1-based step number no larger than n.
func ParseStep(v string, n int) (int, error) {
	i, err := strconv.Atoi(v)
	if err != nil || i < 1 || i > n || strconv.Itoa(i) != v {
		return 0, badParam("step", fmt.Sprintf("an integer from 1 to %d", n))
	}
	return i, nil
}
