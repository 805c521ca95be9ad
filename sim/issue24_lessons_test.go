package sim_test

import (
	"slices"
	"strings"
	"testing"

	"ctxsim/sim"
)

// The figures of the four lessons of issue 24 that come from a source,
// and the outcomes their narration relies on. Expected values are typed
// from the sources (the seed, Claude Code's documentation, the bug report)
// or computed by hand from the lesson's sizes in the comments.

// request-anatomy: the seed's Vancouver example. Two model calls answer
// the question when both tools are asked for in one response (call_abc123
// and call_def456), three when they are asked for one at a time; the
// second request carries the whole history with both results.
func TestRequestAnatomy(t *testing.T) {
	l, tok := builtin(t, "request-anatomy")
	for _, tc := range []struct {
		tools string
		calls int // model calls before the follow-up
		req2  []string
	}{
		{"parallel", 2, []string{"system", "tool-time", "tool-weather", "question", "call-call_abc123", "result-call_abc123", "call-call_def456", "result-call_def456"}},
		{"serial", 3, []string{"system", "tool-time", "tool-weather", "question", "call-call_s01", "result-call_s01"}},
	} {
		t.Run(tc.tools, func(t *testing.T) {
			frames := mustRun(t, l, policyOf(t, l, "tools", tc.tools), tok)
			answer := findFrame(t, frames, "answer")
			if answer.Spend.Iteration != tc.calls {
				t.Errorf("the answer comes after %d model calls; want %d", answer.Spend.Iteration, tc.calls)
			}
			// The window after the first response is request 2 as sent.
			f := frames[2]
			if got := ids(f.Blocks()); !slices.Equal(got, tc.req2) {
				t.Errorf("request 2 = %v; want %v", got, tc.req2)
			}
			// Every request starts with the static prefix, unchanged.
			for _, f := range frames {
				if len(f.Blocks()) < 3 || f.Blocks()[0].ID != "system" || f.Blocks()[1].ID != "tool-time" || f.Blocks()[2].ID != "tool-weather" {
					t.Errorf("frame %d starts %v; want the system prompt and the two tool definitions", f.Step, ids(f.Blocks()))
				}
			}
			// Spend is every request as sent plus what the model wrote,
			// recomputed here from the frames: the request of each call
			// is the window before its output.
			last := frames[len(frames)-1]
			want := 0
			for _, f := range frames {
				if f.TraceStep == "start" || f.TraceStep == "question" {
					continue
				}
				if f.Kind == sim.FrameDecision {
					want += f.Total // the follow-up's request; its answer is not simulated
					continue
				}
				for _, b := range f.Blocks() {
					if b.New && b.Role == sim.RoleAssistant {
						// a model call: its request is the window before its
						// first new block, and it wrote its new assistant blocks
						want += b.Tokens
					}
				}
			}
			want += requestsBefore(frames)
			if last.Spend.Tokens != want {
				t.Errorf("spent %d; want %d (the requests as sent and what the model wrote)", last.Spend.Tokens, want)
			}
		})
	}
}

// requestsBefore sums, for every frame that holds new assistant blocks,
// the tokens in front of its first new block: the request of that call.
func requestsBefore(frames []sim.Frame) int {
	n := 0
	for _, f := range frames {
		before := 0
		for _, b := range f.Blocks() {
			if b.New && b.Role == sim.RoleAssistant {
				n += before
				break
			}
			before += b.Tokens
		}
	}
	return n
}

func findFrame(t *testing.T, frames []sim.Frame, step string) sim.Frame {
	t.Helper()
	for _, f := range frames {
		if f.TraceStep == step {
			return f
		}
	}
	t.Fatalf("no frame of step %s", step)
	return sim.Frame{}
}

// cache-antipatterns: what each layout does to each request's reuse.
func TestCacheAntipatterns(t *testing.T) {
	l, tok := builtin(t, "cache-antipatterns")
	runOf := func(pattern string) []sim.Frame { return mustRun(t, l, policyOf(t, l, "pattern", pattern), tok) }
	stable := runOf(sim.PatternStable)
	// The seed: three binary conditions make 2×2×2 = 8 cache keys.
	if g, _ := stable[0].Figure("keys-possible"); g.Value != 8 {
		t.Errorf("keys possible = %d; want 8", g.Value)
	}
	sys, _ := stable[0].Block("system")
	// Under every layout, a request that is not a session's first reuses
	// exactly: stable and conditions-before-boundary, the previous request
	// and what the model wrote; timestamp and user-settings, the system
	// prompt only; flattened, at least the whole previous request (a
	// byte-stable stream: the cache still hits).
	for _, pattern := range sim.Patterns {
		frames := runOf(pattern)
		prev := 0
		for i, f := range frames {
			if f.Kind != sim.FrameStep || strings.HasSuffix(f.TraceStep, "-start") {
				continue
			}
			first := strings.HasSuffix(f.TraceStep, "-1")
			reused := f.Cache.ReusedTokens
			switch {
			case first:
			case pattern == sim.PatternTimestamp || pattern == sim.PatternUserState:
				if reused != sys.Tokens {
					t.Errorf("%s frame %d: reused %d; want the system prompt only (%d)", pattern, i+1, reused, sys.Tokens)
				}
			case pattern == sim.PatternFlattened:
				if reused < prev || f.Cache.Reason != sim.CacheFlattened {
					t.Errorf("%s frame %d: reused %d (%s); want at least the previous request, %d", pattern, i+1, reused, f.Cache.Reason, prev)
				}
			case pattern == sim.PatternStable || pattern == sim.PatternConditions:
				if f.Cache.Reason != sim.CacheAppend || reused <= prev {
					t.Errorf("%s frame %d: reused %d (%s); want more than the previous request (%d)", pattern, i+1, reused, f.Cache.Reason, prev)
				}
			}
			prev = f.Total
		}
	}
	// A new user's first request: under stable, everything before the
	// boundary marker is reused; with the conditions before it, only the
	// system prompt.
	prefix := 0
	for _, b := range stable[0].Blocks() {
		prefix += b.Tokens
		if b.ID == "boundary" {
			break
		}
	}
	for _, tc := range []struct {
		pattern string
		reused  int
	}{{sim.PatternStable, prefix}, {sim.PatternConditions, sys.Tokens}} {
		for _, step := range []string{"b-1", "c-1"} {
			if f := findFrame(t, runOf(tc.pattern), step); f.Cache.ReusedTokens != tc.reused || f.Cache.Reason != sim.CacheConditions {
				t.Errorf("%s %s: reused %d (%s); want %d", tc.pattern, step, f.Cache.ReusedTokens, f.Cache.Reason, tc.reused)
			}
		}
	}
	conditions := runOf(sim.PatternConditions)
	if g, _ := conditions[len(conditions)-1].Figure("keys-used"); g.Value != 3 {
		t.Errorf("keys used after three users = %d; want 3", g.Value)
	}
}

// memory-after-compaction: the documentation's caps (5,000 tokens per
// skill, 25,000 in all), and what comes back under each policy.
func TestMemoryAfterCompaction(t *testing.T) {
	l, tok := builtin(t, "memory-after-compaction")
	const note = "- Payment tests need STRIPE_MOCK=1 (the sandbox key was removed)."
	for _, tc := range []struct {
		policy  string
		copyHas bool // the copy put back holds the note
		noCopy  bool
		recalls int  // failed test runs before the flag is back
		reread  bool // the next prompt brings the file from disk
	}{
		{sim.ReinjectDisk, true, false, 0, false},
		{sim.ReinjectLastPrompt, false, false, 1, true},
		{sim.ReinjectNone, false, true, 1, false},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			frames := mustRun(t, l, policyOf(t, l, "reinject", tc.policy), tok)
			back := findKey(t, frames, "restored")
			if g, _ := back.Figure("skill-cap"); g.Value != 5000 {
				t.Errorf("skill cap %d; want 5000 (the documentation)", g.Value)
			}
			if g, _ := back.Figure("skill-total"); g.Value != 25000 {
				t.Errorf("skill total %d; want 25000 (the documentation)", g.Value)
			}
			skill, ok := back.Block("r-skill-back-1")
			if !ok || skill.Tokens != 5000 {
				t.Errorf("the skill put back: %v; want its first 5,000 tokens", ids(back.Blocks()))
			}
			cp, ok := back.Block("instructions")
			switch {
			case tc.noCopy && ok:
				t.Errorf("a copy was put back: %q", cp.Content)
			case !tc.noCopy && (!ok || strings.Contains(cp.Content, note) != tc.copyHas):
				t.Errorf("copy put back %v, holds the note %v; want the note %v", ok, ok && strings.Contains(cp.Content, note), tc.copyHas)
			}
			if slices.ContainsFunc(back.Blocks(), func(b sim.Block) bool { return strings.HasPrefix(b.ID, "rule-payments") }) {
				t.Errorf("the path-scoped rule came back with the compaction: %v", ids(back.Blocks()))
			}
			rr := findFrame(t, frames, "read-refund")
			if !slices.ContainsFunc(rr.Blocks(), func(b sim.Block) bool { return b.ID == "rule-payments-2" }) {
				t.Errorf("reading refund.ts did not load the rule again: %v", ids(rr.Blocks()))
			}
			last := frames[len(frames)-1]
			if g, _ := last.Figure("recalls"); g.Value != tc.recalls {
				t.Errorf("%d failed runs before the flag came back; want %d", g.Value, tc.recalls)
			}
			_, reread := last.Figure("reread")
			if reread != tc.reread {
				t.Errorf("the last prompt re-read the file: %v; want %v", reread, tc.reread)
			}
		})
	}
}

// production-layers: which layer is needed when. The sizes are the
// lesson's (lesson.yaml); the sums are by hand:
//
//	layers 0: the request before call 10 is 41,200 > 40,000: refused.
//	  (3,150 task and prompt; rounds 1-9 add 3,250 2,650 9,550 2,860
//	  3,450 1,440 8,250 2,950 3,650.)
//	layers 1: the four logs become 300-token previews; the request
//	  before call 18 is 42,070.
//	layers 2: before call 14 the request is 33,190 > 30,000: the three
//	  grep and search pairs go (3,250 + 2,860 + 2,950): 24,130. Rounds
//	  14-18 add 2,240 350 3,850 2,440 1,250, and the paste (24,000)
//	  brings the request before call 19 to 58,260.
func TestProductionLayers(t *testing.T) {
	l, tok := builtin(t, "production-layers")
	for _, tc := range []struct {
		layers   string
		overflow int // the iteration refused; 0: the run ends with the report
		total    int // the refused request (when known by hand)
	}{
		{"0", 10, 41200},
		{"1", 18, 42070},
		{"2", 19, 58260},
		{"3", 19, 0},
		{"4", 23, 0},
		{"5", 0, 0},
	} {
		for _, breaker := range []string{"on", "off"} {
			frames := mustRun(t, l, policyOf(t, l, "layers", tc.layers, "breaker", breaker), tok)
			last := frames[len(frames)-1]
			switch {
			case tc.overflow == 0 && (last.TraceStep != "report" || last.Error != ""):
				t.Errorf("layers %s breaker %s: ends at %s %q; want the report", tc.layers, breaker, last.TraceStep, last.Error)
			case tc.overflow > 0 && (last.Kind != sim.FrameOverflow || last.Spend.Iteration != tc.overflow):
				t.Errorf("layers %s: ends with %s at iteration %d; want a refusal at %d", tc.layers, last.Kind, last.Spend.Iteration, tc.overflow)
			case tc.total > 0 && last.Total != tc.total:
				t.Errorf("layers %s: the refused request is %d; want %d", tc.layers, last.Total, tc.total)
			}
			if tc.layers == "2" {
				f := findKey(t, frames, "layer-2")
				if g, _ := f.Figure("after"); g.Value != 24130 || f.Spend.Iteration != 14 {
					t.Errorf("layer 2 before call %d leaves %d; want call 14, 24,130", f.Spend.Iteration, g.Value)
				}
			}
		}
	}
	// With all five layers the full compaction fails while the paste is in
	// the rounds the session memory keeps; the breaker (3 failures) stops
	// the attempts, and without it a fourth is made. Each attempt's request
	// is over the window: it failed because it did not fit.
	attempts := map[string]int{}
	for _, breaker := range []string{"on", "off"} {
		frames := mustRun(t, l, policyOf(t, l, "layers", "5", "breaker", breaker), tok)
		for _, f := range frames {
			if f.Narration[len(f.Narration)-1] == "layer-5-failed" {
				attempts[breaker]++
				if g, _ := f.Figure("request"); g.Value <= 40000 {
					t.Errorf("breaker %s: a failed attempt's request is %d, within the window", breaker, g.Value)
				}
			}
		}
		findKey(t, frames, "layer-5-memory")
	}
	if attempts["on"] != 3 || attempts["off"] != 4 {
		t.Errorf("failed attempts: on %d, off %d; want 3 and 4", attempts["on"], attempts["off"])
	}
}

// findKey is the first frame whose last narration key is key.
func findKey(t *testing.T, frames []sim.Frame, key string) sim.Frame {
	t.Helper()
	for _, f := range frames {
		if f.Narration[len(f.Narration)-1] == key {
			return f
		}
	}
	t.Fatalf("no frame %s", key)
	return sim.Frame{}
}
