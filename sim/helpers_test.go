package sim_test

import (
	"slices"
	"strconv"
	"testing"

	"ctxsim/sim"
)

// versions is how many versions each summary card of context-memory has
// (the source recorded each card 5 times; the lesson ships 5 texts).
const versions = 5

// pol builds a context-memory policy from its values.
func pol(t testing.TB, l *sim.Lesson, compaction, memory bool, threshold, rec int) sim.Policy {
	t.Helper()
	p, err := l.PolicyOf(map[string]string{"compaction": onoff(compaction), "memory": onoff(memory),
		"threshold": strconv.Itoa(threshold), "rec": strconv.Itoa(rec)})
	if err != nil {
		t.Fatalf("PolicyOf: %v", err)
	}
	return p
}

// policyOf builds a policy of any lesson from name=value pairs.
func policyOf(t testing.TB, l *sim.Lesson, kv ...string) sim.Policy {
	t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	p, err := l.PolicyOf(m)
	if err != nil {
		t.Fatalf("PolicyOf(%v): %v", kv, err)
	}
	return p
}

func onoff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// compInfo is what a compaction's frames report, read back from their
// figures and blocks.
type compInfo struct {
	Number, Before, After, Threshold, Count, RangeTokens, Summary int
	RangeIDs                                                      []string
	StillAbove, Mechanical, Resummarize, Emergency                bool
	SummaryBlock                                                  string
}

// comp returns the compaction a frame belongs to, or nil.
func comp(f sim.Frame) *compInfo {
	if _, ok := f.Figure("compaction"); !ok {
		return nil
	}
	v := func(n string) int { g, _ := f.Figure(n); return g.Value }
	has := func(n string) bool { _, ok := f.Figure(n); return ok }
	c := &compInfo{Number: v("compaction"), Before: v("before"), After: v("after"), Threshold: v("threshold"),
		Count: v("count"), RangeTokens: v("range"), Summary: v("summary"),
		StillAbove: has("heavy-tail"), Mechanical: has("mechanical"), Resummarize: has("resummarize"), Emergency: has("emergency")}
	if g, ok := f.Figure("summary-block"); ok {
		c.SummaryBlock = g.Str
	}
	var sum *sim.Block
	if f.Pending != nil {
		sum = f.Pending
	} else if b, ok := f.Block(c.SummaryBlock); ok {
		sum = b
	}
	if sum != nil && sum.Summary != nil {
		c.RangeIDs = slices.Clone(sum.Summary.Covers)
		c.Mechanical = sum.Summary.Mechanical
	} else {
		for _, b := range f.Blocks() {
			if b.Selected {
				c.RangeIDs = append(c.RangeIDs, b.ID)
			}
		}
	}
	return c
}

func memFile(f sim.Frame) []string {
	if f.Memory == nil {
		return nil
	}
	return f.Memory.File
}

func memInjected(f sim.Frame) []string {
	if f.Memory == nil {
		return nil
	}
	return f.Memory.Injected
}

func memNew(f sim.Frame) []string {
	if f.Memory == nil {
		return nil
	}
	return f.Memory.New
}

// attr reads a block attribute (chars, tier, distance); -1 when absent.
func attr(b sim.Block, name string) int {
	if v, ok := b.Attr(name); ok {
		return v
	}
	return -1
}

// cards are the summary cards of a lesson's compaction mechanism.
func cards(l *sim.Lesson) []sim.Card {
	if m, ok := l.Mechanism("compaction"); ok {
		return m.(sim.Compaction).Cards
	}
	return nil
}
