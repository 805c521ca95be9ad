package sim

import "testing"

// layoutLesson: system 100; two tool definitions (search 20, read 30) and
// a boundary marker (10); one runtime condition, OS, of two values; two
// users. Texts the harness writes are sized by the word counter: the
// conditions block "Runtime conditions:\n- OS: mac" is 5 words, the clock
// "Now t1" 2, the state line "Left: 10 $1.00" 3.
//
//	session 1 (user mac, 10 calls left, $1.00; a call costs 2 cents)
//	  R1: user "question one" (5), call read (4), result (8)
//	  R2: call search (4), result (6)
//	  R3: answer (3)
//	session 2 (user linux, 5 calls left, $0.50)
//	  R4: user (5), call read (4), result (8)
func layoutLesson(t *testing.T) *Lesson {
	c := Layout{
		Patterns: Patterns,
		Blocks: []LayoutBlock{
			{ID: "tool-a", Tool: "search", Tokens: 20, Content: "search def"},
			{ID: "tool-b", Tool: "read", Tokens: 30, Content: "read def"},
			{ID: "bnd", Boundary: true, Tokens: 10, Content: "boundary"},
		},
		Clock: "Now {time}", State: "Left: {calls-left} {balance}", Price: 2,
		Conditions: []Condition{{Name: "OS", Values: []string{"mac", "linux"}}},
		Users:      []LayoutUser{{Values: []int{0}, CallsLeft: 10, Balance: 100}, {Values: []int{1}, CallsLeft: 5, Balance: 50}},
	}
	call := func(id, tool string, nRes int) []Message {
		return []Message{{ID: "c-" + id, Role: RoleAssistant, Kind: KindToolCall, ToolUseID: id, Tool: tool, Tokens: 4, Content: tool + "(x)"},
			{ID: "r-" + id, Role: RoleTool, Kind: KindToolResult, ToolUseID: id, Tool: tool, Tokens: nRes, Content: "result " + id}}
	}
	req := func(id, time string, ms ...Message) Step {
		return Step{ID: id, Type: StepMessages, Time: time, ShowRequest: true, Messages: ms}
	}
	steps := []Step{
		{ID: "s1", Type: StepSessionStart, Time: "t0"},
		req("R1", "t1", append([]Message{msg("u1", RoleUser, 5, "question one")}, call("1", "read", 8)...)...),
		req("R2", "t2", call("2", "search", 6)...),
		req("R3", "t3", msg("a3", RoleAssistant, 3, "answer three")),
		{ID: "s2", Type: StepSessionStart, Time: "t4"},
		req("R4", "t5", append([]Message{msg("u4", RoleUser, 5, "question four")}, call("4", "read", 8)...)...),
	}
	return handLesson(t, 1000, steps, c, PromptCache{})
}

// TestLayoutPatterns: where each request's cache reuse ends under each
// pattern, computed by hand from the sizes above. A request's cache holds
// the request before it as sent and what the model wrote in answer.
func TestLayoutPatterns(t *testing.T) {
	l := layoutLesson(t)
	type row struct {
		key              string
		total, reused    int
		first, reason    string
		moved, callsLeft int
	}
	// Stable prefix: 100 + 20 + 30 + 10 + 5 (conditions) = 165.
	stable := []row{
		{"s1", 165, 0, "system", CacheCold, 0, 0},
		{"R1", 170, 0, "system", CacheCold, 0, 0},
		// cached: R1 + c-1: 170 + 4; r-1 (8) is new.
		{"R2", 182, 174, "r-1", CacheAppend, 0, 0},
		{"R3", 192, 186, "r-2", CacheAppend, 0, 0},
		// a new user: system, tools and marker (160) are shared; the
		// linux conditions differ.
		{"s2", 165, 160, "conditions", CacheConditions, 0, 0},
		{"R4", 170, 160, "conditions", CacheConditions, 0, 0},
	}
	tests := map[string][]row{
		PatternStable: stable,
		// The clock (2 words) after the system prompt changes every call:
		// only the system prompt (100) is reused.
		PatternTimestamp: {
			{"s1", 167, 0, "system", CacheCold, 0, 0},
			{"R1", 172, 0, "system", CacheCold, 0, 0},
			{"R2", 184, 100, "clock", CacheClock, 0, 0},
			{"R3", 194, 100, "clock", CacheClock, 0, 0},
			{"s2", 167, 100, "clock", CacheClock, 0, 0},
			{"R4", 172, 100, "clock", CacheClock, 0, 0},
		},
		// "Left: 10 $1.00", then "Left: 9 $0.98" ...: 3 words each;
		// user 2 starts at "Left: 5 $0.50".
		PatternUserState: {
			{"s1", 168, 0, "system", CacheCold, 0, 10},
			{"R1", 173, 0, "system", CacheCold, 0, 10},
			{"R2", 185, 100, "user-state", CacheUserState, 0, 9},
			{"R3", 195, 100, "user-state", CacheUserState, 0, 8},
			{"s2", 168, 100, "user-state", CacheUserState, 0, 5},
			{"R4", 173, 100, "user-state", CacheUserState, 0, 5},
		},
		// read is used at R1: at R2 it leads (both tools move); search is
		// used at R2: a tie, so the original order comes back at R3 (both
		// move again); no use after that.
		PatternToolOrder: {
			{"s1", 165, 0, "system", CacheCold, 0, 0},
			{"R1", 170, 0, "system", CacheCold, 0, 0},
			{"R2", 182, 100, "tool-b", CacheToolOrder, 2, 0},
			{"R3", 192, 100, "tool-a", CacheToolOrder, 2, 0},
			{"s2", 165, 160, "conditions", CacheConditions, 0, 0},
			{"R4", 170, 160, "conditions", CacheConditions, 0, 0},
		},
		// "USER: question one" is 3 words, "ASSISTANT: read(x)" 2,
		// "TOOL RESULT: result 1" 4, "ASSISTANT: search(x)" 2, "TOOL
		// RESULT: result 2" 4. The cache holds what the model wrote
		// (read(x), 4): its flattened text differs, so it is computed
		// again with the new result.
		PatternFlattened: {
			{"s1", 165, 0, "system", CacheCold, 0, 0},
			{"R1", 168, 0, "system", CacheCold, 0, 0},
			{"R2", 174, 168, "c-1", CacheFlattened, 0, 0},
			{"R3", 180, 174, "c-2", CacheFlattened, 0, 0},
			{"s2", 165, 160, "conditions", CacheConditions, 0, 0},
			{"R4", 168, 160, "conditions", CacheConditions, 0, 0},
		},
		// The conditions right after the system prompt: within a session
		// as stable; a new user reuses the system prompt only.
		PatternConditions: {
			{"s1", 165, 0, "system", CacheCold, 0, 0},
			{"R1", 170, 0, "system", CacheCold, 0, 0},
			{"R2", 182, 174, "r-1", CacheAppend, 0, 0},
			{"R3", 192, 186, "r-2", CacheAppend, 0, 0},
			{"s2", 165, 100, "conditions", CacheConditions, 0, 0},
			{"R4", 170, 100, "conditions", CacheConditions, 0, 0},
		},
	}
	for pattern, rows := range tests {
		t.Run(pattern, func(t *testing.T) {
			frames := runHand(t, l, "pattern", pattern)
			if len(frames) != len(rows) {
				t.Fatalf("%d frames; want %d", len(frames), len(rows))
			}
			for i, w := range rows {
				f := frames[i]
				c := f.Cache
				if f.TraceStep != w.key || f.Total != w.total || c.ReusedTokens != w.reused || c.FirstChanged != w.first || c.Reason != w.reason {
					t.Errorf("frame %d (%s): total %d, reused %d, first %s, %s; want %s: %d, %d, %s, %s", i+1, f.TraceStep, f.Total,
						c.ReusedTokens, c.FirstChanged, c.Reason, w.key, w.total, w.reused, w.first, w.reason)
				}
				if pattern == PatternToolOrder && fig(f, "moved") != w.moved {
					t.Errorf("frame %d: %d tools moved; want %d", i+1, fig(f, "moved"), w.moved)
				}
				if pattern == PatternUserState && fig(f, "calls-left") != w.callsLeft {
					t.Errorf("frame %d: %d calls left; want %d", i+1, fig(f, "calls-left"), w.callsLeft)
				}
			}
		})
	}
}

// TestLayoutKeys: two users so far, of two possible prefixes when the
// conditions come before the boundary; three binary conditions give 8.
func TestLayoutKeys(t *testing.T) {
	frames := runHand(t, layoutLesson(t), "pattern", PatternConditions)
	if f := frames[len(frames)-1]; fig(f, "keys-used") != 2 || fig(f, "keys-possible") != 2 {
		t.Errorf("keys: %d of %d; want 2 of 2", fig(f, "keys-used"), fig(f, "keys-possible"))
	}
	three := Layout{Conditions: []Condition{{"OS", []string{"macOS", "Linux"}}, {"Mode", []string{"normal", "debug"}}, {"Language", []string{"zh", "en"}}}}
	if got := three.Keys(); got != 8 {
		t.Errorf("Keys() of three binary conditions = %d; want 2×2×2 = 8", got)
	}
	stateFrames := runHand(t, layoutLesson(t), "pattern", PatternUserState)
	if b, _ := stateFrames[2].Block("user-state"); b == nil || b.Content != "Left: 9 $0.98" {
		t.Errorf("the state line at R2: %+v; want Left: 9 $0.98", b)
	}
}

// TestArms: a step of one arm runs only in it; the frames of trace steps
// carry the arm as a narration variant.
func TestArms(t *testing.T) {
	steps := []Step{
		{ID: "both", Type: StepMessages, Messages: []Message{msg("u", RoleUser, 10, "go"), msg("a1", RoleAssistant, 5, "ok")}},
		{ID: "only-a", Type: StepMessages, Messages: []Message{msg("a2", RoleAssistant, 7, "arm a")}},
		{ID: "only-b", Type: StepMessages, Messages: []Message{msg("b2", RoleAssistant, 9, "arm b"), msg("b3", RoleAssistant, 11, "more")}},
		{ID: "end", Type: StepMessages, Messages: []Message{msg("a9", RoleAssistant, 3, "end")}},
	}
	l := handLesson(t, 1000, steps, Arms{Param: "arm", Choices: []string{"a", "b"}, Steps: map[string][]string{"a": {"only-a"}, "b": {"only-b"}}}, SpendMeter{})
	for _, tc := range []struct {
		arm   string
		keys  []string
		total int
		calls int
	}{
		// a: 100 + 10 + 5 + 7 + 3 = 125 over 3 calls.
		{"a", []string{"both@a", "only-a@a", "end@a"}, 125, 3},
		// b: 100 + 10 + 5 + 9 + 11 + 3 = 138 over 4 calls.
		{"b", []string{"both@b", "only-b@b", "end@b"}, 138, 4},
	} {
		frames := runHand(t, l, "arm", tc.arm)
		var keys []string
		for _, f := range frames {
			keys = append(keys, f.Narration[0])
		}
		last := frames[len(frames)-1]
		if len(keys) != len(tc.keys) || keys[0] != tc.keys[0] || keys[1] != tc.keys[1] || keys[2] != tc.keys[2] ||
			last.Total != tc.total || last.Spend.Iteration != tc.calls {
			t.Errorf("arm %s: %v, total %d, %d calls; want %v, %d, %d", tc.arm, keys, last.Total, last.Spend.Iteration, tc.keys, tc.total, tc.calls)
		}
	}
}
