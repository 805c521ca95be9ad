package scenarios

import (
	"fmt"
	"strings"

	"ctxsim/sim"
)

func (b *builder) constraint(p string, r sim.Constraint, needMax bool) {
	if r.Tool == "" || r.Key == "" {
		b.fail(p, "needs tool and key")
	}
	if needMax && r.Max <= 0 {
		b.fail(p+".max", "must be a positive number of calls")
	}
}

// statusBar builds the status bar; its cost model is declared once every
// mechanism is built (mechanisms).
func (b *builder) statusBar(s *sim.StatusBar, l *sim.Lesson) sim.Mechanism {
	b.needTimes("mechanisms.status_bar", l)
	b.constraint("mechanisms.status_bar.constraint", s.Constraint, true)
	return *s
}

func (b *builder) counter(c *sim.ToolCounter, _ *sim.Lesson) sim.Mechanism {
	b.constraint("mechanisms.counter.constraint", c.Constraint, false)
	return *c
}

func (b *builder) clock(c *sim.Clock, l *sim.Lesson) sim.Mechanism {
	b.needTimes("mechanisms.clock", l)
	return *c
}

// needTimes requires a time on every step that calls the model: the status
// bar and the clock report it.
func (b *builder) needTimes(p string, l *sim.Lesson) {
	for i, st := range l.Trace {
		calls := st.Decision
		for _, m := range st.Messages {
			calls = calls || m.Role == sim.RoleAssistant
		}
		if calls && st.Time == "" {
			b.fail(fmt.Sprintf("trace[%d].time", i), "is required: %s reports the time of each model call", strings.TrimPrefix(p, "mechanisms."))
		}
	}
}

// PromptCacheConfig is the prompt cache's configuration in a lesson file
// (mechanisms.prompt_cache): the cache is priced when alpha is given.
type PromptCacheConfig struct {
	Alpha   int   `yaml:"alpha,omitempty"`   // the cached-input price, percent of the input price
	Presets []int `yaml:"presets,omitempty"` // alpha values offered as buttons
	Panel   bool  `yaml:"panel,omitempty"`   // the cache panel beside the window
}

func (b *builder) promptCache(r *PromptCacheConfig, _ *sim.Lesson) sim.Mechanism {
	c := sim.PromptCache{Pricing: r.Alpha != 0, Alpha: r.Alpha, Presets: r.Presets, Panel: r.Panel}
	if r.Alpha < 0 || r.Alpha > 100 || (r.Alpha == 0 && len(r.Presets) > 0) {
		b.fail("mechanisms.prompt_cache.alpha", "must be the cached-input price in percent, 1 to 100, when presets are given; got %d", r.Alpha)
	}
	return c
}
