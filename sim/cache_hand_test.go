package sim

import "testing"

// TestPromptCacheParallelCalls: one model response writes three tool
// calls; the harness puts each result after its call. The provider caches
// the request and the three calls, never the results: the next window
// reuses the prefix up to the first call, and the next request is charged
// for everything after it. Every figure is computed by hand in the
// comments.
func TestPromptCacheParallelCalls(t *testing.T) {
	b, c := call("b", 5, 40, "more"), call("c", 5, 50, "more")
	b[0].Continues, c[0].Continues = true, true
	par := append(append(call("a", 5, 30, "first"), b...), c...)
	steps := []Step{
		// no model call: the request would be system 100 + u1 10 = 110,
		// nothing cached yet
		{ID: "s1", Type: StepMessages, Messages: []Message{msg("u1", RoleUser, 10, "go")}},
		// call 1: request 110 (all fresh), writes c-a, c-b, c-c (5 each);
		// results r-a 30, r-b 40, r-c 50. The window, 245, shares with the
		// cache [system, u1, c-a, c-b, c-c] the prefix system, u1, c-a: 115
		{ID: "s2", Type: StepMessages, Messages: par},
		// call 2: request 245, of which 115 reused: 130 fresh (240 in all);
		// writes a2 (10). The window, 255, is the request and a2: all cached
		{ID: "s3", Type: StepMessages, Messages: []Message{msg("a2", RoleAssistant, 10, "done")}},
	}
	frames := runHand(t, handLesson(t, 1000, steps, PromptCache{}, SpendMeter{}, Pairs{}))
	type want struct {
		reused, blocks, recomputed int
		first, reason              string
		fresh, spent               int
	}
	wants := []want{
		{0, 0, 110, "system", CacheCold, 0, 0},
		{115, 3, 130, "r-a", CacheParallel, 110, 110 + 15},
		{255, 9, 0, "", CacheAppend, 240, 125 + 245 + 10},
	}
	if len(frames) != len(wants) {
		t.Fatalf("%d frames; want %d", len(frames), len(wants))
	}
	for i, w := range wants {
		c, f := frames[i].Cache, frames[i]
		fresh, _ := f.Figure("spent-fresh")
		got := want{c.ReusedTokens, c.ReusedBlocks, c.RecomputedTokens, c.FirstChanged, c.Reason, fresh.Value, f.Spend.Tokens}
		if got != w {
			t.Errorf("frame %d (%s): %+v; want %+v", f.Step, f.TraceStep, got, w)
		}
	}
}
