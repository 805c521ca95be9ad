package scenarios

import (
	"fmt"
	"slices"

	"ctxsim/sim"
)

// checkCompactSteps requires a recorded compaction mechanism for compact
// steps, and a card of it for each.
func (b *builder) checkCompactSteps(l *sim.Lesson) {
	m, ok := l.Mechanism("compaction")
	c, _ := m.(sim.Compaction)
	for i, st := range l.Trace {
		if st.Type != sim.StepCompact {
			continue
		}
		p := fmt.Sprintf("trace[%d]", i)
		if !ok || !c.AsRecorded {
			b.fail(p+".type", "a compact step needs the compaction mechanism with recorded: true")
			return
		}
		if !slices.ContainsFunc(c.Cards, func(cd sim.Card) bool { return cd.ID == st.Card }) {
			b.fail(p+".card", "names no card of mechanisms.compaction.cards, got %q", st.Card)
		}
	}
}

// CompactionConfig is the compaction mechanism's configuration in a
// lesson file (mechanisms.compaction): sim.Compaction, with its summary
// cards as the file that holds them.
type CompactionConfig struct {
	Threshold  int    `yaml:"threshold"`       // percent of the window
	Presets    []int  `yaml:"presets"`         // thresholds offered (default: the threshold)
	Tail       int    `yaml:"tail"`            // recent messages kept verbatim
	Cards      string `yaml:"cards,omitempty"` // a cards file of the lesson directory (summaries.yaml)
	AsRecorded bool   `yaml:"recorded"`        // the trace marks where a recorded session compacted (compact steps)
	Loss       bool   `yaml:"loss"`            // summary frames list what of the range the summary keeps
	// Own is a recorded session's own threshold (percent): offered among
	// the presets, named for the session.
	Own int `yaml:"own,omitempty"`
}

func (b *builder) compaction(r *CompactionConfig, _ *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.compaction"
	switch {
	case r.Threshold < 1 || r.Threshold > 100:
		b.fail(p+".threshold", "must be an integer from 1 to 100, got %d", r.Threshold)
	case r.Tail < 0:
		b.fail(p+".tail", "must not be negative")
	}
	for i, t := range r.Presets {
		if t < 1 || t > 100 {
			b.fail(fmt.Sprintf("%s.presets[%d]", p, i), "must be an integer from 1 to 100, got %d", t)
		}
	}
	presets := r.Presets
	if len(presets) == 0 {
		presets = []int{r.Threshold}
	}
	switch {
	case r.Own != 0 && (r.Own < 1 || r.Own > 100):
		b.fail(p+".own", "must be an integer from 1 to 100, got %d", r.Own)
	case r.Own != 0 && !slices.Contains(presets, r.Own):
		b.fail(p+".own", "must be one of the presets (the session's own threshold is offered as one), got %d", r.Own)
	}
	c := sim.Compaction{Threshold: r.Threshold, Presets: presets, Tail: r.Tail, AsRecorded: r.AsRecorded, Loss: r.Loss, Own: r.Own}
	if r.Cards != "" {
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, nil)
	}
	return c
}
