package sim

import (
	"regexp"
	"strings"
	"testing"
)

// handLesson builds a lesson from steps and mechanisms with its params in
// the mechanisms' order; sizes are given (the word counter only sizes
// text the harness writes).
func handLesson(t *testing.T, window int, steps []Step, mechs ...Mechanism) *Lesson {
	t.Helper()
	l := &Lesson{ID: "hand", Window: window, Mechanisms: mechs,
		System: Message{ID: "system", Role: RoleSystem, Kind: KindPrompt, Tokens: 100, Content: "system prompt"},
		Facts:  []Fact{{ID: "key", Pattern: regexp.MustCompile(`key=42`)}},
		Trace:  steps}
	if err := l.SetParamOrder(nil); err != nil {
		t.Fatal(err)
	}
	return l
}

func msg(id string, role Role, n int, text string) Message {
	return Message{ID: id, Role: role, Tokens: n, Content: text}
}

// call is a tool call and its result, sized.
func call(id string, nCall, nRes int, text string) []Message {
	return []Message{{ID: "c-" + id, Role: RoleAssistant, Kind: KindToolCall, ToolUseID: id, Tool: "search", Tokens: nCall, Content: "search " + id},
		{ID: "r-" + id, Role: RoleTool, Kind: KindToolResult, ToolUseID: id, Tool: "search", Tokens: nRes, Content: text}}
}

func runHand(t *testing.T, l *Lesson, kv ...string) []Frame {
	t.Helper()
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	p, err := l.PolicyOf(m)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(l, p, wordCount{})
	if err != nil {
		t.Fatal(err)
	}
	return r.Frames
}

// TestSpendAndNeeds: every model call costs its request as sent plus what
// the model wrote; a need the window lacks costs its recovery calls first,
// shown as a frame of their own; a need it holds costs nothing. Every
// figure is computed by hand in the comments.
func TestSpendAndNeeds(t *testing.T) {
	steps := []Step{
		// call 1: request 100 + 10 = 110, writes 20: spent 130
		{ID: "s1", Type: StepMessages, Messages: []Message{msg("u1", RoleUser, 10, "go"), msg("a1", RoleAssistant, 20, "ok")}},
		// key missing: call 2 (request 130) writes the search (5): 265; its
		// result (30) enters; call 3 (request 165) writes a2 (10): 440
		{ID: "s2", Type: StepMessages, Needs: []Need{{Fact: "key", Step: "find-key", Recover: call("k", 5, 30, "key=42")}},
			Messages: []Message{msg("a2", RoleAssistant, 10, "done")}},
		// key in the window: call 4 (request 175) writes a3 (10): 625
		{ID: "s3", Type: StepMessages, Needs: []Need{{Fact: "key", Step: "find-again", Recover: call("k2", 5, 30, "key=42")}},
			Messages: []Message{msg("a3", RoleAssistant, 10, "done again")}},
	}
	frames := runHand(t, handLesson(t, 1000, steps, SpendMeter{}, Pairs{})) // pairs: a lesson needs a parameter
	type want struct {
		key               string
		iteration, spent  int
		recalls, decisive int
	}
	wants := []want{{"s1", 1, 130, 0, 0}, {"find-key", 2, 265, 1, 1}, {"s2", 3, 440, 1, 0}, {"s3", 4, 625, 1, 0}}
	if len(frames) != len(wants) {
		t.Fatalf("%d frames; want %d", len(frames), len(wants))
	}
	for i, w := range wants {
		f := frames[i]
		g, _ := f.Figure("recalls")
		d := 0
		if f.Decisive {
			d = 1
		}
		if key := f.Narration[len(f.Narration)-1]; key != w.key || f.Spend.Iteration != w.iteration || f.Spend.Tokens != w.spent || g.Value != w.recalls || d != w.decisive {
			t.Errorf("frame %d: %s iteration %d spent %d recalls %d decisive %v; want %+v", i+1, key, f.Spend.Iteration, f.Spend.Tokens, g.Value, f.Decisive, w)
		}
	}
	if frames[2].Narration[0] != "s2@after-recall" {
		t.Errorf("s2 keys %v; want s2@after-recall first", frames[2].Narration)
	}
	var looked []bool
	for _, f := range frames {
		for _, e := range f.Events {
			if e.Type == EventLookup {
				looked = append(looked, *e.Found)
			}
		}
	}
	if len(looked) != 2 || looked[0] || !looked[1] {
		t.Errorf("lookups %v; want missed, then found", looked)
	}
}

// TestSlidingWindowPairs: a window of 3 messages after the task never
// holds more, never breaks a tool pair, and says what slid out.
func TestSlidingWindowPairs(t *testing.T) {
	var steps []Step
	steps = append(steps, Step{ID: "task", Type: StepMessages, Messages: []Message{msg("u", RoleUser, 10, "task")}})
	for _, id := range []string{"a", "b", "c", "d"} {
		steps = append(steps, Step{ID: "round-" + id, Type: StepMessages, Messages: call(id, 5, 20, "result "+id)})
	}
	l := handLesson(t, 1000, steps, History{Choices: []string{HistorySliding, HistoryFull}, Messages: 3, Keep: 1})
	frames := runHand(t, l, "history", "sliding")
	slid := []string{}
	for _, f := range frames {
		if n := len(f.Blocks()) - 2; n > 3 {
			t.Errorf("frame %d: %d messages after the task; want at most 3", f.Step, n)
		}
		if f.Blocks()[1].ID != "u" {
			t.Errorf("frame %d: the task slid out", f.Step)
		}
		if i := checkPairs(f.Blocks()[1:], 0); i != nil {
			t.Errorf("frame %d: %s", f.Step, i.err)
		}
		for _, e := range f.Events {
			if e.Type == EventSlid {
				slid = append(slid, e.Block)
			}
		}
	}
	if got := strings.Join(slid, " "); got != "c-a r-a c-b r-b c-c r-c" {
		t.Errorf("slid out: %s; want each older pair, whole", got)
	}
	if full := runHand(t, l, "history", "full"); len(full[len(full)-1].Blocks()) != 2+8 {
		t.Errorf("full history keeps %d blocks; want all 10", len(full[len(full)-1].Blocks()))
	}
}

// TestBatchMarksOnce: adaptive compresses every unmarked result when a
// request passes the trigger, marks it, and a later batch leaves marked
// results alone.
func TestBatchMarksOnce(t *testing.T) {
	var steps []Step
	var cards []Card
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		steps = append(steps, Step{ID: "round-" + id, Type: StepMessages, Messages: call(id, 5, 40, "result "+id)})
		cards = append(cards, Card{ID: "card-" + id, Strategy: StrategyAdaptive, Covers: []string{"r-" + id}, Tokens: 4,
			Versions: []CardText{{Content: "short " + id, Provenance: Text{"en": "test"}}}})
	}
	// Window 400, trigger 50% = 200. After c the request is 100 + 3×45 =
	// 235: the first batch compresses a, b, c to 4 + the mark line's 8 words
	// = 12 each (151). After e it is 151 + 2×45 = 241: the second batch
	// compresses d and e only. f stays whole.
	l := handLesson(t, 400, steps, History{Choices: []string{StrategyAdaptive, HistoryFull}, Trigger: 50, Cards: cards, Versions: 1})
	frames := runHand(t, l, "history", "adaptive")
	compressed := map[string]int{}
	var batches []string
	for _, f := range frames {
		var ids []string
		for _, e := range f.Events {
			if e.Type == EventCompressed {
				compressed[e.Block]++
				ids = append(ids, e.Block)
			}
		}
		if f.Kind == FramePass {
			batches = append(batches, strings.Join(ids, ","))
		}
	}
	last := frames[len(frames)-1]
	for _, b := range last.Blocks() {
		marked := strings.HasPrefix(b.Content, CompressedMark+" [Original: ")
		if b.Role == RoleTool && marked != (compressed[b.ID] == 1) {
			t.Errorf("%s marked %v, compressed %d times", b.ID, marked, compressed[b.ID])
		}
	}
	if got := strings.Join(batches, " | "); got != "r-a,r-b,r-c | r-d,r-e" {
		t.Errorf("batches %s; want a, b, c then d, e", got)
	}
	mark := wordCount{}.Count("[COMPRESSED] [Original: 40 tokens → Compressed: 4 tokens]\n")
	if b, _ := last.Block("r-a"); b.Tokens != 4+mark {
		t.Errorf("r-a is %d tokens: %q", b.Tokens, b.Content)
	}
}

// TestSubagentWindow: with isolation on, the sub-agent's steps run in a
// window of its own that frames carry beside the request; the main window
// gets the task and the conclusion, together, when the last one ends.
func TestSubagentWindow(t *testing.T) {
	sub := Subagent{
		System: Message{ID: "sub-system", Role: RoleSystem, Kind: KindPrompt, Tokens: 50, Content: "search"},
		Task:   Message{ID: "task-call", Role: RoleAssistant, Kind: KindToolCall, ToolUseID: "task-call", Tokens: 15, Content: "task(find it)"},
		Prompt: Message{ID: "task-text", Role: RoleUser, Tokens: 10, Content: "find it"},
	}
	steps := []Step{
		{ID: "ask", Type: StepMessages, Messages: []Message{msg("u", RoleUser, 10, "fix it")}},
		{ID: "look", Type: StepMessages, Agent: AgentSub, Messages: call("g", 5, 200, "grep hits")},
		{ID: "found", Type: StepMessages, Agent: AgentSub, Messages: []Message{msg("concl", RoleAssistant, 20, "it is in x.go")}},
		{ID: "fix", Type: StepMessages, Messages: []Message{msg("a", RoleAssistant, 10, "fixed")}},
	}
	l := handLesson(t, 1000, steps, sub, SpendMeter{})
	on := runHand(t, l, "isolation", "on")
	// Main: the task call (request 110) writes 15; sub-agent: the grep call
	// (request 60) writes 5, the conclusion (request 265) writes 20; main:
	// the fix (request 145) writes 10.
	wantMain := []string{"system u", "system u", "system u task-call concl", "system u task-call concl a"}
	wantSecond := []int{-1, 265, 285, -1}
	for i, f := range on {
		if got := strings.Join(blockIDs(f.Blocks()), " "); got != wantMain[i] {
			t.Errorf("frame %d main window %s; want %s", i+1, got, wantMain[i])
		}
		second := -1
		if f.Second != nil {
			second = f.Second.Total
		}
		if second != wantSecond[i] {
			t.Errorf("frame %d second window %d tokens; want %d", i+1, second, wantSecond[i])
		}
	}
	last := on[len(on)-1]
	if b, _ := last.Block("concl"); b.Role != RoleTool || b.ToolUseID != "task-call" {
		t.Errorf("the conclusion came back as %s for %q", b.Role, b.ToolUseID)
	}
	if s := last.Spend; s.Tokens != 110+15+60+5+265+20+145+10 || s.Sub != 60+5+265+20 || s.Iteration != 2 {
		t.Errorf("spend %+v", *s)
	}
	off := runHand(t, l, "isolation", "off")
	if got := strings.Join(blockIDs(off[len(off)-1].Blocks()), " "); got != "system u c-g r-g concl a" {
		t.Errorf("off: main window %s; want the search in it", got)
	}
}

func blockIDs(bs []Block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

// TestSpendFresh: with a prompt cache, each call also counts what the
// provider could not reuse: after a slide the request starts differently.
func TestSpendFresh(t *testing.T) {
	steps := []Step{
		{ID: "s1", Type: StepMessages, Messages: []Message{msg("u1", RoleUser, 10, "go"), msg("a1", RoleAssistant, 20, "ok")}},
		{ID: "s2", Type: StepMessages, Messages: []Message{msg("u2", RoleUser, 10, "more"), msg("a2", RoleAssistant, 5, "done")}},
	}
	l := handLesson(t, 1000, steps, History{Choices: []string{HistorySliding, HistoryFull}, Messages: 2}, PromptCache{}, SpendMeter{})
	for _, tc := range []struct {
		history string
		fresh   int
	}{
		// call 1: nothing cached, 110 computed. full: call 2 sends system,
		// u1, a1, u2 (140) and the cache holds system, u1, a1: 10 computed.
		{"full", 110 + 10},
		// sliding (2 messages): u1 slid out, call 2 sends system, a1, u2
		// (130): only the system prompt is reused, 30 computed.
		{"sliding", 110 + 30},
	} {
		frames := runHand(t, l, "history", tc.history)
		g, _ := frames[len(frames)-1].Figure("spent-fresh")
		if g.Value != tc.fresh {
			t.Errorf("%s: spent-fresh %d; want %d", tc.history, g.Value, tc.fresh)
		}
	}
}
