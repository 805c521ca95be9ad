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

// TestStaticLinkable: a static copy links to a state when it holds it:
// the default and each preset one parameter away from it, and comparisons
// of the default with each of those that is a quick mode (digit keys); a
// live server links to every one.
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
		{cmPolicy, cmPolicy, false},
		{cmRec3, cmPolicy, false},
		{cmOverflow, cmPolicy, false},
		{cmPolicy, cmOverflow, true},     // one parameter away
		{cmPolicy, cmLowThreshold, true}, // one parameter away
		{cmPolicy, cmRec3, false},        // one parameter away, but a fine one (a summary version): no digit key leads there
		{cmOverflow, cmLowThreshold, false},
		{cmRec3, cmOverflow, false},
	} {
		b := p(c.b)
		st := State{Lang: "en", Lesson: l.ID, Policy: p(c.a), Compare: &b, Step: 1}
		if got := static.linkable(l, st); got != c.want {
			t.Errorf("static linkable(%s vs %s) = %v, want %v", c.a, c.b, got, c.want)
		}
		if !live.linkable(l, st) {
			t.Errorf("live linkable(%s vs %s) = false", c.a, c.b)
		}
	}
	for _, c := range []struct {
		pol  string
		want bool
	}{
		{cmPolicy, true}, {cmRec3, true}, {cmOverflow, true},
		{"compaction-off.memory-on.threshold-50.rec-1", false}, // two parameters away
	} {
		if got := static.linkable(l, State{Lang: "en", Lesson: l.ID, Policy: p(c.pol), Step: 1, View: ViewNotes}); got != c.want {
			t.Errorf("static linkable(%s) = %v, want %v", c.pol, got, c.want)
		}
	}
}
