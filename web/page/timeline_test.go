package page

import (
	"testing"

	"ctxsim/sim"
)

func TestAlignRuns(t *testing.T) {
	s := newFixture(t)
	l := s.byID["context-memory"]
	rd, _ := s.run(l, l.DefaultPolicy())
	off, _ := l.With(l.DefaultPolicy(), "compaction", "off")
	rn, _ := s.run(l, off)
	def, noComp := rd.Frames, rn.Frames
	tl := alignRuns(def, noComp)
	// Every frame of each side appears, in order, and each side only moves
	// forward.
	for side, frames := range map[string][]sim.Frame{"default": def, "no compaction": noComp} {
		seen := map[int]bool{}
		prev := -1
		for _, p := range tl {
			i := p.a
			if side != "default" {
				i = p.b
			}
			if i < prev {
				t.Fatalf("%s goes back from frame %d to %d", side, prev+1, i+1)
			}
			prev = i
			seen[i] = true
		}
		if len(seen) != len(frames) {
			t.Errorf("%s: %d of %d frames shown", side, len(seen), len(frames))
		}
	}
	// The compaction frames of the default run meet the no-compaction run
	// still holding 47.9k, and the finished reply steps meet each other.
	for _, p := range tl {
		a, b := def[p.a], noComp[p.b]
		if a.Kind == sim.FrameCrossed && b.Total != 47900 {
			t.Errorf("at the default run's threshold crossing the other side shows %d; want 47900 (it has not replied yet)", b.Total)
		}
		if a.TraceStep == "reply" && a.Kind == sim.FrameStep && (b.TraceStep != "reply" || b.Total != 48500) {
			t.Errorf("default reply frame meets %s %d; want no-compaction reply 48500", b.TraceStep, b.Total)
		}
	}
}
