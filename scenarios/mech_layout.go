package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"ctxsim/sim"
)

// LayoutConfig is the layout mechanism's configuration in a lesson file: what a harness puts between the system prompt and the
// conversation (tool definitions, a cache boundary marker, the session's
// runtime conditions), and the patterns a lesson offers.
type LayoutConfig struct {
	// Patterns offered (the pattern parameter), the default first; left
	// out: the stable layout only, and no parameter.
	Patterns   []string                `yaml:"patterns"`
	Blocks     []LayoutBlockConfig     `yaml:"blocks"`
	Clock      string                  `yaml:"clock"` // timestamp: the line, with {time}
	State      string                  `yaml:"state"` // user-settings: the line, with {calls-left} and {balance}
	Price      int                     `yaml:"price"` // user-settings: cents one model call costs
	Conditions []LayoutConditionConfig `yaml:"conditions"`
	Users      []LayoutUserConfig      `yaml:"users"` // one per session, in order
}

type LayoutBlockConfig struct {
	ID       string   `yaml:"id"`
	Label    sim.Text `yaml:"label"`
	Tokens   int      `yaml:"tokens"`
	Content  string   `yaml:"content"`
	Tool     string   `yaml:"tool"`     // a tool's definition
	Boundary bool     `yaml:"boundary"` // the cache boundary marker
}

type LayoutConditionConfig struct {
	Name   string   `yaml:"name"`
	Values []string `yaml:"values"`
}

type LayoutUserConfig struct {
	Values    []string `yaml:"values"`     // each condition's value, in order
	CallsLeft int      `yaml:"calls_left"` // user-settings
	Balance   int      `yaml:"balance"`    // user-settings, in cents
}

// layout builds the layout mechanism and checks what each pattern needs.
func (b *builder) layout(r *LayoutConfig, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.layout"
	c := sim.Layout{Clock: r.Clock, State: r.State, Price: r.Price}
	if len(r.Patterns) > 0 {
		c.Patterns = b.offered(p+".patterns", r.Patterns, sim.Patterns)
	}
	boundaries := 0
	for i, rb := range r.Blocks {
		bp := fmt.Sprintf("%s.blocks[%d]", p, i)
		b.checkID(bp+".id", rb.ID)
		b.size(bp, rb.Tokens)
		switch {
		case rb.Content == "":
			b.fail(bp+".content", "is required")
		case rb.Label["en"] == "" || rb.Label["ja"] == "":
			b.fail(bp+".label", "needs both en and ja")
		case rb.Tool != "" && rb.Boundary:
			b.fail(bp, "is a tool's definition or the boundary marker, not both")
		}
		if rb.Boundary {
			boundaries++
		}
		c.Blocks = append(c.Blocks, sim.LayoutBlock{ID: rb.ID, Label: rb.Label, Content: rb.Content, Tokens: rb.Tokens,
			Tool: rb.Tool, Boundary: rb.Boundary, Origin: b.origin})
	}
	if boundaries > 1 {
		b.fail(p+".blocks", "holds %d boundary markers; a prompt has one", boundaries)
	}
	for i, rc := range r.Conditions {
		cp := fmt.Sprintf("%s.conditions[%d]", p, i)
		if rc.Name == "" || len(rc.Values) < 2 {
			b.fail(cp, "needs a name and at least two values")
		}
		c.Conditions = append(c.Conditions, sim.Condition{Name: rc.Name, Values: rc.Values})
	}
	c.Users = b.layoutUsers(p, r, l)
	offered := c.Patterns
	if len(offered) == 0 {
		offered = []string{sim.PatternStable}
	}
	b.layoutNeeds(p, r, offered, l, boundaries)
	return c
}

// layoutUsers reads each session's user: condition values and state.
func (b *builder) layoutUsers(p string, r *LayoutConfig, l *sim.Lesson) []sim.LayoutUser {
	var out []sim.LayoutUser
	combos := map[string]int{}
	for i, ru := range r.Users {
		up := fmt.Sprintf("%s.users[%d]", p, i)
		u := sim.LayoutUser{CallsLeft: ru.CallsLeft, Balance: ru.Balance}
		if len(ru.Values) != len(r.Conditions) {
			b.fail(up+".values", "gives %d values for %d conditions", len(ru.Values), len(r.Conditions))
			continue
		}
		for j, v := range ru.Values {
			k := slices.Index(r.Conditions[j].Values, v)
			if k < 0 {
				b.fail(fmt.Sprintf("%s.values[%d]", up, j), "%q is not a value of %s (%v)", v, r.Conditions[j].Name, r.Conditions[j].Values)
			}
			u.Values = append(u.Values, k)
		}
		// Every session is for a user with other conditions than the
		// sessions before it: the simulated cache holds one request, so a
		// combination seen two sessions ago would be a miss here and a hit
		// at a provider that keeps every prefix.
		key := fmt.Sprint(u.Values)
		if j, ok := combos[key]; ok {
			b.fail(up+".values", "repeats the conditions of users[%d]: give each session a combination of its own", j)
		}
		combos[key] = i
		out = append(out, u)
	}
	if len(r.Users) > 0 && len(r.Users) != l.Sessions() {
		b.fail(p+".users", "lists %d users for %d sessions: one per session", len(r.Users), l.Sessions())
	}
	return out
}

// layoutNeeds checks what the offered patterns need of the lesson.
func (b *builder) layoutNeeds(p string, r *LayoutConfig, offered []string, l *sim.Lesson, boundaries int) {
	for _, pt := range offered {
		switch pt {
		case sim.PatternTimestamp:
			if !strings.Contains(r.Clock, "{time}") {
				b.fail(p+".clock", "is required by timestamp: the line, with {time} for the call's time")
			}
			b.needTimes(p, l)
			for i, st := range l.Trace {
				if st.Type == sim.StepSessionStart && st.Time == "" {
					b.fail(fmt.Sprintf("trace[%d].time", i), "is required: the timestamp pattern writes the time into the prefix from the session's start")
				}
			}
		case sim.PatternUserState:
			if !strings.Contains(r.State, "{calls-left}") || !strings.Contains(r.State, "{balance}") || r.Price <= 0 || len(r.Users) == 0 {
				b.fail(p+".state", "user-settings needs state (with {calls-left} and {balance}), a positive price and users")
			}
		case sim.PatternToolOrder:
			if !slices.ContainsFunc(r.Blocks, func(rb LayoutBlockConfig) bool { return rb.Tool != "" }) {
				b.fail(p+".blocks", "tool-reorder needs tool definitions (blocks with tool)")
			}
		case sim.PatternFlattened:
			if !b.counted {
				b.fail(p+".patterns", "flattened rewrites the conversation as text, counted anew: it needs sizes: counted")
			}
		case sim.PatternConditions:
			if len(r.Conditions) == 0 || boundaries == 0 {
				b.fail(p+".conditions", "conditions-before-boundary needs runtime conditions and a boundary marker")
			}
		}
	}
	if len(r.Conditions) > 0 && len(r.Users) == 0 {
		b.fail(p+".users", "is required with conditions: each session's values")
	}
}
