package sim

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// TieredTrace is the tiered engine's trajectory: a tool-using agent whose
// old tool results a compressor rewrites by their distance from the tail.
// Every text is given in full (the loader generates or reads it), and sizes
// are the token counts of the texts, so the engine counts them.
type TieredTrace struct {
	System   string
	Task     string
	Pressure int // tokens: the first request above it starts the compressor
	Rules    TierRules
	Steps    []TieredStep
	// SummaryProvenance says where the semantic summaries' texts come from.
	SummaryProvenance Text
}

// TierRules are the compressor's constants. The lesson's values are one
// public snapshot of an implementation, not a contract.
type TierRules struct {
	KeepRecent         int      // Tier 3: results at a distance under this stay untouched
	Tier1Distance      int      // results first touched at this distance or more go to Tier 1
	SemanticMinChars   int      // Tier 2 results over this many characters get a model summary
	ExcerptChars       int      // Tier 2 head + tail keeps this many characters
	HeadPercent        int      // the head's share of ExcerptChars
	MaxSemanticPerPass int      // model summaries per pass (counted on attempts or successes)
	ArgsChars          int      // a Tier 1 stub keeps this many characters of the arguments
	FloorTools         []string // never below Tier 2 while the floor is on
	FloorPrefixes      []string // the same, by name prefix ("browser_")
	SkipTools          []string // besides floor tools: never summarized by a model, only cut
}

// IsFloorTool reports whether tool is on the floor list, by name or prefix.
func (r TierRules) IsFloorTool(tool string) bool {
	if slices.Contains(r.FloorTools, tool) {
		return true
	}
	for _, p := range r.FloorPrefixes {
		if strings.HasPrefix(tool, p) {
			return true
		}
	}
	return false
}

// Summarizable reports whether a model may summarize tool's results: floor
// tools and skip tools are only ever cut. The floor switch does not change
// this list: it is a separate exclusion.
func (r TierRules) Summarizable(tool string) bool {
	return !r.IsFloorTool(tool) && !slices.Contains(r.SkipTools, tool)
}

// TieredStep is one frame of the trajectory: the tool calls the agent makes
// in it (none for the opening and closing frames).
type TieredStep struct {
	ID    string // narration key and trace step id
	Calls []TieredCall
}

// TieredCall is one model call answered with a tool call, and its result.
type TieredCall struct {
	ID      string // tool_use id pairing the call with its result
	Tool    string
	Args    string // JSON arguments as sent
	Label   string // short label: tool and its main argument
	Result  string
	Summary string // the semantic summary a Tier 2 model call returns ("" when none may be made)
	Reads   string // for a file read: the path it returns
	// Needs is a file this call works on. When the latest read of it in the
	// window is a metadata stub, the agent re-reads it first: Reread is what
	// the read returns then (the file as edited so far), RereadArgs its
	// arguments.
	Needs      string
	Reread     string
	RereadArgs string
}

// Frame kinds and events of the tiered engine.
const (
	FrameTierPass FrameKind = "pass"    // the compressor's first pass, shown on its own
	FrameRefused  FrameKind = "refused" // the provider refused the request (broken pairs)

	EventPressure     = "pressure"      // the request crossed the pressure line: the compressor starts
	EventSemanticCall = "semantic_call" // a model call to summarize a result (Reason ok or failed)
	EventReread       = "reread"        // the agent re-ran a read (one extra round trip)
	EventRefused      = "refused"       // the provider refused the request (Reason: its error)
)

// ErrToolUseWithoutResult is the provider error of a request where a tool
// call is not followed by its result; the message index is filled in.
const ErrToolUseWithoutResult = "invalid_request_error: messages.%d: `tool_use` ids were found without `tool_result` blocks immediately after: %s. Each `tool_use` block must have a corresponding `tool_result` block in the next message."

// runTiered replays the trajectory. The compressor starts before the first
// model call whose request is above the pressure line and, from then on,
// runs before every model call. Each pass classifies the results it has
// not touched before by their distance from the tail, once.
func runTiered(l *Lesson, p Policy, tok Tokenizer) []Frame {
	tr := l.Tiered
	r := &tieredRun{p: p, tok: tok, tr: tr, rules: tr.Rules, reads: map[string]string{}, callArgs: map[string]string{},
		counters: Counters{CacheInvalidations: map[int]int{}}}
	sys := r.block("system", RoleSystem, KindPrompt, tr.System)
	sys.Label = Text{"en": "system prompt", "ja": "システムプロンプト"}
	task := r.block("task", RoleUser, KindText, tr.Task)
	task.Label = Text{"en": "task", "ja": "依頼"}
	r.blocks = []Block{sys, task}
	for _, st := range tr.Steps {
		r.step, r.added, r.stepTags = st.ID, 0, nil
		for _, c := range st.Calls {
			if !r.call(c) {
				return r.frames
			}
		}
		if len(st.Calls) == 0 || r.added > 0 {
			stale := r.staleRead
			f := r.emit(FrameStep, r.keysFor(st.ID, r.stepTags))
			f.Decisive = stale // a pass stripped a file read: the agent will have to read it again
		}
	}
	return r.frames
}

type tieredRun struct {
	p     Policy
	tok   Tokenizer
	tr    *TieredTrace
	rules TierRules

	blocks   []Block           // the request: system, task, then calls and results
	reads    map[string]string // result block id -> path, for file reads
	callArgs map[string]string // tool_use_id -> arguments: what a stub is written from
	latched  bool              // the compressor has started
	counters Counters
	cached   []Block // what the provider holds: the last request and its output
	prevIDs  map[string]bool
	frames   []Frame
	events   []Event

	step      string   // current trajectory step
	added     int      // calls added since the last frame
	stepTags  []string // narration variants of the current step ("after-reread")
	staleRead bool     // a pass since the last frame stubbed a file read
}

func (r *tieredRun) block(id string, role Role, kind Kind, text string) Block {
	return Block{ID: id, Role: role, Kind: kind, Content: text, Tokens: r.tok.Count(text), Chars: utf8.RuneCountInString(text)}
}

// call is one model call of the agent, answered with c. When c works on a
// file whose latest read is now a stub, the model cannot go on: it re-reads
// the file first, an extra round trip.
func (r *tieredRun) call(c TieredCall) bool {
	if !r.send() {
		return false
	}
	if c.Needs != "" && r.readIsStub(c.Needs) {
		r.counters.Rereads++
		r.counters.RoundTrips++
		n := r.counters.Rereads
		rc := TieredCall{ID: fmt.Sprintf("toolu_rr%d", n), Tool: "file_read", Args: c.RereadArgs,
			Label: "file_read " + c.Needs, Result: c.Reread, Reads: c.Needs}
		_, res := r.appendPair(rc, Text{"en": rc.Label + " (re-read)", "ja": rc.Label + "（再読込）"})
		r.event(Event{Type: EventReread, Block: res.ID, Tokens: res.Tokens})
		r.afterResult()
		var tags []string
		if n >= 2 {
			tags = append(tags, "cycle")
		}
		// A re-read is an agent step like any other (kind step), told
		// apart by its reread event and narration key.
		f := r.emit(FrameStep, r.keysFor("reread", tags))
		f.Decisive = true
		r.stepTags = append(r.stepTags, "after-reread")
		if !r.send() {
			return false
		}
	}
	r.appendPair(c, nil)
	r.afterResult()
	return true
}

// send sends the request. The provider refuses it when a tool call is not
// followed by its result; the run cannot go on.
func (r *tieredRun) send() bool {
	for i, b := range r.blocks {
		if b.Kind != KindToolCall {
			continue
		}
		if i+1 < len(r.blocks) && r.blocks[i+1].Role == RoleTool && r.blocks[i+1].ToolUseID == b.ToolUseID {
			continue
		}
		idx := i - 1 // messages.N: the system prompt is not a message
		msg := fmt.Sprintf(ErrToolUseWithoutResult, idx, b.ToolUseID)
		r.counters.RoundTrips++
		r.event(Event{Type: EventRefused, Reason: msg, Index: &idx, Block: b.ID})
		f := r.emit(FrameRefused, r.keysFor("refused", nil))
		f.Error, f.Decisive = msg, true
		f.Cache = nil // refused before anything was computed: no cache reading
		return false
	}
	return true
}

// appendPair adds the model's tool call and the tool's result.
func (r *tieredRun) appendPair(c TieredCall, label Text) (Block, Block) {
	if label == nil {
		label = Text{"en": c.Label, "ja": c.Label}
	}
	req := slices.Clone(r.blocks)
	a := r.block("call-"+c.ID, RoleAssistant, KindToolCall, fmt.Sprintf("%s(%s)", c.Tool, c.Args))
	a.Tool, a.ToolUseID, a.Label = c.Tool, c.ID, label
	t := r.block("result-"+c.ID, RoleTool, KindToolResult, c.Result)
	t.Tool, t.ToolUseID, t.Label = c.Tool, c.ID, label
	r.cached = append(req, a) // the provider keeps the request and what it generated
	r.blocks = append(r.blocks, a, t)
	r.callArgs[c.ID] = c.Args
	if c.Reads != "" {
		r.reads[t.ID] = c.Reads
	}
	r.added++
	r.event(Event{Type: EventToolCall, Block: a.ID, Tokens: a.Tokens + t.Tokens})
	return a, t
}

// afterResult runs before the next model call: the compressor starts at the
// first request above the pressure line, then passes before every call.
func (r *tieredRun) afterResult() {
	if !r.latched {
		if r.total() <= r.tr.Pressure {
			return
		}
		r.latched = true
		r.event(Event{Type: EventPressure, Tokens: r.total()})
		f := r.emit(FrameStep, r.keysFor(r.step, r.stepTags))
		f.Decisive = true
		r.pass()
		f = r.emit(FrameTierPass, r.keysFor("pass-1", nil))
		f.Decisive = true
		return
	}
	r.pass()
}

// pass is one compression pass over the results not touched before.
func (r *tieredRun) pass() {
	total := 0
	for _, b := range r.blocks {
		if b.Role == RoleTool {
			total++
		}
	}
	seen, removed, tries, wins := 0, 0, 0, 0
	out := make([]Block, 0, len(r.blocks))
	for i, b := range r.blocks {
		if b.Role != RoleTool {
			out = append(out, b)
			continue
		}
		d := total - 1 - seen
		seen++
		idx := i - 1 - removed // messages.N of this message in the request after the pass
		if d < r.rules.KeepRecent || b.Tier != 0 {
			out = append(out, b) // Tier 3, or classified before: its bytes never change again
			continue
		}
		floor := r.p.Floor && r.rules.IsFloorTool(b.Tool)
		if r.p.Strategy == "age" || (d >= r.rules.Tier1Distance && !floor) {
			if r.p.Pairs == "broken" {
				// The bug: the result is deleted while its call stays.
				removed++
				r.counters.TokensSaved += b.Tokens
				r.counters.CacheInvalidations[1]++
				r.event(Event{Type: EventCacheCompaction, Tier: 1, Index: &idx, Block: b.ID, Tokens: b.Tokens, Reason: "dropped"})
				continue
			}
			r.rewrite(&b, r.stub(b), KindStub, 1, idx)
			if r.reads[b.ID] != "" {
				r.staleRead = true
			}
			out = append(out, b)
			continue
		}
		r.tier2(&b, idx, &tries, &wins)
		out = append(out, b)
	}
	r.blocks = out
}

// tier2 compresses one result to Tier 2: a model summary when it is large
// and the budget allows, else head + tail.
func (r *tieredRun) tier2(b *Block, idx int, tries, wins *int) {
	chars := utf8.RuneCountInString(b.Content)
	if chars > r.rules.SemanticMinChars && r.rules.Summarizable(b.Tool) {
		budget := *tries
		if r.p.Budget == "successes" {
			budget = *wins
		}
		if budget < r.rules.MaxSemanticPerPass {
			*tries++
			r.counters.CompressionCalls++
			summary := r.summaryOf(b.ToolUseID)
			if r.p.Summarizer == "ok" && summary != "" {
				*wins++
				r.event(Event{Type: EventSemanticCall, Tier: 2, Block: b.ID, Reason: "ok"})
				r.rewrite(b, summary, KindSummary, 2, idx)
				b.Summary = &SummaryOf{Covers: []string{b.ID}, Provenance: r.tr.SummaryProvenance}
				return
			}
			r.event(Event{Type: EventSemanticCall, Tier: 2, Block: b.ID, Reason: "failed"})
			if r.p.Budget == "successes" {
				// The budget never sees a failure: the result stays as it
				// is, untouched, and the next pass calls the model again.
				return
			}
		}
	}
	if chars <= r.rules.ExcerptChars {
		b.Tier = 2 // classified; nothing to cut, so no bytes change
		return
	}
	r.rewrite(b, HeadTail(b.Content, r.rules.ExcerptChars, r.rules.HeadPercent), KindExcerpt, 2, idx)
}

func (r *tieredRun) summaryOf(toolUseID string) string {
	for _, st := range r.tr.Steps {
		for _, c := range st.Calls {
			if c.ID == toolUseID {
				return c.Summary
			}
		}
	}
	return ""
}

// rewrite replaces a result's content in place: the prompt cache is
// invalidated from that message on, so every rewrite is an event.
func (r *tieredRun) rewrite(b *Block, content string, kind Kind, tier, idx int) {
	before := b.Tokens
	b.Content, b.Kind, b.Tier = content, kind, tier
	b.Tokens, b.Chars = r.tok.Count(content), utf8.RuneCountInString(content)
	saved := before - b.Tokens
	r.counters.TokensSaved += saved
	r.counters.CacheInvalidations[tier]++
	r.event(Event{Type: EventCacheCompaction, Tier: tier, Index: &idx, Block: b.ID, Tokens: saved, Reason: string(kind)})
}

// stub is a Tier 1 result: what was called, with what, and how big the
// result was. Enough to know what happened, not to rebuild it.
func (r *tieredRun) stub(b Block) string {
	return Stub(b.Tool, r.callArgs[b.ToolUseID], utf8.RuneCountInString(b.Content), r.rules.ArgsChars)
}

// Stub writes the metadata a Tier 1 result is replaced with.
func Stub(tool, args string, chars, argsChars int) string {
	if a := []rune(args); len(a) > argsChars {
		args = string(a[:argsChars]) + "..."
	}
	return fmt.Sprintf("[%s called with %s] → [result: %d chars, snipped]", tool, args, chars)
}

// HeadTail cuts text to keep chars characters, percent of them from the head
// and the rest from the tail, with a marker of what was cut between them.
// Text within the limit is returned unchanged.
func HeadTail(text string, chars, percent int) string {
	rs := []rune(text)
	if len(rs) <= chars {
		return text
	}
	head := chars * percent / 100
	tail := chars - head
	return string(rs[:head]) + fmt.Sprintf("\n\n[... truncated %d chars ...]\n\n", len(rs)-chars) + string(rs[len(rs)-tail:])
}

// readIsStub reports whether the latest read of path in the window is a
// metadata stub: the model knows it read the file, not what was in it.
func (r *tieredRun) readIsStub(path string) bool {
	for i := len(r.blocks) - 1; i >= 0; i-- {
		if r.reads[r.blocks[i].ID] == path {
			return r.blocks[i].Kind == KindStub
		}
	}
	return false
}

func (r *tieredRun) total() int {
	n := 0
	for _, b := range r.blocks {
		n += b.Tokens
	}
	return n
}

func (r *tieredRun) event(e Event) { r.events = append(r.events, e) }

// tieredTags are the narration variants of a policy, most specific first.
func tieredTags(p Policy) []string {
	var t []string
	if p.Pairs == "broken" {
		t = append(t, "pairs-broken")
	}
	if p.Strategy == "age" {
		return append(t, "age")
	}
	if p.Summarizer == "broken" {
		if p.Budget == "successes" {
			t = append(t, "runaway")
		} else {
			t = append(t, "broken")
		}
	}
	if !p.Floor {
		t = append(t, "floor-off")
	}
	return t
}

// keysFor lists a frame's narration keys: base with the frame's own
// variants, then with the policy's, then base alone.
func (r *tieredRun) keysFor(base string, frameTags []string) []string {
	var keys []string
	for _, t := range frameTags {
		keys = append(keys, base+"@"+t)
	}
	for _, t := range tieredTags(r.p) {
		keys = append(keys, base+"@"+t)
	}
	return append(keys, base)
}

// emit appends a frame showing the request as it would be sent now.
func (r *tieredRun) emit(kind FrameKind, keys []string) *Frame {
	blocks := slices.Clone(r.blocks)
	results := 0
	for _, b := range blocks {
		if b.Role == RoleTool {
			results++
		}
	}
	ids := make(map[string]bool, len(blocks))
	seen, total := 0, 0
	for i := range blocks {
		b := &blocks[i]
		ids[b.ID] = true
		b.New = !r.prevIDs[b.ID]
		total += b.Tokens
		if b.Role == RoleTool {
			b.Distance = results - 1 - seen
			b.Floor = r.p.Strategy != "age" && r.p.Floor && r.rules.IsFloorTool(b.Tool)
			seen++
		}
	}
	cache := compareCache(r.cached, blocks, r.cached == nil)
	for i := range blocks {
		blocks[i].Cached = i < cache.ReusedBlocks
	}
	c := r.counters
	c.CacheInvalidations = maps.Clone(r.counters.CacheInvalidations)
	r.frames = append(r.frames, Frame{
		Step: len(r.frames) + 1, Kind: kind, TraceStep: r.step, Narration: keys,
		Blocks: blocks, Total: total, Events: r.events, Cache: &cache, Counters: &c,
	})
	r.prevIDs, r.events, r.added, r.staleRead = ids, nil, 0, false
	return &r.frames[len(r.frames)-1]
}
