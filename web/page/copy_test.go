package page

import (
	"testing"

	"ctxsim/sim"
)

// Policies of the context-memory lesson the tests name.
const (
	cmPolicy       = "compaction-on.memory-on.threshold-92.rec-1" // the default
	cmOverflow     = "compaction-off.memory-on.threshold-92.rec-1"
	cmLowThreshold = "compaction-on.memory-on.threshold-50.rec-1"
	cmRec3         = "compaction-on.memory-on.threshold-92.rec-3"
)

// TestStaticLinkable: a static copy links to a comparison only when it
// holds it: a preset against the default, or the default against a quick
// mode; a live server links to every one.
func TestStaticLinkable(t *testing.T) {
	s := newFixture(t)
	live, static := s.builder(false), s.builder(true)
	l := s.byID["context-memory"]
	p := func(seg string) sim.Policy {
		pol, err := l.ParsePolicy(seg)
		if err != nil {
			t.Fatal(err)
		}
		return pol
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{cmPolicy, cmPolicy, true},
		{cmRec3, cmPolicy, true},
		{cmOverflow, cmPolicy, true},
		{cmPolicy, cmOverflow, true},     // a quick mode
		{cmPolicy, cmLowThreshold, true}, // a quick mode
		{cmPolicy, cmRec3, false},        // not a quick mode (a summary version is fine)
		{cmOverflow, cmLowThreshold, false},
		{cmRec3, cmOverflow, false},
	} {
		b := p(c.b)
		st := State{Lang: "en", Lesson: l.ID, Policy: p(c.a), Compare: &b, Step: 1}
		if got := static.linkable(l.Lesson, st); got != c.want {
			t.Errorf("static linkable(%s vs %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if !live.linkable(l.Lesson, st) {
			t.Errorf("live linkable(%s vs %s) = false", c.a, c.b)
		}
	}
	if !static.linkable(l.Lesson, State{Lang: "en", Lesson: l.ID, Policy: p(cmRec3), Step: 1}) {
		t.Errorf("a single state is not linkable in a static copy")
	}
}
