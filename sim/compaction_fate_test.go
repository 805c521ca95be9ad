package sim_test

import (
	"testing"

	"ctxsim/sim"
)

// TestCompactionSaysItsFate: at every threshold from 1 to 100, with memory
// on and off, each compaction's frames agree from the frame that selects
// the range on: the selected frame is keyed and marked mechanical exactly
// when the summary that follows is a mechanical excerpt (no card covers
// the range), so its narration can say what will happen. On the replaced
// frame, header-above says the header alone (system prompt and memory
// copy, computed here from the blocks) is above the threshold, and
// header-summary-above that, when it is not, the header and the summary
// are: the kept tail is then not why the window stays above.
func TestCompactionSaysItsFate(t *testing.T) {
	l, tok := setup(t)
	mechanicalSeen, headerSeen, headerSummarySeen := 0, 0, 0
	for _, memory := range []bool{true, false} {
		for th := 1; th <= 100; th++ {
			frames := mustRun(t, l, pol(t, l, true, memory, th, 1), tok)
			line := window * th / 100
			var selected *sim.Frame
			for i := range frames {
				f := &frames[i]
				_, mech := f.Figure("mechanical")
				switch f.Kind {
				case sim.FrameSelected:
					selected = f
					if mech != (f.Narration[0] == "selected@mechanical") {
						t.Errorf("threshold %d memory %v frame %d: mechanical %v, keys %v", th, memory, f.Step, mech, f.Narration)
					}
				case sim.FrameSummary:
					excerpt := f.Pending != nil && f.Pending.Summary.Mechanical
					_, said := selected.Figure("mechanical")
					if said != excerpt || mech != excerpt {
						t.Errorf("threshold %d memory %v: selected frame %d says mechanical %v; summary frame %d is an excerpt: %v", th, memory, selected.Step, said, f.Step, excerpt)
					}
					if excerpt {
						mechanicalSeen++
					}
				case sim.FrameReplaced:
					header, summary := 0, 0
					for _, b := range f.Blocks() {
						switch {
						case b.Role == sim.RoleSystem || b.Kind == sim.KindMemory:
							header += b.Tokens
						case b.Summary != nil && summary == 0:
							summary = b.Tokens
						}
					}
					_, above := f.Figure("header-above")
					_, withSummary := f.Figure("header-summary-above")
					if above != (header > line) || withSummary != (header <= line && header+summary > line) {
						t.Errorf("threshold %d memory %v frame %d: header %d, summary %d, line %d: header-above %v, header-summary-above %v",
							th, memory, f.Step, header, summary, line, above, withSummary)
					}
					if above {
						headerSeen++
					}
					if withSummary {
						headerSummarySeen++
					}
				}
			}
		}
	}
	if mechanicalSeen == 0 || headerSeen == 0 || headerSummarySeen == 0 {
		t.Errorf("the sweep never met a mechanical excerpt (%d), a header above the line (%d) or a header and summary above it (%d)",
			mechanicalSeen, headerSeen, headerSummarySeen)
	}
}
