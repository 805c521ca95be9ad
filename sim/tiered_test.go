package sim_test

// Expected values come from /work/shared/LESSONS.md (lesson
// `tiered-compaction`) and the source's chapter 37: Tier 3 under distance
// 8, Tier 2 from 8 to 19, Tier 1 from 20; model summaries over 2,000
// characters, at most 2 per pass counted on attempts; head + tail of 300
// characters, 75% head; floor tools file_read, grep, glob, directory_list
// and browser_* by prefix; first-touch classification.

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"ctxsim/sim"
)

// publicRules are the constants of the public snapshot the lesson cites.
var publicRules = sim.TierRules{
	KeepRecent: 8, Tier1Distance: 20, SemanticMinChars: 2000, ExcerptChars: 300, HeadPercent: 75,
	MaxSemanticPerPass: 2, ArgsChars: 100,
	FloorTools: []string{"file_read", "grep", "glob", "directory_list"}, FloorPrefixes: []string{"browser_"},
	SkipTools: []string{"think"},
}

// runeTokens counts one token per character: hand-built trajectories need
// sizes that are easy to reason about.
type runeTokens struct{}

func (runeTokens) Count(s string) int { return utf8.RuneCountInString(s) }

// tcall is a result of a hand-built trajectory.
type tcall struct {
	tool    string
	chars   int
	summary bool // give it a semantic summary
}

// text returns n characters of plausible log text that differ by seed.
func text(seed, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "line %d of result %d: ok\n", i, seed)
	}
	return b.String()[:n]
}

// tieredParams is a lesson with the tiered lesson's parameters, for
// building policies.
var tieredParams = handLesson(false)

func policy(strategy string, floor bool, summarizer, budget, pairs string) sim.Policy {
	p, err := tieredParams.PolicyOf(map[string]string{"strategy": strategy, "floor": onoff(floor),
		"summarizer": summarizer, "budget": budget, "pairs": pairs})
	if err != nil {
		panic(err)
	}
	return p
}

var defaultTiered = policy("tiered", true, "ok", "attempts", "kept")

// handLesson builds a trajectory of one call per step. With latchAtEnd the
// pressure line is set just below the final request, so the only pass runs
// after the last result and sees every result untouched; otherwise it is 1
// token and a pass runs after every result.
func handLesson(latchAtEnd bool, calls ...tcall) *sim.Lesson {
	tiered := sim.Tiered{Rules: publicRules, Pressure: 1, SummaryProvenance: sim.Text{"en": "Written for this test.", "ja": "テスト用。"}}
	trace := []sim.Step{{ID: "start", Type: sim.StepMessages, Messages: []sim.Message{{ID: "task", Role: sim.RoleUser, Content: "task"}}}}
	total := len("sys") + len("task")
	for i, c := range calls {
		id := fmt.Sprintf("toolu_%02d", i+1)
		args := fmt.Sprintf(`{"n":%d}`, i+1)
		call := sim.Message{ID: "call-" + id, Role: sim.RoleAssistant, Kind: sim.KindToolCall, Tool: c.tool, ToolUseID: id, Args: args,
			Content: fmt.Sprintf("%s(%s)", c.tool, args)}
		res := sim.Message{ID: "result-" + id, Role: sim.RoleTool, Kind: sim.KindToolResult, Tool: c.tool, ToolUseID: id, Content: text(i+1, c.chars)}
		if c.summary {
			res.Summary = fmt.Sprintf("[micro-compact] summary of result %d", i+1)
		}
		trace = append(trace, sim.Step{ID: fmt.Sprintf("it-%02d", i+1), Type: sim.StepMessages, Messages: []sim.Message{call, res}})
		total += utf8.RuneCountInString(call.Content) + c.chars
	}
	if latchAtEnd {
		tiered.Pressure = total - 1
	}
	trace = append(trace, sim.Step{ID: "end", Type: sim.StepMessages})
	l := &sim.Lesson{ID: "hand", Window: 100000, Counted: true, Trace: trace,
		System:     sim.Message{ID: "system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Content: "sys"},
		Mechanisms: []sim.Mechanism{sim.Pairs{}, tiered, sim.PromptCache{}}}
	if err := l.SetParamOrder([]string{"strategy", "floor", "summarizer", "budget", "pairs"}); err != nil {
		panic(err)
	}
	return l
}

func runT(t *testing.T, l *sim.Lesson, p sim.Policy, tok sim.Tokenizer) []sim.Frame {
	t.Helper()
	return mustRun(t, l, p, tok)
}

// tb is a tool result as the tiered tests read it: the block with the
// attributes the compressor gave it.
type tb struct {
	sim.Block
	Distance, Tier, Chars int
	Floor                 bool
}

func tieredBlock(b sim.Block) tb {
	floor := false
	for _, bd := range b.Badges {
		floor = floor || bd.Key == "floor"
	}
	return tb{Block: b, Distance: attr(b, "distance"), Tier: attr(b, "tier"), Chars: attr(b, "chars"), Floor: floor}
}

// counts are a frame's running counters.
type counts struct {
	TokensSaved, CompressionCalls, Rereads, RoundTrips int
	CacheInvalidations                                 map[int]int
}

func counters(f sim.Frame) *counts {
	if len(f.Counters) == 0 {
		return nil
	}
	c := &counts{CacheInvalidations: map[int]int{}}
	for _, x := range f.Counters {
		switch x.Name {
		case "tokens_saved":
			c.TokensSaved = x.Value
		case "compression_calls":
			c.CompressionCalls = x.Value
		case "rereads":
			c.Rereads = x.Value
		case "round_trips":
			c.RoundTrips = x.Value
		case "cache_invalidations":
			for k, v := range x.By {
				n, _ := strconv.Atoi(k)
				c.CacheInvalidations[n] = v
			}
		}
	}
	return c
}

// results returns the tool results of f, oldest first.
func results(f sim.Frame) []tb {
	var out []tb
	for _, b := range f.Blocks() {
		if b.Role == sim.RoleTool {
			out = append(out, tieredBlock(b))
		}
	}
	return out
}

// passFrame returns the first frame of kind pass.
func passFrame(t *testing.T, fs []sim.Frame) sim.Frame {
	t.Helper()
	for _, f := range fs {
		if f.Kind == sim.FramePass {
			return f
		}
	}
	t.Fatalf("no pass frame among %d frames", len(fs))
	return sim.Frame{}
}

func eventsOf(f sim.Frame, typ string) []sim.Event {
	var out []sim.Event
	for _, e := range f.Events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestTieredTierBoundaries(t *testing.T) {
	// 22 results of 1,000 characters of bash: no floor, under the 2,000
	// character line, over the 300 character cut. One pass sees them all.
	var calls []tcall
	for range 22 {
		calls = append(calls, tcall{tool: "bash", chars: 1000})
	}
	fs := runT(t, handLesson(true, calls...), defaultTiered, runeTokens{})
	rs := results(passFrame(t, fs))
	if len(rs) != 22 {
		t.Fatalf("pass frame has %d results; want 22", len(rs))
	}
	tests := []struct {
		distance int
		tier     int
		kind     sim.Kind
	}{
		{0, 0, sim.KindToolResult},
		{7, 0, sim.KindToolResult}, // the last of Tier 3
		{8, 2, sim.KindExcerpt},    // the first of Tier 2
		{19, 2, sim.KindExcerpt},   // the last of Tier 2
		{20, 1, sim.KindStub},      // the first of Tier 1
		{21, 1, sim.KindStub},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("distance %d", tc.distance), func(t *testing.T) {
			b := rs[len(rs)-1-tc.distance]
			if b.Distance != tc.distance || b.Tier != tc.tier || b.Kind != tc.kind {
				t.Errorf("result at distance %d: distance %d, tier %d, kind %s; want tier %d, kind %s",
					tc.distance, b.Distance, b.Tier, b.Kind, tc.tier, tc.kind)
			}
			if tc.tier == 0 && b.Content != text(len(rs)-tc.distance, 1000) {
				t.Errorf("Tier 3 result at distance %d was rewritten", tc.distance)
			}
		})
	}
	// One cache-compaction event per rewrite, tagged with its tier and the
	// message index of the rewritten result (the system prompt is not a
	// message, so index = block index - 1).
	f := passFrame(t, fs)
	evs := eventsOf(f, sim.EventCacheCompaction)
	if len(evs) != 14 {
		t.Errorf("pass emitted %d cache_compaction events; want 14 (12 Tier 2 + 2 Tier 1)", len(evs))
	}
	for _, e := range evs {
		if e.Index == nil || *e.Index+1 >= len(f.Blocks()) || f.Blocks()[*e.Index+1].ID != e.Block || attr(f.Blocks()[*e.Index+1], "tier") != e.Tier {
			t.Errorf("event %+v does not name the message index and tier of %s", e, e.Block)
		}
	}
	if got := counters(f).CacheInvalidations; got[1] != 2 || got[2] != 12 {
		t.Errorf("cache invalidations by tier = %v; want map[1:2 2:12]", got)
	}
}

func TestTieredSemanticEdge(t *testing.T) {
	// At distance 8..9: 2,000 characters is not over the line, 2,001 is.
	l := handLesson(true,
		tcall{tool: "bash", chars: 2000},
		tcall{tool: "bash", chars: 2001, summary: true},
		tcall{tool: "bash", chars: 10}, tcall{tool: "bash", chars: 10}, tcall{tool: "bash", chars: 10},
		tcall{tool: "bash", chars: 10}, tcall{tool: "bash", chars: 10}, tcall{tool: "bash", chars: 10},
		tcall{tool: "bash", chars: 10}, tcall{tool: "bash", chars: 10})
	rs := results(passFrame(t, runT(t, l, defaultTiered, runeTokens{})))
	if b := rs[0]; b.Kind != sim.KindExcerpt || b.Tier != 2 {
		t.Errorf("2,000 characters: kind %s tier %d; want an excerpt at Tier 2 (no model call)", b.Kind, b.Tier)
	}
	if b := rs[1]; b.Kind != sim.KindSummary || b.Content != "[micro-compact] summary of result 2" || b.Summary == nil {
		t.Errorf("2,001 characters: kind %s %q; want the semantic summary with its provenance", b.Kind, b.Content)
	}
	if rs[2].Distance != 7 || rs[2].Tier != 0 {
		t.Errorf("result at distance %d has tier %d; want distance 7, untouched", rs[2].Distance, rs[2].Tier)
	}
}

func TestTieredHeadTail(t *testing.T) {
	for _, tc := range []struct {
		name string
		text string
	}{
		{"ascii", text(1, 1000)},
		{"multibyte", strings.Repeat("セッション", 200)}, // never split inside a rune
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs := []rune(tc.text)
			got := sim.HeadTail(tc.text, 300, 75)
			head, tail := string(rs[:225]), string(rs[len(rs)-75:])
			want := head + fmt.Sprintf("\n\n[... truncated %d chars ...]\n\n", len(rs)-300) + tail
			if got != want {
				t.Errorf("HeadTail(%d chars, 300, 75) = %q; want 225 head + marker + 75 tail", len(rs), got)
			}
			if !utf8.ValidString(got) {
				t.Errorf("HeadTail split a rune")
			}
		})
	}
	if s := text(2, 300); sim.HeadTail(s, 300, 75) != s {
		t.Errorf("HeadTail changed a text of exactly 300 characters")
	}
	// Through the engine: the excerpt of a Tier 2 result is exactly that.
	l := handLesson(true, append([]tcall{{tool: "bash", chars: 1500}}, repeatCalls("bash", 8, 10)...)...)
	b := results(passFrame(t, runT(t, l, defaultTiered, runeTokens{})))[0]
	if want := sim.HeadTail(text(1, 1500), 300, 75); b.Content != want || b.Chars != utf8.RuneCountInString(want) {
		t.Errorf("Tier 2 excerpt = %q (%d chars); want HeadTail(result, 300, 75)", b.Content, b.Chars)
	}
}

func repeatCalls(tool string, n, chars int) []tcall {
	out := make([]tcall, n)
	for i := range out {
		out[i] = tcall{tool: tool, chars: chars}
	}
	return out
}

func TestTieredFloorByPrefix(t *testing.T) {
	tools := []string{"file_read", "grep", "glob", "directory_list", "browser_snapshot", "browser_click",
		"browser_tab_new_in_2027", "bash", "think", "browserish", "my_browser_tool"}
	var calls []tcall
	for _, tool := range tools {
		calls = append(calls, tcall{tool: tool, chars: 2500, summary: tool == "bash" || tool == "browserish" || tool == "my_browser_tool"})
	}
	calls = append(calls, repeatCalls("bash", 20, 10)...) // everything above is at distance 20 or more
	l := handLesson(true, calls...)
	for _, floor := range []bool{true, false} {
		t.Run(fmt.Sprintf("floor %v", floor), func(t *testing.T) {
			p := policy("tiered", floor, "ok", "attempts", "kept")
			rs := results(passFrame(t, runT(t, l, p, runeTokens{})))
			for i, tool := range tools {
				b := rs[i]
				isFloor := publicRules.IsFloorTool(tool)
				want := sim.KindStub
				if floor && isFloor {
					want = sim.KindExcerpt // never below Tier 2, and never summarized
				}
				if b.Distance < 20 || b.Kind != want || b.Floor != (floor && isFloor) {
					t.Errorf("%s at distance %d: kind %s, floor %v; want %s, floor %v", tool, b.Distance, b.Kind, b.Floor, want, floor && isFloor)
				}
			}
		})
	}
	// Floor tools are never summarized by a model, even over 2,000
	// characters in the Tier 2 band; neither is think.
	var band []tcall
	for _, tool := range []string{"file_read", "browser_snapshot", "think", "grep"} {
		band = append(band, tcall{tool: tool, chars: 5000})
	}
	band = append(band, repeatCalls("bash", 8, 10)...)
	f := passFrame(t, runT(t, handLesson(true, band...), defaultTiered, runeTokens{}))
	if n := len(eventsOf(f, sim.EventSemanticCall)); n != 0 {
		t.Errorf("%d semantic calls on floor and skip tools; want 0", n)
	}
	for _, b := range results(f)[:4] {
		if b.Kind != sim.KindExcerpt || b.Tier != 2 {
			t.Errorf("%s in the Tier 2 band: kind %s tier %d; want a head + tail excerpt", b.Tool, b.Kind, b.Tier)
		}
	}
}

func TestTieredSemanticBudget(t *testing.T) {
	// Five results a model may summarize, all in the Tier 2 band of one pass.
	calls := []tcall{}
	for range 5 {
		calls = append(calls, tcall{tool: "bash", chars: 3000, summary: true})
	}
	calls = append(calls, repeatCalls("bash", 8, 10)...)
	l := handLesson(true, calls...)
	tests := []struct {
		summarizer, budget string
		calls, summaries   int // in the one pass
		untouched          int // results of the five left as they were
	}{
		{"ok", "attempts", 2, 2, 0},
		{"ok", "successes", 2, 2, 0},
		{"broken", "attempts", 2, 0, 0},  // 2 failed attempts, then head + tail for all five
		{"broken", "successes", 5, 0, 5}, // failures do not count: it calls for every one, compresses none
	}
	for _, tc := range tests {
		t.Run(tc.summarizer+"/"+tc.budget, func(t *testing.T) {
			p := policy("tiered", true, tc.summarizer, tc.budget, "kept")
			f := passFrame(t, runT(t, l, p, runeTokens{}))
			if n := len(eventsOf(f, sim.EventSemanticCall)); n != tc.calls || counters(f).CompressionCalls != tc.calls {
				t.Errorf("pass made %d semantic calls (counter %d); want %d", n, counters(f).CompressionCalls, tc.calls)
			}
			summaries, untouched := 0, 0
			for _, b := range results(f)[:5] {
				switch b.Kind {
				case sim.KindSummary:
					summaries++
				case sim.KindToolResult:
					untouched++
				}
			}
			if summaries != tc.summaries || untouched != tc.untouched {
				t.Errorf("%d summaries, %d untouched; want %d, %d", summaries, untouched, tc.summaries, tc.untouched)
			}
		})
	}
	// The runaway: with a broken summarizer and a budget on successes, the
	// same results are called for on every pass until they leave the band.
	var many []tcall
	for range 4 {
		many = append(many, tcall{tool: "bash", chars: 3000, summary: true})
	}
	many = append(many, repeatCalls("bash", 12, 10)...)
	perPass := func(p sim.Policy) int {
		fs := runT(t, handLesson(false, many...), p, runeTokens{})
		return counters(fs[len(fs)-1]).CompressionCalls
	}
	attempts := perPass(policy("tiered", true, "broken", "attempts", "kept"))
	successes := perPass(policy("tiered", true, "broken", "successes", "kept"))
	if attempts != 4 || successes <= 4*4 {
		t.Errorf("broken summarizer: %d calls counting attempts (want 4: one failed try each), %d counting successes (want it to run away, > 16)", attempts, successes)
	}
}

func TestTieredFirstTouch(t *testing.T) {
	// A pass after every result: each result is first touched at distance
	// 8, at Tier 2, and keeps those bytes when it passes distance 20.
	l := handLesson(false, repeatCalls("bash", 26, 1200)...)
	fs := runT(t, l, defaultTiered, runeTokens{})
	var classified string
	touches := 0
	for _, f := range fs {
		for _, e := range eventsOf(f, sim.EventCacheCompaction) {
			if e.Block == "result-toolu_01" {
				touches++
			}
		}
		rs := results(f)
		if len(rs) == 0 {
			continue
		}
		b := rs[0]
		switch {
		case b.Distance < 8:
			if b.Tier != 0 {
				t.Errorf("frame %d: first result at distance %d has tier %d; want untouched", f.Step, b.Distance, b.Tier)
			}
		case b.Distance == 8:
			classified = b.Content
			fallthrough
		default:
			if b.Tier != 2 || b.Kind != sim.KindExcerpt || b.Content != classified {
				t.Errorf("frame %d: first result at distance %d: tier %d kind %s, bytes changed %v; want Tier 2 excerpt, same bytes",
					f.Step, b.Distance, b.Tier, b.Kind, b.Content != classified)
			}
		}
	}
	if last := results(fs[len(fs)-1])[0]; last.Distance < 20 {
		t.Fatalf("the first result only reached distance %d; the test needs 20 or more", last.Distance)
	}
	if touches != 1 {
		t.Errorf("the first result was rewritten %d times; want once", touches)
	}
}

func TestTieredStubFormat(t *testing.T) {
	args := `{"path":"internal/auth/session.go"}`
	if got, want := sim.Stub("file_read", args, 18200, 100), `[file_read called with {"path":"internal/auth/session.go"}] → [result: 18200 chars, snipped]`; got != want {
		t.Errorf("Stub = %q; want %q", got, want)
	}
	long := `{"command":"` + strings.Repeat("x", 200) + `"}`
	got := sim.Stub("bash", long, 5, 100)
	if want := "[bash called with " + long[:100] + "...] → [result: 5 chars, snipped]"; got != want {
		t.Errorf("Stub of long args = %q; want the first 100 characters and ...", got)
	}
}

func TestTieredAgeStripsEverything(t *testing.T) {
	calls := []tcall{{tool: "file_read", chars: 3000}, {tool: "browser_snapshot", chars: 3000}, {tool: "bash", chars: 3000, summary: true}}
	calls = append(calls, repeatCalls("bash", 8, 10)...)
	p := policy("age", true, "ok", "attempts", "kept") // the floor switch means nothing to age
	f := passFrame(t, runT(t, handLesson(true, calls...), p, runeTokens{}))
	for _, b := range results(f)[:3] {
		if b.Kind != sim.KindStub || b.Tier != 1 || b.Floor {
			t.Errorf("age: %s at distance %d: kind %s tier %d floor %v; want a stub", b.Tool, b.Distance, b.Kind, b.Tier, b.Floor)
		}
	}
	if counters(f).CompressionCalls != 0 {
		t.Errorf("age made %d model calls; want 0", counters(f).CompressionCalls)
	}
}

func realTiered(t *testing.T) (*sim.Lesson, sim.Tokenizer) {
	t.Helper()
	return builtin(t, "tiered-compaction")
}

const sessionGo = "internal/auth/session.go"

// readOf returns the result block of the first read of session.go.
func readOf(f sim.Frame) (tb, bool) {
	for _, b := range f.Blocks() {
		if b.Role == sim.RoleTool && b.ToolUseID == "toolu_03" {
			return tieredBlock(b), true
		}
	}
	return tb{}, false
}

func TestTieredLessonStory(t *testing.T) {
	l, tok := realTiered(t)
	fs := runT(t, l, defaultTiered, tok)
	// The trajectory: 30+ iterations, 35+ tool results of varied tools.
	last := fs[len(fs)-1]
	tools := map[string]bool{}
	for _, b := range results(last) {
		tools[b.Tool] = true
	}
	if n := len(results(last)); n < 35 {
		t.Errorf("%d tool results; want at least 35", n)
	}
	for _, tool := range []string{"file_read", "grep", "glob", "directory_list", "bash", "browser_snapshot", "think", "edit"} {
		if !tools[tool] {
			t.Errorf("no %s result in the trajectory (tools %v)", tool, tools)
		}
	}
	// Iteration 3: file_read of session.go, 412 lines, 18.2 KB.
	var read sim.Block
	for _, f := range fs {
		if b, ok := f.Block("result-toolu_03"); ok && read.ID == "" {
			read = *b
		}
	}
	call := traceMessage(t, l, "call-toolu_03")
	if read.Tool != "file_read" || call.Op == nil || call.Op.Path != sessionGo || strings.Count(read.Content, "\n") != 412 || utf8.RuneCountInString(read.Content) != 18200 {
		t.Fatalf("toolu_03 = %s of %+v, %d lines, %d chars; want file_read of %s, 412 lines, 18,200 chars",
			read.Tool, call.Op, strings.Count(read.Content, "\n"), utf8.RuneCountInString(read.Content), sessionGo)
	}
	// The first pass: after iteration 30, session.go 27 results from the tail.
	pass := passFrame(t, fs)
	if pass.TraceStep != "it-30" {
		t.Errorf("first pass at %s; want it-30", pass.TraceStep)
	}
	b, ok := readOf(pass)
	if !ok || b.Distance != 27 {
		t.Fatalf("at the first pass the session.go read is at distance %d (found %v); want 27", b.Distance, ok)
	}
	// Floor on: head + tail, not a stub, and no re-read ever.
	head := string([]rune(read.Content)[:225])
	if b.Kind != sim.KindExcerpt || b.Tier != 2 || !strings.HasPrefix(b.Content, head) || !b.Floor {
		t.Errorf("floor on: session.go read is %s at tier %d; want a head + tail excerpt kept by the floor", b.Kind, b.Tier)
	}
	if c := counters(last); c.Rereads != 0 || c.RoundTrips != 0 {
		t.Errorf("floor on: %d re-reads, %d extra round trips; want 0", c.Rereads, c.RoundTrips)
	}
	// The pass frame before it: the pressure line crossed.
	prev := fs[pass.Step-2]
	if prev.Total <= pressure(l) || len(eventsOf(prev, sim.EventPressure)) != 1 {
		t.Errorf("frame before the pass: total %d, pressure %d, events %v; want the line crossed", prev.Total, pressure(l), prev.Events)
	}
	if fs[pass.Step-3].Total > pressure(l) {
		t.Errorf("the line was already crossed before iteration 30")
	}
}

func TestTieredRereadCycle(t *testing.T) {
	l, tok := realTiered(t)
	tests := []struct {
		name    string
		p       sim.Policy
		rereads []string // trace steps of the re-read frames
	}{
		{"tiered floor on", defaultTiered, nil},
		// Floor off: the read becomes a stub and is read again; the re-read
		// is first touched at distance 8, so it lands in Tier 2 and keeps
		// content: no second re-read.
		{"tiered floor off", policy("tiered", false, "ok", "attempts", "kept"), []string{"it-31"}},
		// Age: the re-read turns into a stub 8 results later, and the cycle repeats.
		{"age floor off", policy("age", false, "ok", "attempts", "kept"), []string{"it-31", "it-39"}},
		{"age floor on", policy("age", true, "ok", "attempts", "kept"), []string{"it-31", "it-39"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs := runT(t, l, tc.p, tok)
			var got []string
			for i, f := range fs {
				if len(eventsOf(f, sim.EventReread)) == 0 {
					continue
				}
				if f.Kind != sim.FrameStep || f.Narration[len(f.Narration)-1] != "reread" {
					t.Errorf("re-read frame %d: kind %s, narration %v; want a step frame keyed reread", f.Step, f.Kind, f.Narration)
				}
				got = append(got, f.TraceStep)
				if !f.Decisive {
					t.Errorf("re-read frame %d is not decisive", f.Step)
				}
				// The read it replaces is a stub in the frame before.
				stubbed := false
				for _, b := range fs[i-1].Blocks() {
					if b.Tool == "file_read" && b.Kind == sim.KindStub && strings.Contains(b.Content, sessionGo) {
						stubbed = true
					}
				}
				if !stubbed {
					t.Errorf("re-read at frame %d, but no stub of %s in frame %d", f.Step, sessionGo, f.Step-1)
				}
				// The tokens come back: the whole file, as edited so far.
				rr := results(f)
				back := rr[len(rr)-1]
				if back.Tool != "file_read" || back.Tokens < 4000 || !strings.Contains(back.Content, "type Store interface") {
					t.Errorf("re-read result %s: %s, %d tokens; want session.go with the agent's edits, over 4,000 tokens", back.ID, back.Tool, back.Tokens)
				}
				if c := counters(f); c.Rereads != len(got) || c.RoundTrips != len(got) {
					t.Errorf("frame %d counters: %d re-reads, %d round trips; want %d each", f.Step, c.Rereads, c.RoundTrips, len(got))
				}
			}
			if !reflect.DeepEqual(got, tc.rereads) {
				t.Errorf("re-reads before %v; want %v", got, tc.rereads)
			}
			if c := counters(fs[len(fs)-1]); c.Rereads != len(tc.rereads) {
				t.Errorf("final re-read counter %d; want %d", c.Rereads, len(tc.rereads))
			}
		})
	}
}

var messagesIndex = regexp.MustCompile(`messages\.(\d+): .tool_use. ids were found without .tool_result. blocks immediately after: (toolu_\w+)`)

func TestTieredPairsAllPolicies(t *testing.T) {
	l, tok := realTiered(t)
	ps := l.PresetPolicies()
	if len(ps) != 32 {
		t.Errorf("PresetPolicies = %d; want 2×2×2×2×2 = 32", len(ps))
	}
	for _, p := range ps {
		name := p.String()
		t.Run(name, func(t *testing.T) {
			fs := runT(t, l, p, tok)
			if again := runT(t, l, p, tok); !reflect.DeepEqual(fs, again) {
				t.Fatalf("Run is not deterministic")
			}
			refused := 0
			for i, f := range fs {
				if f.Step != i+1 || len(f.Narration) == 0 || counters(f) == nil || (f.Cache == nil) != (f.Kind == sim.FrameRefused) {
					t.Errorf("frame %d: step %d, narration %v, counters %v", i+1, f.Step, f.Narration, counters(f))
				}
				sum := 0
				for _, b := range f.Blocks() {
					sum += b.Tokens
					if b.Tokens != tok.Count(b.Content) {
						t.Errorf("frame %d block %s: %d tokens; want its o200k_base count %d", f.Step, b.ID, b.Tokens, tok.Count(b.Content))
					}
				}
				if sum != f.Total {
					t.Errorf("frame %d: total %d; want the sum of its blocks %d", f.Step, f.Total, sum)
				}
				orphan := orphanIndex(f.Blocks())
				if f.Kind == sim.FrameRefused {
					refused++
					m := messagesIndex.FindStringSubmatch(f.Error)
					if m == nil || m[1] != fmt.Sprint(orphan) || i != len(fs)-1 {
						t.Errorf("refused frame %d: error %q, orphaned call at messages.%d, last frame %v", f.Step, f.Error, orphan, i == len(fs)-1)
					}
					continue
				}
				if orphan >= 0 && p.Get("pairs") == "kept" {
					t.Errorf("frame %d (%s): a tool_use at messages.%d has no tool_result after it", f.Step, f.Kind, orphan)
				}
			}
			if want := map[string]int{"kept": 0, "broken": 1}[p.Get("pairs")]; refused != want {
				t.Errorf("%d refused frames; want %d", refused, want)
			}
			// Counters agree with the events.
			inv, saved := map[int]int{}, 0
			for _, f := range fs {
				for _, e := range eventsOf(f, sim.EventCacheCompaction) {
					inv[e.Tier]++
					saved += e.Tokens
				}
			}
			c := counters(fs[len(fs)-1])
			if !reflect.DeepEqual(inv, c.CacheInvalidations) || saved != c.TokensSaved {
				t.Errorf("counters %v saved %d; events say %v saved %d", c.CacheInvalidations, c.TokensSaved, inv, saved)
			}
		})
	}
}

// orphanIndex returns the message index of the first tool_use not followed
// by its tool_result (or of a result without its call), or -1.
func orphanIndex(bs []sim.Block) int {
	for i, b := range bs {
		switch b.Kind {
		case sim.KindToolCall:
			if i+1 >= len(bs) || bs[i+1].Role != sim.RoleTool || bs[i+1].ToolUseID != b.ToolUseID {
				return i - 1
			}
		}
		if b.Role == sim.RoleTool && (i == 0 || bs[i-1].ToolUseID != b.ToolUseID || bs[i-1].Kind != sim.KindToolCall) {
			return i - 1
		}
	}
	return -1
}

func TestTieredLessonCounters(t *testing.T) {
	l, tok := realTiered(t)
	final := func(p sim.Policy) *counts {
		fs := runT(t, l, p, tok)
		return counters(fs[len(fs)-1])
	}
	def := final(defaultTiered)
	if def.CompressionCalls < 2 || def.TokensSaved <= 0 || def.CacheInvalidations[1] == 0 || def.CacheInvalidations[2] == 0 {
		t.Errorf("default counters %+v: want model calls, tokens saved and invalidations in Tier 1 and Tier 2", *def)
	}
	runaway := final(policy("tiered", true, "broken", "successes", "kept"))
	capped := final(policy("tiered", true, "broken", "attempts", "kept"))
	if runaway.CompressionCalls < 3*capped.CompressionCalls {
		t.Errorf("broken summarizer: %d calls counting successes, %d counting attempts; want the first to run away", runaway.CompressionCalls, capped.CompressionCalls)
	}
	if capped.CompressionCalls != def.CompressionCalls {
		t.Errorf("attempts budget: %d calls broken, %d ok; want the same number of attempts", capped.CompressionCalls, def.CompressionCalls)
	}
	age := final(policy("age", true, "ok", "attempts", "kept"))
	if age.CompressionCalls != 0 || age.CacheInvalidations[2] != 0 || age.Rereads != 2 {
		t.Errorf("age counters %+v; want no model calls, only Tier 1 rewrites, 2 re-reads", *age)
	}
}

// pressure is the tiered compressor's pressure line in a lesson.
func pressure(l *sim.Lesson) int {
	m, _ := l.Mechanism("tiered")
	return m.(sim.Tiered).Pressure
}

// TestTieredHeldLinear: a result's distance changes at every frame, yet a
// tiered (or age) replay keeps each block's copy once, not once per
// frame: each 60 results more add as many blocks as the 60 before them did
// (it kept one copy of each result per frame, growing with the square of
// the session). Every
// way of reading a frame shows each result its distance: the number of
// results after it.
func TestTieredHeldLinear(t *testing.T) {
	for _, strategy := range []string{"tiered", "age"} {
		held := map[int]int{}
		for _, n := range []int{60, 120, 180} {
			calls := make([]tcall, n)
			for i := range calls {
				calls[i] = tcall{tool: "bash", chars: 400}
			}
			l := handLesson(false, calls...)
			r, err := sim.Run(l, policy(strategy, true, "ok", "attempts", "kept"), runeTokens{})
			if err != nil {
				t.Fatal(err)
			}
			held[n] = r.Held()
			if blocks := 2 + 2*n; held[n] > 4*blocks {
				t.Errorf("%s, %d results (%d blocks, %d frames): the replay holds %d blocks; want at most %d", strategy, n, blocks, len(r.Frames), held[n], 4*blocks)
			}
			for _, f := range r.Frames {
				bs := f.Blocks()
				after := 0
				for i := len(bs) - 1; i >= 0; i-- {
					if bs[i].Role != sim.RoleTool {
						continue
					}
					if d := attr(bs[i], "distance"); d != after {
						t.Fatalf("%s, frame %d: %s at distance %d; want %d (results after it)", strategy, f.Step, bs[i].ID, d, after)
					}
					one, _ := f.Block(bs[i].ID)
					if !reflect.DeepEqual(*one, bs[i]) {
						t.Fatalf("%s, frame %d: Block(%s) = %+v; Blocks() shows %+v", strategy, f.Step, bs[i].ID, *one, bs[i])
					}
					after++
				}
				i := 0
				for b := range f.EachBlock {
					if !reflect.DeepEqual(*b, bs[i]) {
						t.Fatalf("%s, frame %d: EachBlock's block %d = %+v; Blocks() shows %+v", strategy, f.Step, i, *b, bs[i])
					}
					i++
				}
			}
		}
		if first, second := held[120]-held[60], held[180]-held[120]; second > first+4 {
			t.Errorf("%s: held %d, %d and %d blocks for 60, 120 and 180 results: 60 more added %d, then %d; want a line", strategy, held[60], held[120], held[180], first, second)
		}
	}
}
