package sim_test

// Expected values in this file come from /work/shared/LESSONS.md (lesson
// `context-memory`), not from the engine's output. Where a size is a lesson
// choice that LESSONS.md does not give, it is read from the loaded trace.

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/sim"
)

var (
	loadTok      = sync.OnceValues(tokens.New)
	loadBuiltins = sync.OnceValues(func() (map[string]*sim.Lesson, error) {
		tok, err := loadTok()
		if err != nil {
			return nil, err
		}
		ls, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
		if err != nil {
			return nil, err
		}
		out := map[string]*sim.Lesson{}
		for _, l := range ls {
			out[l.ID] = l.Lesson
		}
		return out, nil
	})
)

// builtin returns a built-in lesson and the real tokenizer, both loaded
// once per test binary.
func builtin(t *testing.T, id string) (*sim.Lesson, *tokens.Counter) {
	t.Helper()
	tok, err := loadTok()
	if err != nil {
		t.Fatalf("tokens.New: %v", err)
	}
	ls, err := loadBuiltins()
	if err != nil {
		t.Fatalf("scenarios.Load: %v", err)
	}
	l, ok := ls[id]
	if !ok {
		t.Fatalf("no built-in lesson %q", id)
	}
	return l, tok
}

// setup returns the built-in context-memory lesson and the real tokenizer.
func setup(t *testing.T) (*sim.Lesson, *tokens.Counter) {
	t.Helper()
	return builtin(t, "context-memory")
}

// Figures of LESSONS.md, section context-memory.
const (
	window       = 50000
	threshold92  = 46000 // 92% of 50,000
	threshold50  = 25000 // 50% of 50,000
	systemTok    = 3000
	memoryTok    = 1000 // injected MEMORY.md copy, session 1
	memory2Tok   = 1100 // session 2: the copy now holds the pnpm line
	taskTok      = 500
	ackTok       = 800
	readTok      = 300
	fileTok      = 19000
	diagTok      = 900
	bashTok      = 300
	logTok       = 22100
	replyTok     = 600  // no compaction: 47.9k -> 48.5k
	questionTok  = 500  // no compaction: 48.5k -> 49.0k
	clReadTok    = 300  // no compaction: 49.0k + read request + 4.2k changelog = 53.5k
	changelogTok = 4200 //
	summary92Tok = 800  // display budget of the 92% summary
	pnpmLine     = "Always pnpm, never npm"
	tailMessages = 2 // compaction keeps the 2 most recent messages verbatim
)

func mustRun(t testing.TB, l *sim.Lesson, p sim.Policy, tok sim.Tokenizer) []sim.Frame {
	t.Helper()
	r, err := sim.Run(l, p, tok)
	if err != nil {
		t.Fatalf("Run(%s): %v", p, err)
	}
	if len(r.Frames) == 0 {
		t.Fatalf("Run(%s) returned no frames", p)
	}
	return r.Frames
}

func ids(bs []sim.Block) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

func sumTokens(bs []sim.Block) int {
	n := 0
	for _, b := range bs {
		n += b.Tokens
	}
	return n
}

func block(f sim.Frame, id string) (sim.Block, bool) {
	for _, b := range f.Blocks() {
		if b.ID == id {
			return b, true
		}
	}
	return sim.Block{}, false
}

func lastAssistant(f sim.Frame) (sim.Block, bool) {
	for i := len(f.Blocks()) - 1; i >= 0; i-- {
		if f.Blocks()[i].Role == sim.RoleAssistant {
			return f.Blocks()[i], true
		}
	}
	return sim.Block{}, false
}

func events(frames []sim.Frame, typ string) []sim.Event {
	var out []sim.Event
	for _, f := range frames {
		for _, e := range f.Events {
			if e.Type == typ {
				out = append(out, e)
			}
		}
	}
	return out
}

func frameEvents(f sim.Frame, typ string) []sim.Event {
	return events([]sim.Frame{f}, typ)
}

// find returns the index of the first frame from start on of kind k and trace
// step step ("" matches any step), or -1.
func find(frames []sim.Frame, start int, k sim.FrameKind, step string) int {
	for i := start; i < len(frames); i++ {
		if frames[i].Kind == k && (step == "" || frames[i].TraceStep == step) {
			return i
		}
	}
	return -1
}

func kinds(frames []sim.Frame, k sim.FrameKind) []int {
	var out []int
	for i, f := range frames {
		if f.Kind == k {
			out = append(out, i)
		}
	}
	return out
}

// traceMessage returns the message id of the lesson's trace, looking in
// branches too.
func traceMessage(t *testing.T, l *sim.Lesson, id string) sim.Message {
	t.Helper()
	for _, st := range l.Trace {
		all := slices.Clone(st.Messages)
		if st.Branch != nil {
			all = append(append(all, st.Branch.Found...), st.Branch.Missing...)
		}
		for _, m := range all {
			if m.ID == id {
				return m
			}
		}
	}
	t.Fatalf("message %q is not in the trace", id)
	return sim.Message{}
}

func fact(t *testing.T, l *sim.Lesson, id string) sim.Fact {
	t.Helper()
	for _, f := range l.Facts {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("fact %q is not in the lesson", id)
	return sim.Fact{}
}

// checkFrame checks the kind, trace step and total of frames[i] (1-based n).
func checkFrame(t *testing.T, name string, frames []sim.Frame, n int, kind sim.FrameKind, step string, total int) {
	t.Helper()
	if n > len(frames) {
		t.Fatalf("Run(%s) has %d frames; want at least %d", name, len(frames), n)
	}
	f := frames[n-1]
	if f.Kind != kind || f.TraceStep != step {
		t.Errorf("Run(%s) frame %d = %s/%s; want %s/%s", name, n, f.Kind, f.TraceStep, kind, step)
	}
	if total >= 0 && f.Total != total {
		t.Errorf("Run(%s) frame %d total = %d; want %d", name, n, f.Total, total)
	}
}

func TestDefaultMode(t *testing.T) {
	l, tok := setup(t)
	for rec := 1; rec <= versions; rec++ {
		p := pol(t, l, true, true, 92, rec)
		name := p.String()
		t.Run(fmt.Sprintf("rec%d", rec), func(t *testing.T) {
			if got := l.DefaultPolicy().String(); got != "compaction-on.memory-on.threshold-92.rec-1" {
				t.Errorf("DefaultPolicy() = %s; want compaction on, memory on, 92%%, version 1", got)
			}
			frames := mustRun(t, l, p, tok)
			if g, _ := frames[0].Figure("threshold"); g.Value != threshold92 {
				t.Errorf("threshold at 92%% = %d tokens; want %d", g.Value, threshold92)
			}

			// Steps 1-4 of the table.
			checkFrame(t, name, frames, 1, sim.FrameStep, "start-1", systemTok+memoryTok)             // 4.0k
			checkFrame(t, name, frames, 2, sim.FrameStep, "task", systemTok+memoryTok+taskTok+ackTok) // 5.3k
			checkFrame(t, name, frames, 3, sim.FrameStep, "remember", 5300)
			before := 5300 + readTok + fileTok + diagTok + bashTok + logTok
			if before != 47900 {
				t.Fatalf("LESSONS arithmetic: %d; want 47900", before)
			}
			checkFrame(t, name, frames, 4, sim.FrameStep, "fill", 47900)

			// Step 1: the header.
			if got, want := ids(frames[0].Blocks()), []string{"system", "memory-1"}; !slices.Equal(got, want) {
				t.Errorf("Run(%s) frame 1 blocks = %v; want %v", name, got, want)
			}
			if b, _ := block(frames[0], "memory-1"); b.Tokens != memoryTok {
				t.Errorf("Run(%s) frame 1 memory copy = %d tokens; want %d", name, b.Tokens, memoryTok)
			}

			// Step 3: remember writes the file, not the injected copy.
			rem := frames[2]
			if !slices.ContainsFunc(memFile(rem), func(s string) bool { return strings.Contains(s, pnpmLine) }) {
				t.Errorf("Run(%s) frame 3 memory file = %q; want a line with %q", name, memFile(rem), pnpmLine)
			}
			if slices.ContainsFunc(memInjected(rem), func(s string) bool { return strings.Contains(s, pnpmLine) }) {
				t.Errorf("Run(%s) frame 3 injected copy = %q; must not hold %q (it is a snapshot)", name, memInjected(rem), pnpmLine)
			}
			if len(memNew(rem)) != 1 || !strings.Contains(memNew(rem)[0], pnpmLine) {
				t.Errorf("Run(%s) frame 3 MemoryNew = %q; want just the pnpm line", name, memNew(rem))
			}
			if b, _ := block(rem, "memory-1"); strings.Contains(b.Content, pnpmLine) || b.Tokens != memoryTok {
				t.Errorf("Run(%s) frame 3 memory-1 block = %d tokens %q; want the unchanged %d-token snapshot", name, b.Tokens, b.Content, memoryTok)
			}
			if n := len(frameEvents(rem, sim.EventMemoryWrite)); n != 1 {
				t.Errorf("Run(%s) frame 3 has %d memory_write events; want 1", name, n)
			}

			// Steps 5-8: one compaction, four frames.
			checkFrame(t, name, frames, 5, sim.FrameCrossed, "reply", 47900)
			checkFrame(t, name, frames, 6, sim.FrameSelected, "reply", 47900)
			checkFrame(t, name, frames, 7, sim.FrameSummary, "reply", 47900)
			after := systemTok + memoryTok + summary92Tok + bashTok + logTok
			if after != 27200 {
				t.Fatalf("LESSONS arithmetic: %d; want 27200", after)
			}
			checkFrame(t, name, frames, 8, sim.FrameReplaced, "reply", 27200)

			crossed := frames[4]
			if c := comp(crossed); c == nil || c.Threshold != threshold92 || c.Before != 47900 || c.Number != 1 {
				t.Errorf("Run(%s) frame 5 compaction = %+v; want number 1, before 47900, threshold %d", name, c, threshold92)
			}
			wantRange := []string{"m-task", "m-ack", "m-read", "m-file", "m-diag"}
			sel := frames[5]
			var selected []string
			for _, b := range sel.Blocks() {
				if b.Selected {
					selected = append(selected, b.ID)
				}
			}
			if !slices.Equal(selected, wantRange) {
				t.Errorf("Run(%s) frame 6 selected = %v; want %v", name, selected, wantRange)
			}
			for _, id := range []string{"system", "memory-1", "m-bash", "m-log"} {
				if b, ok := block(sel, id); !ok || b.Selected {
					t.Errorf("Run(%s) frame 6 block %s present=%v selected=%v; want present and not selected", name, id, ok, b.Selected)
				}
			}
			if c := comp(sel); c == nil || !slices.Equal(c.RangeIDs, wantRange) || c.Count != 5 ||
				c.RangeTokens != taskTok+ackTok+readTok+fileTok+diagTok {
				t.Errorf("Run(%s) frame 6 compaction = %+v; want range %v, 5 blocks, %d tokens", name, c, wantRange, taskTok+ackTok+readTok+fileTok+diagTok)
			}

			sum := frames[6]
			if sum.Pending == nil {
				t.Fatalf("Run(%s) frame 7 has no pending summary", name)
			}
			if sum.Pending.Tokens != summary92Tok || sum.Pending.Kind != sim.KindSummary || sum.Pending.ID != "s92" {
				t.Errorf("Run(%s) frame 7 pending = %s/%s %d tokens; want s92/summary %d tokens", name, sum.Pending.ID, sum.Pending.Kind, sum.Pending.Tokens, summary92Tok)
			}
			if s := sum.Pending.Summary; s == nil || s.Mechanical || s.Version != rec || !slices.Equal(s.Covers, wantRange) {
				t.Errorf("Run(%s) frame 7 pending summary = %+v; want recording %d covering %v", name, s, rec, wantRange)
			}

			rep := frames[7]
			if got, want := ids(rep.Blocks()), []string{"system", "memory-1", "s92", "m-bash", "m-log"}; !slices.Equal(got, want) {
				t.Errorf("Run(%s) frame 8 blocks = %v; want %v", name, got, want)
			}
			if c := comp(rep); c == nil || c.After != 27200 || c.StillAbove {
				t.Errorf("Run(%s) frame 8 compaction = %+v; want after 27200, not still above", name, c)
			}
			if ev := events(frames, sim.EventCompaction); len(ev) != 1 {
				t.Errorf("Run(%s) has %d compaction events; want 1", name, len(ev))
			} else if ev[0].Tokens != 47900-27200 {
				t.Errorf("Run(%s) compaction event tokens = %d; want %d", name, ev[0].Tokens, 47900-27200)
			}
			if n := len(frameEvents(rep, sim.EventCompaction)); n != 1 {
				t.Errorf("Run(%s) frame 8 has %d compaction events; want 1", name, n)
			}

			// The reply after compaction: the summary still holds the pnpm rule.
			checkFrame(t, name, frames, 9, sim.FrameStep, "reply", 27200+replyTok)
			if b, ok := block(frames[8], "m-reply"); !ok || !strings.Contains(b.Content, "pnpm add -D") {
				t.Errorf("Run(%s) frame 9 m-reply = %q; want the pnpm install", name, b.Content)
			}
			checkFrame(t, name, frames, 10, sim.FrameStep, "question", 27200+replyTok+questionTok)

			// Step 9: loss check. Recording 4 is the only 92% recording that
			// keeps the TODO (dropped in 4 of 5; recording 1, shown by default,
			// drops it).
			found := rec == 4
			lc := frames[10]
			wantKey := "loss-check@missing"
			branch := []string{"m-reread"}
			if found {
				wantKey = "loss-check@found"
				branch = []string{"m-cl-read", "m-changelog", "m-cl-answer"}
			}
			wantTotal := 27200 + replyTok + questionTok
			for _, id := range branch {
				wantTotal += traceMessage(t, l, id).Tokens
			}
			checkFrame(t, name, frames, 11, sim.FrameStep, "loss-check", wantTotal)
			if len(lc.Narration) == 0 || lc.Narration[0] != wantKey {
				t.Errorf("Run(%s) frame 11 narration = %v; want it to start with %s", name, lc.Narration, wantKey)
			}
			if lu := frameEvents(lc, sim.EventLookup); len(lu) != 1 || lu[0].Fact != "unicode-todo" || lu[0].Found == nil || *lu[0].Found != found {
				t.Errorf("Run(%s) frame 11 lookups = %+v; want one unicode-todo lookup found=%v", name, lu, found)
			}
			la, _ := lastAssistant(lc)
			if !found && !strings.Contains(la.Content, "re-read") {
				t.Errorf("Run(%s) frame 11 last assistant block %s = %q; want it to say a re-read is needed", name, la.ID, la.Content)
			}
			if found && !strings.Contains(la.Content, "surrogate") {
				t.Errorf("Run(%s) frame 11 last assistant block %s = %q; want it to answer from the TODO", name, la.ID, la.Content)
			}

			// Step 10: session boundary.
			checkFrame(t, name, frames, 12, sim.FrameStep, "boundary", 0)
			bd := frames[11]
			if len(bd.Blocks()) != 0 {
				t.Errorf("Run(%s) frame 12 blocks = %v; want none", name, ids(bd.Blocks()))
			}
			if !slices.ContainsFunc(memFile(bd), func(s string) bool { return strings.Contains(s, pnpmLine) }) {
				t.Errorf("Run(%s) frame 12 memory file = %q; want it kept with the pnpm line", name, memFile(bd))
			}

			// Step 11: session 2.
			checkFrame(t, name, frames, 13, sim.FrameStep, "start-2", systemTok+memory2Tok) // 4.1k
			s2 := frames[12]
			if got, want := ids(s2.Blocks()), []string{"system", "memory-2"}; !slices.Equal(got, want) {
				t.Errorf("Run(%s) frame 13 blocks = %v; want %v (no earlier history)", name, got, want)
			}
			if b, _ := block(s2, "memory-2"); b.Tokens != memory2Tok || !strings.Contains(b.Content, pnpmLine) {
				t.Errorf("Run(%s) frame 13 memory copy = %d tokens %q; want %d tokens with the pnpm line", name, b.Tokens, b.Content, memory2Tok)
			}
			if s2.Session != 2 || len(memNew(s2)) != 0 {
				t.Errorf("Run(%s) frame 13 session = %d, MemoryNew = %q; want session 2 and nothing new", name, s2.Session, memNew(s2))
			}

			// Step 12: retention.
			if len(frames) != 14 {
				t.Fatalf("Run(%s) has %d frames; want 14", name, len(frames))
			}
			ret := frames[13]
			if ret.TraceStep != "retention" {
				t.Errorf("Run(%s) frame 14 step = %s; want retention", name, ret.TraceStep)
			}
			if last := ret.Blocks()[len(ret.Blocks())-1]; !strings.Contains(last.Content, "pnpm add date-fns") {
				t.Errorf("Run(%s) frame 14 last block %s = %q; want `pnpm add date-fns`", name, last.ID, last.Content)
			}
			if lu := frameEvents(ret, sim.EventLookup); len(lu) != 1 || lu[0].Found == nil || !*lu[0].Found || lu[0].Block != "memory-2" {
				t.Errorf("Run(%s) frame 14 lookups = %+v; want the pnpm rule found in memory-2", name, lu)
			}
		})
	}
}

func TestNoCompaction(t *testing.T) {
	l, tok := setup(t)
	var policies []sim.Policy
	for _, th := range []int{92, 50} {
		for rec := 1; rec <= versions; rec++ {
			policies = append(policies, pol(t, l, false, true, th, rec))
		}
	}
	for _, p := range policies {
		name := p.String()
		t.Run(name, func(t *testing.T) {
			frames := mustRun(t, l, p, tok)

			// 47.9k -> 48.5k -> 49.0k -> 53.5k, in that order.
			want := []int{47900, 47900 + replyTok, 47900 + replyTok + questionTok, 47900 + replyTok + questionTok + clReadTok + changelogTok}
			if want[1] != 48500 || want[2] != 49000 || want[3] != 53500 {
				t.Fatalf("LESSONS arithmetic: %v", want)
			}
			j := 0
			for _, f := range frames {
				if j < len(want) && f.Total == want[j] {
					j++
				}
			}
			if j < len(want) {
				var got []int
				for _, f := range frames {
					got = append(got, f.Total)
				}
				t.Errorf("Run(%s) totals = %v; want %v in that order (missing %d)", name, got, want, want[j])
			}

			ov := kinds(frames, sim.FrameOverflow)
			if len(ov) != 1 {
				t.Fatalf("Run(%s) has %d overflow frames; want 1", name, len(ov))
			}
			i := ov[0]
			f := frames[i]
			if f.Error != "context_length_exceeded" {
				t.Errorf("Run(%s) frame %d error = %q; want context_length_exceeded", name, f.Step, f.Error)
			}
			if f.Total != 53500 {
				t.Errorf("Run(%s) frame %d total = %d; want 53500 (the refused request)", name, f.Step, f.Total)
			}
			if ev := frameEvents(f, sim.EventOverflow); len(ev) != 1 || ev[0].Reason != sim.ErrContextLengthExceeded || ev[0].Tokens != 53500 {
				t.Errorf("Run(%s) frame %d overflow events = %+v; want one with reason context_length_exceeded, 53500 tokens", name, f.Step, ev)
			}
			if len(events(frames, sim.EventOverflow)) != 1 {
				t.Errorf("Run(%s) has %d overflow events; want 1", name, len(events(frames, sim.EventOverflow)))
			}
			// The refused call produced nothing: the window is the one before it.
			if i == 0 {
				t.Fatalf("Run(%s) overflow is the first frame", name)
			}
			prev := frames[i-1]
			if prev.Total != 53500 || prev.TraceStep != "loss-check" {
				t.Errorf("Run(%s) frame %d = %s at %d; want the loss-check step at 53500 before the refusal", name, prev.Step, prev.TraceStep, prev.Total)
			}
			if !sameBlocks(f.Blocks(), prev.Blocks()) {
				t.Errorf("Run(%s) frame %d blocks = %v; want the previous frame's %v (no output from a refused call)", name, f.Step, ids(f.Blocks()), ids(prev.Blocks()))
			}
			if la, _ := lastAssistant(f); la.ID != "m-cl-read" {
				t.Errorf("Run(%s) frame %d last assistant block = %s; want m-cl-read (the answer call was refused)", name, f.Step, la.ID)
			}
			// With nothing compacted, the TODO is still in the window.
			if len(prev.Narration) == 0 || prev.Narration[0] != "loss-check@found" {
				t.Errorf("Run(%s) frame %d narration = %v; want loss-check@found", name, prev.Step, prev.Narration)
			}
			if n := len(events(frames, sim.EventCompaction)); n != 0 {
				t.Errorf("Run(%s) has %d compaction events; want 0", name, n)
			}
			if c := kinds(frames, sim.FrameCrossed); len(c) != 0 {
				t.Errorf("Run(%s) has crossed frames %v; want none", name, c)
			}
			// The session ends after the refusal; the next one starts at 4.1k.
			if i+1 >= len(frames) || frames[i+1].TraceStep != "boundary" || frames[i+1].Total != 0 {
				t.Errorf("Run(%s) frame after the overflow is not the empty session boundary", name)
			}
			if s := find(frames, i, sim.FrameStep, "start-2"); s < 0 || frames[s].Total != systemTok+memory2Tok {
				t.Errorf("Run(%s) session 2 does not start at %d", name, systemTok+memory2Tok)
			}
		})
	}
}

func sameBlocks(a, b []sim.Block) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Tokens != b[i].Tokens || a[i].Content != b[i].Content || a[i].Role != b[i].Role {
			return false
		}
	}
	return true
}

func TestNoMemory(t *testing.T) {
	l, tok := setup(t)
	for rec := 1; rec <= versions; rec++ {
		p := pol(t, l, true, false, 92, rec)
		name := p.String()
		t.Run(name, func(t *testing.T) {
			frames := mustRun(t, l, p, tok)
			checkFrame(t, name, frames, 1, sim.FrameStep, "start-1", systemTok)
			if got := ids(frames[0].Blocks()); !slices.Equal(got, []string{"system"}) {
				t.Errorf("Run(%s) frame 1 blocks = %v; want [system]", name, got)
			}
			r := find(frames, 0, sim.FrameStep, "remember")
			if r < 0 {
				t.Fatalf("Run(%s) has no remember frame", name)
			}
			if f := frames[r]; len(memFile(f)) != 0 || len(frameEvents(f, sim.EventMemoryWrite)) != 0 || f.Total != systemTok+taskTok+ackTok {
				t.Errorf("Run(%s) frame %d: memory file %q, %d memory_write events, total %d; want empty file, no write, %d",
					name, f.Step, memFile(f), len(frameEvents(f, sim.EventMemoryWrite)), f.Total, systemTok+taskTok+ackTok)
			}
			for _, f := range frames {
				if len(memFile(f)) != 0 || len(memInjected(f)) != 0 {
					t.Errorf("Run(%s) frame %d has memory file %q, injected %q; want none", name, f.Step, memFile(f), memInjected(f))
				}
			}
			// 47.9k minus the 1.0k memory copy is still over 46k: one compaction.
			if n := len(events(frames, sim.EventCompaction)); n != 1 {
				t.Errorf("Run(%s) has %d compaction events; want 1", name, n)
			}
			if c := find(frames, 0, sim.FrameReplaced, ""); c < 0 || frames[c].Total != 27200-memoryTok {
				t.Errorf("Run(%s) replaced frame missing or not at %d", name, 27200-memoryTok)
			}
			// Same-session install check: the summary keeps pnpm.
			rp := find(frames, 0, sim.FrameStep, "reply")
			if rp < 0 {
				t.Fatalf("Run(%s) has no reply frame", name)
			}
			if b, ok := block(frames[rp], "m-reply"); !ok || !strings.Contains(b.Content, "pnpm add -D") {
				t.Errorf("Run(%s) frame %d m-reply = %q; want `pnpm add -D`", name, frames[rp].Step, b.Content)
			}
			if lu := frameEvents(frames[rp], sim.EventLookup); len(lu) != 1 || lu[0].Found == nil || !*lu[0].Found || lu[0].Block != "s92" {
				t.Errorf("Run(%s) frame %d lookups = %+v; want pnpm-rule found in the summary s92", name, frames[rp].Step, lu)
			}
			// Next session: system prompt only, and the rule is gone.
			s2 := find(frames, 0, sim.FrameStep, "start-2")
			if s2 < 0 {
				t.Fatalf("Run(%s) has no start-2 frame", name)
			}
			if f := frames[s2]; f.Total != systemTok || !slices.Equal(ids(f.Blocks()), []string{"system"}) {
				t.Errorf("Run(%s) frame %d = %v at %d; want [system] at %d", name, f.Step, ids(f.Blocks()), f.Total, systemTok)
			}
			ret := frames[len(frames)-1]
			last := ret.Blocks()[len(ret.Blocks())-1]
			if ret.TraceStep != "retention" || !strings.Contains(last.Content, "npm install lodash") || strings.Contains(last.Content, "pnpm") {
				t.Errorf("Run(%s) frame %d (%s) last block = %q; want `npm install lodash` and no pnpm", name, ret.Step, ret.TraceStep, last.Content)
			}
		})
	}
}

func TestThreshold50(t *testing.T) {
	l, tok := setup(t)
	if got := l.Window * 50 / 100; got != threshold50 {
		t.Fatalf("threshold at 50%% = %d; want %d", got, threshold50)
	}
	// First check above 25k: before the test command (the diagnosis is the
	// last message): 5.3k + 0.3k + 19.0k + 0.9k = 25.5k. The check before the
	// diagnosis (24.6k) is below. The kept tail is the diagnosis and
	// src/parser.ts, and grows to keep the read request with its result
	// (a tool result never stays without its call), so the range is the
	// task and the acknowledgement: 25.5k - 1.3k + 0.4k = 24.6k.
	before1 := 5300 + readTok + fileTok + diagTok
	after1 := systemTok + memoryTok + 400 /* s50a, read from the card below */ + readTok + fileTok + diagTok
	before2 := after1 + bashTok + logTok
	after2 := systemTok + memoryTok + 800 /* s50b */ + bashTok + logTok
	for _, c := range cards(l) {
		switch {
		case c.ID == "s50a" && c.Tokens != 400, c.ID == "s50b" && c.Tokens != 800:
			t.Fatalf("card %s has %d tokens; the figures below assume 400/800", c.ID, c.Tokens)
		}
	}
	for rec := 1; rec <= versions; rec++ {
		p := pol(t, l, true, true, 50, rec)
		name := p.String()
		t.Run(name, func(t *testing.T) {
			frames := mustRun(t, l, p, tok)
			if n := len(events(frames, sim.EventCompaction)); n != 2 {
				t.Fatalf("Run(%s) has %d compaction events; want 2", name, n)
			}
			reps := kinds(frames, sim.FrameReplaced)
			if len(reps) != 2 {
				t.Fatalf("Run(%s) has %d replaced frames; want 2", name, len(reps))
			}
			tests := []struct {
				n             int
				step          string
				rng           []string
				summary       string
				before, after int
				stillAbove    bool
				resummarize   bool
			}{
				{1, "fill", []string{"m-task", "m-ack"}, "s50a", before1, after1, false, false},
				{2, "reply", []string{"s50a", "m-read", "m-file", "m-diag"}, "s50b", before2, after2, true, true},
			}
			for k, tc := range tests {
				rep := frames[reps[k]]
				c := comp(rep)
				if c == nil {
					t.Fatalf("Run(%s) frame %d has no compaction", name, rep.Step)
				}
				if c.Number != tc.n || rep.TraceStep != tc.step || !slices.Equal(c.RangeIDs, tc.rng) || c.SummaryBlock != tc.summary {
					t.Errorf("Run(%s) frame %d compaction %d at %s range %v summary %s; want %d at %s range %v summary %s",
						name, rep.Step, c.Number, rep.TraceStep, c.RangeIDs, c.SummaryBlock, tc.n, tc.step, tc.rng, tc.summary)
				}
				if c.Before != tc.before || c.After != tc.after || rep.Total != tc.after || c.Threshold != threshold50 {
					t.Errorf("Run(%s) frame %d compaction %d: before %d after %d total %d threshold %d; want %d, %d, %d, %d",
						name, rep.Step, tc.n, c.Before, c.After, rep.Total, c.Threshold, tc.before, tc.after, tc.after, threshold50)
				}
				if c.StillAbove != tc.stillAbove || c.Resummarize != tc.resummarize {
					t.Errorf("Run(%s) frame %d compaction %d: StillAbove=%v Resummarize=%v; want %v, %v",
						name, rep.Step, tc.n, c.StillAbove, c.Resummarize, tc.stillAbove, tc.resummarize)
				}
				if got := len(frameEvents(rep, sim.EventHeavyTail)); got != map[bool]int{true: 1, false: 0}[tc.stillAbove] {
					t.Errorf("Run(%s) frame %d has %d heavy_tail events; want heavy tail = %v", name, rep.Step, got, tc.stillAbove)
				}
			}
			if got, want := ids(frames[reps[1]].Blocks()), []string{"system", "memory-1", "s50b", "m-bash", "m-log"}; !slices.Equal(got, want) {
				t.Errorf("Run(%s) frame %d blocks = %v; want %v", name, frames[reps[1]].Step, got, want)
			}

			// Recordings 1, 3 and 5 of s50b keep the TODO (dropped in 2 of 5,
			// and the one shown by default keeps it).
			found := rec == 1 || rec == 3 || rec == 5
			wantKey := map[bool]string{true: "loss-check@found", false: "loss-check@missing"}[found]
			lc := find(frames, reps[1], sim.FrameStep, "loss-check")
			if lc < 0 {
				t.Fatalf("Run(%s) has no loss-check frame", name)
			}
			if f := frames[lc]; len(f.Narration) == 0 || f.Narration[0] != wantKey {
				t.Errorf("Run(%s) frame %d narration = %v; want it to start with %s", name, f.Step, f.Narration, wantKey)
			}
		})
	}
}

func TestRecordingStatistics(t *testing.T) {
	l, tok := setup(t)
	// texts[card][rec-1] as the engine puts them in the window.
	texts := map[string][]string{}
	provs := map[string][]sim.Text{}
	for _, th := range []int{92, 50} {
		for rec := 1; rec <= versions; rec++ {
			p := pol(t, l, true, true, th, rec)
			for _, f := range mustRun(t, l, p, tok) {
				if f.Kind != sim.FrameSummary || f.Pending == nil || f.Pending.Summary == nil {
					continue
				}
				s := f.Pending.Summary
				if s.Mechanical {
					t.Errorf("Run(%s) frame %d: summary is mechanical; want a card", p.String(), f.Step)
					continue
				}
				if s.Version != rec {
					t.Errorf("Run(%s) frame %d: summary recording %d; want %d", p.String(), f.Step, s.Version, rec)
				}
				if len(texts[s.Card]) == rec-1 {
					texts[s.Card] = append(texts[s.Card], f.Pending.Content)
					provs[s.Card] = append(provs[s.Card], s.Provenance)
				}
			}
		}
	}
	for _, id := range []string{"s92", "s50a", "s50b"} {
		if len(texts[id]) != versions {
			t.Fatalf("card %s shown with %d recordings; want %d", id, len(texts[id]), versions)
		}
	}
	todo := fact(t, l, "unicode-todo").Pattern
	pnpm := fact(t, l, "pnpm-rule").Pattern
	matches := func(card string) []int {
		var out []int
		for i, s := range texts[card] {
			if todo.MatchString(s) {
				out = append(out, i+1)
			}
		}
		return out
	}

	t.Run("s92 keeps the TODO in 1 of 5, not recording 1", func(t *testing.T) {
		if m := matches("s92"); len(m) != 1 || m[0] == 1 {
			t.Errorf("s92 recordings matching unicode-todo = %v; want exactly 1, not recording 1", m)
		}
	})
	t.Run("s50b keeps the TODO in 3 of 5, including recording 1", func(t *testing.T) {
		if m := matches("s50b"); len(m) != 3 || m[0] != 1 {
			t.Errorf("s50b recordings matching unicode-todo = %v; want exactly 3 including recording 1", m)
		}
	})
	t.Run("diagnosis summaries keep line 247 and the fix", func(t *testing.T) {
		for _, card := range []string{"s92", "s50b"} {
			for i, s := range texts[card] {
				for _, want := range []string{"line 247", "i < n"} {
					if !strings.Contains(s, want) {
						t.Errorf("%s recording %d lacks %q", card, i+1, want)
					}
				}
			}
		}
	})
	t.Run("every recording keeps the pnpm rule", func(t *testing.T) {
		for _, card := range []string{"s92", "s50a", "s50b"} {
			for i, s := range texts[card] {
				if !pnpm.MatchString(s) {
					t.Errorf("%s recording %d does not match the pnpm-rule pattern %s", card, i+1, pnpm)
				}
			}
		}
	})
	t.Run("s92 recording 1 is the summary of step 7", func(t *testing.T) {
		// Keeps line 247, the fix, the pnpm rule and the next step "test with
		// pnpm after the patch"; MAX_DEPTH and the Unicode TODO are not in it.
		s := texts["s92"][0]
		for _, want := range []string{"line 247", "i <= n", "i < n", "pnpm test", "after the patch"} {
			if !strings.Contains(s, want) {
				t.Errorf("s92 recording 1 lacks %q", want)
			}
		}
		if strings.Contains(s, "MAX_DEPTH") || todo.MatchString(s) {
			t.Errorf("s92 recording 1 mentions MAX_DEPTH or the Unicode TODO:\n%s", s)
		}
	})
	t.Run("s50a cannot know the file's contents", func(t *testing.T) {
		// Its range ends at the read request: the file had not been returned.
		for i, s := range texts["s50a"] {
			if strings.Contains(s, "247") || todo.MatchString(s) || strings.Contains(s, "MAX_DEPTH") || strings.Contains(s, "i < n") {
				t.Errorf("s50a recording %d mentions the contents of src/parser.ts: %q", i+1, s)
			}
		}
	})
	t.Run("provenance never claims a recording", func(t *testing.T) {
		for card, ps := range provs {
			for i, p := range ps {
				if !strings.Contains(p.In("en"), "Written for this lesson") || !strings.Contains(p.In("en"), "Not model output") {
					t.Errorf("%s recording %d provenance (en) = %q; want it to say it was written for this lesson, not model output", card, i+1, p.In("en"))
				}
				if p["ja"] == "" {
					t.Errorf("%s recording %d has no ja provenance", card, i+1)
				}
			}
		}
	})
}

// allPolicies is every preset policy plus thresholds 1, 10, 30, 75, 96, 100
// in every combination.
func allPolicies(t testing.TB, l *sim.Lesson) []sim.Policy {
	ps := l.PresetPolicies()
	for _, th := range []int{1, 10, 30, 75, 96, 100} {
		for _, c := range []bool{true, false} {
			for _, m := range []bool{true, false} {
				for rec := 1; rec <= versions; rec++ {
					ps = append(ps, pol(t, l, c, m, th, rec))
				}
			}
		}
	}
	return ps
}

func cardFor(l *sim.Lesson, rng []string) (sim.Card, bool) {
	for _, c := range cards(l) {
		if slices.Equal(c.Covers, rng) {
			return c, true
		}
	}
	return sim.Card{}, false
}

func TestInvariants(t *testing.T) {
	l, tok := setup(t)
	ps := allPolicies(t, l)
	if n := len(l.PresetPolicies()); n != 2*2*2*versions {
		t.Errorf("PresetPolicies = %d policies; want 2 (compaction) x 2 (memory) x 2 thresholds x %d recordings", n, versions)
	}
	mechanical := 0
	for _, p := range ps {
		name := p.String()
		t.Run(name, func(t *testing.T) {
			frames := mustRun(t, l, p, tok)
			again := mustRun(t, l, p, tok)
			if !reflect.DeepEqual(frames, again) {
				t.Errorf("Run(%s) is not deterministic", name)
			}
			header := 0 // blocks before the conversation in the current session
			var memCopy string
			for i, f := range frames {
				if f.Step != i+1 {
					t.Errorf("Run(%s) frame %d has Step %d", name, i+1, f.Step)
				}
				if len(f.Narration) == 0 || f.TraceStep == "" {
					t.Errorf("Run(%s) frame %d has narration %v, trace step %q", name, f.Step, f.Narration, f.TraceStep)
				}
				if f.Kind != sim.FrameOverflow {
					if sum := sumTokens(f.Blocks()); f.Total != sum {
						t.Errorf("Run(%s) frame %d total = %d; want the sum of its blocks %d", name, f.Step, f.Total, sum)
					}
				} else if f.Total <= l.Window || f.Error != sim.ErrContextLengthExceeded {
					t.Errorf("Run(%s) frame %d overflow at %d (error %q); want > %d and context_length_exceeded", name, f.Step, f.Total, f.Error, l.Window)
				}
				// Above the window is only possible between a tool result and
				// the next model call, which then compacts or is refused.
				if f.Total > l.Window {
					ok := f.Kind == sim.FrameOverflow || f.Kind == sim.FrameCrossed || f.Kind == sim.FrameSelected || f.Kind == sim.FrameSummary
					if !ok && i+1 < len(frames) {
						next := frames[i+1].Kind
						ok = next == sim.FrameOverflow || (next == sim.FrameCrossed && f.Kind == sim.FrameStep)
					}
					if !ok {
						t.Errorf("Run(%s) frame %d (%s) total = %d > window %d and no refusal or compaction follows", name, f.Step, f.Kind, f.Total, l.Window)
					}
				}

				// The injected copy is a snapshot: constant within a session.
				if len(f.Blocks()) > 0 && f.Blocks()[0].ID == "system" {
					h := 1
					if len(f.Blocks()) > 1 && f.Blocks()[1].Kind == sim.KindMemory {
						h = 2
						want := fmt.Sprintf("memory-%d", f.Session)
						if f.Blocks()[1].ID != want || !p.On("memory") {
							t.Errorf("Run(%s) frame %d memory block %s (memory %v); want %s only with memory on", name, f.Step, f.Blocks()[1].ID, p.On("memory"), want)
						}
					}
					if f.TraceStep == "start-1" || f.TraceStep == "start-2" {
						header = h
						if h == 2 {
							memCopy = f.Blocks()[1].Content
						}
					} else if h != header || (h == 2 && f.Blocks()[1].Content != memCopy) {
						t.Errorf("Run(%s) frame %d header changed within the session", name, f.Step)
					}
				}

				if f.Kind != sim.FrameReplaced {
					continue
				}
				// A compaction: frames i-3..i are crossed, selected, summary, replaced.
				if i < 3 || frames[i-3].Kind != sim.FrameCrossed || frames[i-2].Kind != sim.FrameSelected || frames[i-1].Kind != sim.FrameSummary {
					t.Errorf("Run(%s) frame %d: replaced frame not preceded by crossed, selected, summary", name, f.Step)
					continue
				}
				if !p.On("compaction") {
					t.Errorf("Run(%s) compacted with compaction off", name)
				}
				crossed, sel, sum := frames[i-3], frames[i-2], frames[i-1]
				c := comp(f)
				threshold := l.Window * p.Int("threshold") / 100
				if c == nil || comp(crossed) == nil || c.Before <= c.Threshold || crossed.Total <= threshold {
					t.Errorf("Run(%s) frame %d compacted at %d; the check is tokens > threshold (%d)", name, crossed.Step, crossed.Total, threshold)
					continue
				}
				before := sel.Blocks()
				// The kept tail: the last 2 messages, and the call of a kept
				// tool result (a result never stays without its call).
				kept := len(before) - tailMessages
				for kept > header && before[kept].Role == sim.RoleTool && before[kept-1].Kind == sim.KindToolCall {
					kept--
				}
				if kept <= header {
					t.Errorf("Run(%s) frame %d: compaction of a window with %d blocks", name, sel.Step, len(before))
					continue
				}
				var selected []string
				for k, b := range before {
					if b.Selected {
						selected = append(selected, b.ID)
						if k < header || k >= kept {
							t.Errorf("Run(%s) frame %d selects %s, in the header or the kept tail", name, sel.Step, b.ID)
						}
					}
				}
				if !slices.Equal(selected, c.RangeIDs) || !slices.Equal(selected, ids(before[header:kept])) {
					t.Errorf("Run(%s) frame %d selected %v, range %v; want everything between header and tail %v",
						name, sel.Step, selected, c.RangeIDs, ids(before[header:kept]))
				}
				if sum.Pending == nil {
					t.Errorf("Run(%s) frame %d has no pending summary", name, sum.Step)
					continue
				}
				want := append(append(slices.Clone(before[:header]), *sum.Pending), before[kept:]...)
				if !sameBlocks(f.Blocks(), want) {
					t.Errorf("Run(%s) frame %d blocks = %v; want header + summary + kept tail = %v", name, f.Step, ids(f.Blocks()), ids(want))
				}
				if c.After != f.Total || c.StillAbove != (f.Total > c.Threshold) {
					t.Errorf("Run(%s) frame %d: after %d, still above %v; total %d threshold %d", name, f.Step, c.After, c.StillAbove, f.Total, c.Threshold)
				}
				if c.StillAbove != (len(frameEvents(f, sim.EventHeavyTail)) == 1) {
					t.Errorf("Run(%s) frame %d: still above %v but heavy_tail events %d", name, f.Step, c.StillAbove, len(frameEvents(f, sim.EventHeavyTail)))
				}

				s := sum.Pending.Summary
				card, hasCard := cardFor(l, c.RangeIDs)
				switch {
				case s == nil:
					t.Errorf("Run(%s) frame %d: summary block without SummaryOf", name, sum.Step)
				case hasCard:
					if s.Mechanical || s.Card != card.ID || sum.Pending.Tokens != card.Tokens || sum.Pending.Content != card.Versions[p.Int("rec")-1].Content || s.ModelWritten {
						t.Errorf("Run(%s) frame %d: summary %+v; want version %d of card %s, written for the lesson", name, sum.Step, s, p.Int("rec"), card.ID)
					}
				default:
					mechanical++
					if !s.Mechanical || !c.Mechanical || !strings.HasPrefix(sum.Pending.Content, "[mechanical excerpt") {
						t.Errorf("Run(%s) frame %d: range %v has no card; want a mechanical excerpt, got mechanical=%v %q",
							name, sum.Step, c.RangeIDs, s.Mechanical, sum.Pending.Content)
					}
					if sum.Pending.Tokens != tok.Count(sum.Pending.Content) {
						t.Errorf("Run(%s) frame %d: excerpt tokens %d; want its o200k_base count %d", name, sum.Step, sum.Pending.Tokens, tok.Count(sum.Pending.Content))
					}
					if s.Version != 0 || s.Card != "" || s.ModelWritten || len(s.Provenance) != 0 || sum.Pending.Origin == nil || sum.Pending.Origin.Key != "mechanical" {
						t.Errorf("Run(%s) frame %d: mechanical excerpt %+v (origin %v) must be told apart from any summary text", name, sum.Step, s, sum.Pending.Origin)
					}
					if len(sum.Narration) == 0 || sum.Narration[0] != "summary@mechanical" {
						t.Errorf("Run(%s) frame %d narration %v; want summary@mechanical first", name, sum.Step, sum.Narration)
					}
				}
			}
			if !p.On("compaction") && len(events(frames, sim.EventCompaction)) != 0 {
				t.Errorf("Run(%s) has compaction events with compaction off", name)
			}
			if n, r := len(events(frames, sim.EventCompaction)), len(kinds(frames, sim.FrameReplaced)); n != r {
				t.Errorf("Run(%s) has %d compaction events and %d replaced frames", name, n, r)
			}
		})
	}
	t.Run("threshold 96 gives a mechanical excerpt", func(t *testing.T) {
		// 96% = 48,000: 47.9k passes the check before the reply, 49.0k does
		// not pass the one before the loss check, and the range then runs
		// past the diagnosis (no card covers it).
		p := pol(t, l, true, true, 96, 1)
		frames := mustRun(t, l, p, tok)
		s := find(frames, 0, sim.FrameSummary, "")
		if s < 0 || frames[s].TraceStep != "loss-check" || frames[s].Pending == nil || frames[s].Pending.Summary == nil || !frames[s].Pending.Summary.Mechanical {
			t.Fatalf("Run(%s): want one mechanical summary before the loss check", p.String())
		}
		if c := comp(frames[s]); c.Before != 49000 {
			t.Errorf("Run(%s) frame %d compaction before = %d; want 49000", p.String(), frames[s].Step, c.Before)
		}
	})
	if mechanical == 0 {
		t.Errorf("no policy produced a mechanical excerpt; threshold 96 should")
	}
}

// wordCounter is a stand-in tokenizer for hand-built lessons.
type wordCounter struct{}

func (wordCounter) Count(s string) int { return len(strings.Fields(s)) }

func msg(id string, role sim.Role, n int) sim.Message {
	return sim.Message{ID: id, Role: role, Tokens: n, Content: id + " says something"}
}

// tinyLesson is a one-session lesson with a systemTokens prompt, a window of
// window tokens, a 50% threshold, a 2-message tail and msgs as one step.
func tinyLesson(systemTokens, window int, msgs ...sim.Message) *sim.Lesson {
	written := sim.Text{"en": "Written for this test."}
	l := &sim.Lesson{
		ID: "tiny", Window: window,
		System: sim.Message{ID: "system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Tokens: systemTokens, Content: "system prompt"},
		Trace:  []sim.Step{{ID: "start", Type: sim.StepSessionStart}},
		Mechanisms: []sim.Mechanism{
			sim.Compaction{Threshold: 50, Presets: []int{50}, Tail: 2, Versions: 5, Cards: []sim.Card{{ID: "c1", Covers: []string{"u0"}, Tokens: 10,
				Versions: []sim.CardText{{"r1", written, false}, {"r2", written, false}, {"r3", written, false}, {"r4", written, false}, {"r5", written, false}}}}},
			sim.MemoryStore{Path: "MEMORY.md"},
		},
	}
	if err := l.SetParamOrder([]string{"compaction", "memory", "threshold", "rec"}); err != nil {
		panic(err)
	}
	if len(msgs) > 0 {
		l.Trace = append(l.Trace, sim.Step{ID: "talk", Type: sim.StepMessages, Messages: msgs})
	}
	return l
}

// call and result are a tool call and its result, paired by id.
func call(id string, n int) sim.Message {
	return sim.Message{ID: id, Role: sim.RoleAssistant, Kind: sim.KindToolCall, ToolUseID: id, Tokens: n, Content: id + "()"}
}

func result(id, callID string, n int) sim.Message {
	return sim.Message{ID: id, Role: sim.RoleTool, Kind: sim.KindToolResult, ToolUseID: callID, Tokens: n, Content: id + " output"}
}

func TestEdgeRules(t *testing.T) {
	const win = 1000 // threshold 50% = 500
	u, a := sim.RoleUser, sim.RoleAssistant
	tests := []struct {
		name       string
		compaction bool
		msgs       []sim.Message
		compacted  bool // a compaction ran (four frames, one compaction event)
		skipped    bool // a compaction_skipped event
		refused    bool // an overflow frame
		final      int  // total of the last frame
		lastIDs    []string
	}{
		{"equal to threshold does not compact", true,
			[]sim.Message{msg("u0", u, 100), msg("u1", u, 100), msg("u2", u, 200), msg("a3", a, 50)},
			false, false, false, 550, []string{"system", "u0", "u1", "u2", "a3"}},
		{"threshold+1 compacts", true,
			[]sim.Message{msg("u0", u, 100), msg("u1", u, 100), msg("u2", u, 201), msg("a3", a, 50)},
			true, false, false, 100 + 10 + 100 + 201 + 50, []string{"system", "c1", "u1", "u2", "a3"}},
		{"nothing between header and tail is skipped", true,
			[]sim.Message{msg("u1", u, 300), msg("u2", u, 200), msg("a3", a, 50)},
			false, true, false, 650, []string{"system", "u1", "u2", "a3"}},
		{"exactly the window is sent", false,
			[]sim.Message{msg("u1", u, 900), msg("a2", a, 10)},
			false, false, false, 1010, []string{"system", "u1", "a2"}},
		{"window+1 is refused", false,
			[]sim.Message{msg("u1", u, 901), msg("a2", a, 10)},
			false, false, true, 1001, []string{"system", "u1"}},
		{"user and tool messages never trigger a check", true,
			[]sim.Message{msg("u0", u, 100), call("k1", 10), result("t2", "k1", 590)},
			false, false, false, 800, []string{"system", "u0", "k1", "t2"}},
		{"a kept tool result keeps its call", true,
			[]sim.Message{msg("u0", u, 100), call("k1", 50), result("t2", "k1", 300), msg("u3", u, 100), msg("a4", a, 10)},
			true, false, false, 100 + 10 + 50 + 300 + 100 + 10, []string{"system", "c1", "k1", "t2", "u3", "a4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l := tinyLesson(100, win, tc.msgs...)
			p := pol(t, l, tc.compaction, false, 50, 1)
			frames := mustRun(t, l, p, wordCounter{})
			name := tc.name
			nComp := len(events(frames, sim.EventCompaction))
			nFrames := len(kinds(frames, sim.FrameCrossed)) + len(kinds(frames, sim.FrameSelected)) + len(kinds(frames, sim.FrameSummary)) + len(kinds(frames, sim.FrameReplaced))
			if tc.compacted && (nComp != 1 || nFrames != 4) || !tc.compacted && (nComp != 0 || nFrames != 0) {
				t.Errorf("Run(%s): %d compaction events, %d compaction frames; want compacted=%v", name, nComp, nFrames, tc.compacted)
			}
			if got := len(events(frames, sim.EventCompactionSkipped)) > 0; got != tc.skipped {
				t.Errorf("Run(%s): compaction_skipped = %v; want %v", name, got, tc.skipped)
			}
			if tc.compacted {
				c := comp(frames[find(frames, 0, sim.FrameReplaced, "")])
				crossed := frames[find(frames, 0, sim.FrameCrossed, "")]
				if c.Before != crossed.Total || c.Before <= 500 || c.Threshold != 500 || !slices.Equal(c.RangeIDs, []string{"u0"}) || c.SummaryBlock != "c1" {
					t.Errorf("Run(%s): compaction %+v; want before > threshold 500, range [u0], summary c1", name, c)
				}
				if tc.name == "threshold+1 compacts" && c.Before != 501 {
					t.Errorf("Run(%s): compaction before %d; want 501", name, c.Before)
				}
			}
			ov := kinds(frames, sim.FrameOverflow)
			if (len(ov) == 1) != tc.refused || len(ov) > 1 {
				t.Errorf("Run(%s): %d overflow frames; want refused=%v", name, len(ov), tc.refused)
			}
			if tc.refused {
				f := frames[ov[0]]
				if f.Error != sim.ErrContextLengthExceeded || len(frameEvents(f, sim.EventOverflow)) != 1 {
					t.Errorf("Run(%s) frame %d: error %q, events %+v; want context_length_exceeded and an overflow event", name, f.Step, f.Error, f.Events)
				}
			}
			last := frames[len(frames)-1]
			if last.Total != tc.final || !slices.Equal(ids(last.Blocks()), tc.lastIDs) {
				t.Errorf("Run(%s) frame %d total = %d blocks %v; want %d %v", name, last.Step, last.Total, ids(last.Blocks()), tc.final, tc.lastIDs)
			}
		})
	}
}

// TestCompactionNeverOverflows: with compaction on, no threshold from 1 to
// 100 lets this lesson's session reach the limit. When the breaker has
// stopped routine compaction, a request that would exceed the window is
// compacted reactively instead of refused; with compaction off, the same
// trace is refused (TestNoCompaction).
func TestCompactionNeverOverflows(t *testing.T) {
	l, tok := setup(t)
	for pct := 1; pct <= 100; pct++ {
		for _, mem := range []bool{true, false} {
			p := pol(t, l, true, mem, pct, 1)
			frames := mustRun(t, l, p, tok)
			if ev := events(frames, sim.EventOverflow); len(ev) != 0 {
				t.Errorf("Run(%s) has %d overflow events; want 0", p.String(), len(ev))
			}
			for _, f := range frames {
				if f.Kind == sim.FrameReplaced && comp(f).Emergency && f.Total > l.Window {
					t.Errorf("Run(%s) frame %d: reactive compaction left %d > window", p.String(), f.Step, f.Total)
				}
			}
		}
	}
	// Reactive compaction happens only where routine compaction stopped:
	// never at the presets.
	for _, pct := range []int{92, 50} {
		frames := mustRun(t, l, pol(t, l, true, true, pct, 1), tok)
		for _, f := range frames {
			if comp(f) != nil && comp(f).Emergency {
				t.Errorf("Run(%d%%) frame %d is a reactive compaction; want none at a preset", pct, f.Step)
			}
		}
	}
	frames := mustRun(t, l, pol(t, l, true, true, 10, 1), tok)
	n := 0
	for _, f := range frames {
		if f.Kind == sim.FrameCrossed && comp(f).Emergency {
			n++
			if f.Narration[0] != "crossed@emergency" {
				t.Errorf("Run(10%%) frame %d narration = %v; want crossed@emergency first", f.Step, f.Narration)
			}
		}
	}
	if n == 0 {
		t.Errorf("Run(10%%) has no reactive compaction; want one before the request that would exceed the window")
	}
}
