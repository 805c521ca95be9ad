package sim

import (
	"testing"
)

// layersLesson is a hand lesson under the layers mechanism: window 1000,
// system 100, the line at line percent; cards are one-line records.
func layersLesson(t *testing.T, c Layers, steps []Step) *Lesson {
	t.Helper()
	return handLesson(t, 1000, steps, c, PromptCache{}, SpendMeter{})
}

// readCall is a tool call of tool and its result, sized; the result's
// text has three lines.
func toolCall(id, tool string, nCall, nRes int) []Message {
	return []Message{{ID: "c-" + id, Role: RoleAssistant, Kind: KindToolCall, ToolUseID: id, Tool: tool, Tokens: nCall, Content: tool + " " + id},
		{ID: "r-" + id, Role: RoleTool, Kind: KindToolResult, ToolUseID: id, Tool: tool, Tokens: nRes, Content: "first line\nsecond line\nthird line"}}
}

func round(id string, ms ...Message) Step { return Step{ID: id, Type: StepMessages, Messages: ms} }

// frameOf is the first frame with narration key key.
func frameOf(t *testing.T, frames []Frame, key string) Frame {
	t.Helper()
	for _, f := range frames {
		if f.Narration[len(f.Narration)-1] == key {
			return f
		}
	}
	t.Fatalf("no frame %q", key)
	return Frame{}
}

func fig(f Frame, name string) int {
	g, _ := f.Figure(name)
	return g.Value
}

func hasFig(f Frame, name string) bool { _, ok := f.Figure(name); return ok }

// TestLayerBudget: a result above the budget enters as its preview (the
// preview's trace size), its whole size noted, and the preview is reused
// by the cache at the next request: it was decided once.
func TestLayerBudget(t *testing.T) {
	c := Layers{Budget: 100, Preview: 10, PreviewLines: 1, Noise: []string{"grep"}, NoiseAge: 1, KeepResults: 1, KeepRounds: 1,
		MemoryRounds: 1, Line: 90, Failures: 3, Prompt: 10, Memory: Message{ID: "notes", Tokens: 10, Content: "notes"}}
	steps := []Step{
		round("s1", toolCall("a", "bash", 5, 150)...),
		round("s2", toolCall("b", "read", 5, 50)...),
	}
	l := layersLesson(t, c, steps)
	for _, tc := range []struct {
		layers            string
		s1Total, s2Reused int
		freed             int
	}{
		// off: 100 + 5 + 150 = 255; at s2 the cache holds request 2
		// (255) and the call c-b (5): 260 reused, r-b (50) new.
		{"0", 255, 260, 0},
		// on: the 150-token log becomes a 10-token preview: 100 + 5 + 10
		// = 115, freed 140; at s2 the preview is reused: 115 + 5 = 120.
		{"1", 115, 120, 140},
	} {
		frames := runHand(t, l, "layers", tc.layers, "breaker", "on")
		s1, s2 := frameOf(t, frames, "s1"), frameOf(t, frames, "s2")
		if s1.Total != tc.s1Total || s2.Cache.ReusedTokens != tc.s2Reused || fig(s2, "freed-1") != tc.freed {
			t.Errorf("layers %s: s1 total %d, s2 reused %d, freed %d; want %d, %d, %d", tc.layers, s1.Total, s2.Cache.ReusedTokens,
				fig(s2, "freed-1"), tc.s1Total, tc.s2Reused, tc.freed)
		}
	}
	frames := runHand(t, l, "layers", "1", "breaker", "on")
	s1 := frameOf(t, frames, "s1")
	b, _ := s1.Block("r-a")
	if from, _ := b.Attr("offloaded_from"); from != 150 || b.Kind != KindExcerpt ||
		b.Content != "[Output too large (150 tokens): saved to tool-results/r-a.txt. Preview, the first 1 lines:]\nfirst line" {
		t.Errorf("preview: kind %s, offloaded_from %d, text %q", b.Kind, from, b.Content)
	}
}

// TestLayerMicro: above the line, layer 3 replaces every tool result but
// the most recent with a placeholder (11 words here), and the cache is
// invalid from the first one.
func TestLayerMicro(t *testing.T) {
	c := Layers{Budget: 1000, Preview: 10, PreviewLines: 1, Noise: []string{"grep"}, NoiseAge: 1, KeepResults: 1, KeepRounds: 1,
		MemoryRounds: 1, Line: 30, Failures: 3, Prompt: 10, Memory: Message{ID: "notes", Tokens: 10, Content: "notes"}}
	steps := []Step{
		round("task", msg("u", RoleUser, 10, "find it")),
		round("r1", toolCall("a", "read", 5, 200)...),
		round("r2", toolCall("b", "read", 5, 200)...),
		round("r3", msg("a3", RoleAssistant, 10, "done")),
	}
	frames := runHand(t, layersLesson(t, c, steps), "layers", "3", "breaker", "on")
	f := frameOf(t, frames, "layer-3")
	// Before call 3: 100 + 10 + 205 + 205 = 520 > 300. r-a (200) becomes
	// "[read result removed from the request by context editing: 200
	// tokens]", 11 words: 520 - 200 + 11 = 331, still above 300.
	if fig(f, "before") != 520 || fig(f, "after") != 331 || fig(f, "removed") != 189 || fig(f, "count") != 1 || !hasFig(f, "still-over") {
		t.Errorf("layer-3: before %d after %d removed %d count %d still-over %v; want 520, 331, 189, 1, true",
			fig(f, "before"), fig(f, "after"), fig(f, "removed"), fig(f, "count"), hasFig(f, "still-over"))
	}
	// The cache held request 2 and c-b: it reuses system, task and c-a
	// (115), and computes the rest from r-a on.
	if f.Cache.ReusedTokens != 115 || f.Cache.FirstChanged != "r-a" {
		t.Errorf("layer-3 cache: reused %d from %s; want 115 from r-a", f.Cache.ReusedTokens, f.Cache.FirstChanged)
	}
	if b, ok := f.Block("r-b"); !ok || b.Tokens != 200 {
		t.Errorf("the most recent result has %d tokens; want 200, kept whole", b.Tokens)
	}
}

// TestLayersPipeline replays one session under every number of layers
// and the breaker; every figure is computed by hand in the comments.
//
// Window 1000, system 100, line 60% = 600, prompt 500 (a full
// compaction's request is the request plus 500), breaker at 2 failures,
// layer 4 keeps 5 rounds, the session memory 4 rounds, notes 10 tokens.
//
//	task 10 (round 0); r1 grep 5+100 (noise); r2 edit 200+5; r3 edit 100+5;
//	r4 read 5+450; r5..r8 one 10-token answer each.
//	Requests before calls 1-4: 110, 215, 420, 525 (all at or under 600).
//	After r4: 980.
//	call 5: L2 deletes the grep pair: 875. L3: the results left are 5, 5
//	  and 450 tokens; the two small ones would grow as placeholders, the
//	  last is kept: nothing. L4 keeps rounds 2-4: nothing. L5: the memory
//	  keeps rounds 2-4, so it would replace only the task (10 by 10): 875
//	  > 600; full compaction: 875 + 500 = 1375 > 1000, failure 1. Sent
//	  at 875; +10 = 885.
//	call 6: memory keeps 2-5: still the task only; full 1385 > 1000,
//	  failure 2. Sent 885; 895.
//	call 7: memory keeps 3-6: replaces task, c2, r2 (215) by 10 = 690 >
//	  600. Breaker on: 2 failures, no attempt. Off: 1395, failure 3.
//	  Sent 895; 905.
//	call 8: L4 keeps 3-7 and archives round 2 (205 -> a 10-token
//	  record): 710. Memory keeps 4-7: replaces task, record, c3, r3 (125)
//	  by 10: 595 <= 600, done. Sent 595; 605.
func TestLayersPipeline(t *testing.T) {
	c := Layers{Budget: 1000, Preview: 10, PreviewLines: 1, Noise: []string{"grep"}, NoiseAge: 1, KeepResults: 1, KeepRounds: 5,
		MemoryRounds: 4, Line: 60, Failures: 2, Prompt: 500, Memory: Message{ID: "notes", Role: RoleUser, Tokens: 10, Content: "notes so far"},
		Cards: []Card{{ID: "record-2", Covers: []string{"c-e2", "r-e2"}, Tokens: 10, Versions: []CardText{{Content: "r2 edited the pool"}}}}}
	steps := []Step{
		round("task", msg("u", RoleUser, 10, "find the leak")),
		round("r1", toolCall("g", "grep", 5, 100)...),
		round("r2", toolCall("e2", "edit", 200, 5)...),
		round("r3", toolCall("e3", "edit", 100, 5)...),
		round("r4", toolCall("big", "read", 5, 450)...),
		round("r5", msg("a5", RoleAssistant, 10, "a five")),
		round("r6", msg("a6", RoleAssistant, 10, "a six")),
		round("r7", msg("a7", RoleAssistant, 10, "a seven")),
		round("r8", msg("a8", RoleAssistant, 10, "a eight")),
	}
	l := layersLesson(t, c, steps)

	t.Run("no layers overflow", func(t *testing.T) {
		// 980 at call 5 and 990 at call 6 fit; 1000 at call 7 fits (not
		// above the window); 1010 at call 8 is refused.
		frames := runHand(t, l, "layers", "0", "breaker", "on")
		last := frames[len(frames)-1]
		if last.Kind != FrameOverflow || last.Total != 1010 || last.Spend.Iteration != 8 {
			t.Errorf("last frame %s %d at iteration %d; want overflow 1010 at 8", last.Kind, last.Total, last.Spend.Iteration)
		}
	})
	t.Run("layer 2", func(t *testing.T) {
		frames := runHand(t, l, "layers", "2", "breaker", "on")
		f := frameOf(t, frames, "layer-2")
		if fig(f, "before") != 980 || fig(f, "after") != 875 || fig(f, "removed") != 105 || fig(f, "count") != 1 || f.Spend.Iteration != 5 {
			t.Errorf("layer-2 before call %d: %d -> %d, removed %d, count %d; want call 5, 980 -> 875, 105, 1",
				f.Spend.Iteration, fig(f, "before"), fig(f, "after"), fig(f, "removed"), fig(f, "count"))
		}
		// 875 + four answers of 10: the run ends at 915.
		if last := frames[len(frames)-1]; last.Total != 915 || last.Kind != FrameStep {
			t.Errorf("layers 2 ends at %s %d; want a step at 915", last.Kind, last.Total)
		}
	})
	type want struct {
		failedAt       []int // calls whose frames show a failed compaction
		attempts       int
		wasted         int
		summarizer     int
		breakerOpenAt7 bool
	}
	for _, tc := range []struct {
		breaker string
		w       want
	}{
		// On: failures at calls 5 and 6 (1375 + 1385 = 2760 sent), then
		// no attempt at 7; summarizer: 2 attempts + 1 record.
		{"on", want{[]int{5, 6}, 2, 2760, 3, true}},
		// Off: a third failure at call 7 (1395): 4155 sent; summarizer 4.
		{"off", want{[]int{5, 6, 7}, 3, 4155, 4, false}},
	} {
		t.Run("breaker "+tc.breaker, func(t *testing.T) {
			frames := runHand(t, l, "layers", "5", "breaker", tc.breaker)
			var failed []int
			for _, f := range frames {
				if f.Narration[len(f.Narration)-1] == "layer-5-failed" {
					failed = append(failed, f.Spend.Iteration)
				}
			}
			if len(failed) != len(tc.w.failedAt) {
				t.Fatalf("failed compactions at calls %v; want %v", failed, tc.w.failedAt)
			}
			for i := range failed {
				if failed[i] != tc.w.failedAt[i] {
					t.Errorf("failed compactions at calls %v; want %v", failed, tc.w.failedAt)
				}
			}
			if f := frameOf(t, frames, "layer-5-failed"); fig(f, "request") != 1375 {
				t.Errorf("the first failed request is %d; want 1375", fig(f, "request"))
			}
			r7 := frameOf(t, frames, "r7")
			if hasFig(r7, "breaker-open") != tc.w.breakerOpenAt7 {
				t.Errorf("breaker open at r7: %v; want %v", hasFig(r7, "breaker-open"), tc.w.breakerOpenAt7)
			}
			a := frameOf(t, frames, "layer-4")
			if fig(a, "before") != 905 || fig(a, "after") != 710 || fig(a, "count") != 1 {
				t.Errorf("layer-4: %d -> %d, %d records; want 905 -> 710, 1", fig(a, "before"), fig(a, "after"), fig(a, "count"))
			}
			m := frameOf(t, frames, "layer-5-memory")
			if fig(m, "before") != 710 || fig(m, "after") != 595 || fig(m, "count") != 4 || m.Spend.Iteration != 8 {
				t.Errorf("memory at call %d: %d -> %d replacing %d blocks; want call 8, 710 -> 595, 4",
					m.Spend.Iteration, fig(m, "before"), fig(m, "after"), fig(m, "count"))
			}
			last := frames[len(frames)-1]
			if last.Total != 605 || fig(last, "attempts") != tc.w.attempts || fig(last, "wasted") != tc.w.wasted ||
				fig(last, "summarizer-calls") != tc.w.summarizer || hasFig(last, "breaker-open") {
				t.Errorf("end: total %d, attempts %d, wasted %d, summarizer %d, breaker open %v; want 605, %d, %d, %d, closed",
					last.Total, fig(last, "attempts"), fig(last, "wasted"), fig(last, "summarizer-calls"), hasFig(last, "breaker-open"),
					tc.w.attempts, tc.w.wasted, tc.w.summarizer)
			}
		})
	}
}
