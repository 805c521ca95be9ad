package sim

import (
	"maps"
	"slices"
	"unicode/utf8"
)

// Tokenizer counts tokens of a text. Counted lessons size every block with
// it; the others use it only for text the harness makes itself (a
// mechanical excerpt).
type Tokenizer interface {
	Count(text string) int
}

// Run replays l's trace under p and returns its frames. It fails only when
// p is not a policy of l; a validated lesson always runs.
func Run(l *Lesson, p Policy, tok Tokenizer) (*Replay, error) { return run(l, p, tok, nil) }

// run is Run with a tap on what the provider sees (nil: none).
func run(l *Lesson, p Policy, tok Tokenizer, t tap) (*Replay, error) {
	if err := l.CheckPolicy(p); err != nil {
		return nil, err
	}
	h := replayWith(l, p, tok, t)
	r := &Replay{Frames: h.frames, Window: h.limit, store: h.fr.s}
	for _, m := range h.mechs {
		m.finish(h, r)
	}
	return r, nil
}

// replay runs the trace under p, a valid policy of l.
func replay(l *Lesson, p Policy, tok Tokenizer) *harness { return replayWith(l, p, tok, nil) }

// replayWith is replay with a tap on what the provider sees (nil: none).
func replayWith(l *Lesson, p Policy, tok Tokenizer, t tap) *harness {
	h := &harness{l: l, p: p, limit: windowOf(l, p), tok: tok, frames: make([]Frame, 0, len(l.Trace)+8),
		origins: map[string]*Msg{}, tap: t, fr: newFramer()}
	for _, m := range l.Mechanisms {
		h.mechs = append(h.mechs, m.start(h))
	}
	if len(l.Trace) > 0 && l.Trace[0].Type != StepSessionStart {
		h.open() // a trace without sessions is one session
	}
	for _, st := range l.Trace {
		h.step(st)
	}
	h.closeFrame()
	h.fr.s.latest = nil // the store is complete
	return h
}

// harness is the mutable state of one replay; it never outlives Run.
type harness struct {
	l     *Lesson
	p     Policy
	limit int // the provider's limit under p (the window's size)
	tok   Tokenizer
	mechs []hooks
	cache *cacheMeter // set by the prompt_cache mechanism
	tap   tap         // nil, or a test's view of the provider's side
	// counters are the running counters the mechanisms declared
	counters []Counter

	system   *Block  // the system prompt while a session is open
	injected []Block // blocks injected after it at session start (the memory copy)
	msgs     []Block // the conversation
	session  int
	stuck    bool // a request was refused: the session cannot go on

	frames []Frame
	fr     *framer // keeps the frames' blocks
	events []Event

	tags    []string        // scratch: the narration tags of the frame being emitted
	origins map[string]*Msg // one origin per key, shared by the blocks that have it
	spent   ledger          // what the run's model calls cost so far
	calib   *calibration    // the provider's sizes of a recorded session's blocks (the usage mechanism); nil: none

	// the current step
	cur      Step
	variants []string // narration variants of the step so far
	added    int      // messages added since the last frame
	shown    bool     // a part of this step was already shown
	calls    int      // model calls the step's messages make still to come
	next     *Message // the message the model call being made writes (nil outside a call)
}

func (h *harness) step(st Step) {
	h.cur, h.variants, h.added, h.shown, h.calls = st, nil, 0, false, callsIn(st.Messages)
	switch st.Type {
	case StepSessionStart:
		h.startSession()
	case StepSessionEnd:
		h.endSession()
	case StepRemember:
		for _, m := range h.mechs {
			if m.remember(h, st) {
				break
			}
		}
		h.emit(FrameStep, st.ID, frameCtx{})
	case StepCompact:
		if h.stuck || h.system == nil {
			return
		}
		for _, m := range h.mechs {
			m.compactMark(h, st)
		}
	case StepMessages, StepBranch:
		if h.stuck {
			h.skip()
			return
		}
		if h.delegated(st) {
			return
		}
		ok := h.recall(st.Needs)
		switch {
		case !ok:
		case st.Type == StepBranch:
			ok = h.branch(st.Branch)
		default:
			ok = h.messages(st.Messages)
		}
		if ok && st.Decision {
			ok = h.decide()
		}
		if ok {
			h.finishStep()
		}
	}
}

// open starts a session: an empty conversation after the system prompt.
func (h *harness) open() {
	h.session++
	h.stuck = false
	h.msgs, h.injected = nil, nil
	sys := h.blockOf(h.l.System)
	sys.ID, sys.Role = "system", RoleSystem
	if sys.Kind != KindUnseen { // a recorded session's file without its system prompt
		sys.Kind = KindPrompt
	}
	h.system = &sys
	for _, m := range h.mechs {
		m.sessionStart(h)
	}
}

func (h *harness) startSession() {
	h.open()
	h.event(Event{Type: EventSessionStart, Tokens: h.total()})
	h.emit(FrameStep, h.cur.ID, frameCtx{})
}

func (h *harness) endSession() {
	if h.stuck {
		h.variants = append(h.variants, "after-overflow")
	}
	for _, m := range h.mechs {
		m.sessionEnd(h)
	}
	h.event(Event{Type: EventSessionEnd, Tokens: h.total()})
	h.system, h.injected, h.msgs = nil, nil, nil
	h.stuck = false
	f := h.emit(FrameStep, h.cur.ID, frameCtx{})
	f.Decisive = true
}

// skip records a step that a refused request made impossible.
func (h *harness) skip() {
	if n := len(h.frames); n > 0 {
		last := &h.frames[n-1]
		last.Events = append(last.Events, Event{Type: EventSkipped, Reason: h.cur.ID})
	}
}

func (h *harness) messages(ms []Message) bool {
	for i := range ms {
		if !h.message(&ms[i]) {
			return false
		}
	}
	return true
}

// message adds m to the window. A model's message is a model call first.
// It reports false when the run of this session stopped.
func (h *harness) message(m *Message) bool {
	if m.Role == RoleAssistant {
		if !m.Continues {
			h.calls--
			h.next = m
			ok := h.call()
			h.next = nil
			if !ok {
				return false
			}
		}
		if m.Kind == KindToolCall {
			for _, x := range h.mechs {
				if !x.beforeTool(h, m) {
					return false
				}
			}
		}
	}
	h.add(m)
	return true
}

// add puts m into the window as a block; after a tool result, the
// mechanisms act before the next model call.
func (h *harness) add(m *Message) {
	b := h.put(m)
	if b.Role == RoleTool {
		h.settle()
	}
}

// put puts m into the window as a block and returns it.
func (h *harness) put(m *Message) Block {
	b := h.blockOf(*m)
	if m.Answer != nil {
		found := h.lookup(m.Answer.Fact)
		b.Content = m.Answer.Missing
		if found {
			b.Content = m.Answer.Found
		}
		b.Tokens = h.size(*m, b.Content)
		h.variants = append(h.variants, foundVariant(found))
	}
	if b.Role == RoleTool {
		for _, x := range h.mechs {
			x.result(h, &b, m)
		}
	}
	if b.Role == RoleAssistant && h.cache != nil {
		h.cache.wrote(&b) // the provider keeps what the model wrote after its request
	}
	if b.Role == RoleAssistant && h.tap != nil {
		h.tap.wrote(b)
	}
	if b.Role == RoleAssistant {
		h.spent.tokens += b.Tokens // what the model wrote
	}
	h.msgs = append(h.msgs, b)
	h.added++
	h.event(Event{Type: EventMessage, Block: b.ID, Tokens: b.Tokens})
	if n := len(h.msgs); b.Role == RoleTool && n >= 2 && h.msgs[n-2].Kind == KindToolCall && h.msgs[n-2].ToolUseID == b.ToolUseID {
		h.event(Event{Type: EventToolCall, Block: h.msgs[n-2].ID, Tokens: h.msgs[n-2].Tokens + b.Tokens})
	}
	for _, x := range h.mechs {
		x.entered(h, &h.msgs[len(h.msgs)-1])
	}
	return b
}

// callOf returns the call a tool result answers: the block just before it.
func (h *harness) callOf(b *Block) *Block {
	if n := len(h.msgs); n > 0 && h.msgs[n-1].Kind == KindToolCall && h.msgs[n-1].ToolUseID == b.ToolUseID {
		return &h.msgs[n-1]
	}
	return nil
}

// settle runs the mechanisms that act after a tool result.
func (h *harness) settle() {
	for _, x := range h.mechs {
		x.afterResult(h)
	}
}

// declare adds running counters that frames report, in order; a counter
// declared twice keeps its first place.
func (h *harness) declare(names ...string) {
	for _, n := range names {
		if !slices.ContainsFunc(h.counters, func(c Counter) bool { return c.Name == n }) {
			h.counters = append(h.counters, Counter{Name: n})
		}
	}
}

// declareBy declares a counter that is also split (by tier), written
// under byName.
func (h *harness) declareBy(name, byName string) {
	h.declare(name)
	for i := range h.counters {
		if h.counters[i].Name == name {
			h.counters[i].ByName = byName
			if h.counters[i].By == nil {
				h.counters[i].By = map[string]int{}
			}
		}
	}
}

// bump adds n to a declared counter.
func (h *harness) bump(name string, n int) {
	for i := range h.counters {
		if h.counters[i].Name == name {
			h.counters[i].Value += n
		}
	}
}

// bumpBy adds n to a counter and to its split by.
func (h *harness) bumpBy(name, by string, n int) {
	for i := range h.counters {
		if c := &h.counters[i]; c.Name == name {
			c.Value += n
			if c.By == nil {
				c.By = map[string]int{}
			}
			c.By[by] += n
		}
	}
}

// branch runs the model call that starts a branch step, then follows the
// messages the fact lookup selects.
func (h *harness) branch(br *Branch) bool {
	if !h.call() {
		return false
	}
	found := h.lookup(br.Fact)
	h.variants = append(h.variants, foundVariant(found))
	ms := br.Missing
	if found {
		ms = br.Found
	}
	for i := range ms {
		if i == 0 { // its call was made above
			h.add(&ms[i])
			continue
		}
		if !h.message(&ms[i]) {
			return false
		}
	}
	return true
}

// decide is a model call whose output the lesson does not simulate.
func (h *harness) decide() bool {
	return h.callAs(FrameDecision)
}

func foundVariant(found bool) string {
	if found {
		return "found"
	}
	return "missing"
}

// lookup reports whether fact is in the window now, and records the lookup.
func (h *harness) lookup(id string) bool {
	var fact Fact
	for _, f := range h.l.Facts {
		if f.ID == id {
			fact = f
		}
	}
	found, where := false, ""
	h.each(func(b *Block) bool {
		if h.l.Holds(fact, b.Content) {
			found, where = true, b.ID
		}
		return !found
	})
	h.event(Event{Type: EventLookup, Fact: id, Found: &found, Block: where})
	return found
}

// call is a model call: the mechanisms prepare the request, then the
// provider checks it. It reports false when the provider refused it.
func (h *harness) call() bool { return h.callAs(FrameStep) }

func (h *harness) callAs(kind FrameKind) bool {
	h.spent.calls++
	for _, m := range h.mechs {
		m.beforeCall(h)
	}
	if !h.send() {
		return false
	}
	h.sent()
	if kind == FrameDecision {
		h.event(Event{Type: EventDecision})
	}
	shown := -1 // the frame that shows the request
	if h.cur.ShowRequest && (!h.cur.ShowLast || h.calls <= 0) {
		f := h.emit(kind, h.cur.ID, frameCtx{finish: true, request: true})
		shown = f.Step - 1
		if kind == FrameDecision {
			// The lesson's prose for the moment the arms differ (what
			// models did here), when it has one.
			f.Panels = append(f.Panels, Panel{ID: "decision", Tone: "ok", Section: "panel:decision"})
			f.Decisive = true
		}
		h.shown, h.added = true, 0
	}
	if h.cache != nil {
		// The provider caches the request it accepted; a frame showing it
		// was compared with the one before.
		h.cache.request(h)
	}
	if h.tap != nil {
		h.tap.request(h.window(), shown)
	}
	return true
}

// tap sees the provider's side of a replay as it happens: each request the
// provider accepted, as sent, with the index of the frame that shows it
// (-1: none; that frame was emitted just before); each block the model
// wrote in answer; each frame as it is emitted (its index); each frame's
// blocks as its mechanisms left them, just before the frame is closed.
// Tests model the provider with it, apart from the harness's own meters.
type tap interface {
	request(req []Block, shown int)
	wrote(b Block)
	frame(i int)
	closing(i int, bs []Block)
}

// send is the provider's check of the request: broken tool pairs, or a
// request above the window. A refused request stops the session.
func (h *harness) send() bool {
	ref := checkPairs(h.msgs, h.headerMessages())
	if ref == nil && h.total() > h.limit {
		t := h.total()
		ref = &refusal{kind: FrameOverflow, base: "overflow", err: ErrContextLengthExceeded,
			event: Event{Type: EventOverflow, Tokens: t, Reason: ErrContextLengthExceeded}}
	}
	if ref == nil {
		return true
	}
	h.showPart()
	h.stuck = true
	h.event(ref.event)
	for _, m := range h.mechs {
		m.refused(h)
	}
	f := h.emit(ref.kind, ref.base, frameCtx{own: ref.kind == FrameOverflow})
	f.Error, f.Decisive, f.Cache = ref.err, true, nil
	return false
}

// finishStep shows the step, unless a part of it was shown already and
// nothing was added since (or its frame was its request).
func (h *harness) finishStep() {
	if h.cur.ShowRequest || (h.added == 0 && h.shown) {
		return
	}
	if h.shown {
		h.variants = append(h.variants, "continued")
	}
	h.emit(FrameStep, h.cur.ID, frameCtx{finish: true})
}

// showPart shows the part of the current step added so far, before a
// mechanism's frames or a refusal interrupt it.
func (h *harness) showPart() {
	if h.added == 0 {
		return
	}
	vs := h.variants
	if h.shown {
		h.variants = append(slices.Clone(vs), "continued")
	}
	h.emit(FrameStep, h.cur.ID, frameCtx{})
	h.variants = vs
	h.shown = true
}

// window is the request as it would be sent now.
func (h *harness) window() []Block {
	if h.system == nil {
		return slices.Clone(h.msgs)
	}
	out := make([]Block, 0, 1+len(h.injected)+len(h.msgs))
	out = append(out, *h.system)
	out = append(out, h.injected...)
	return append(out, h.msgs...)
}

// each calls f on every block of the request, in order, until f returns
// false.
func (h *harness) each(f func(*Block) bool) {
	if h.system != nil && !f(h.system) {
		return
	}
	for i := range h.injected {
		if !f(&h.injected[i]) {
			return
		}
	}
	for i := range h.msgs {
		if !f(&h.msgs[i]) {
			return
		}
	}
}

// headerMessages counts the header's blocks that are messages to the
// provider (system blocks are not).
func (h *harness) headerMessages() int {
	n := 0
	for _, b := range h.injected {
		if b.Role != RoleSystem {
			n++
		}
	}
	return n
}

// header is what compaction never touches: the system prompt and what was
// injected at session start.
func (h *harness) headerTokens() int {
	n := 0
	if h.system != nil {
		n += h.system.Tokens
	}
	for _, b := range h.injected {
		n += b.Tokens
	}
	return n
}

func (h *harness) total() int {
	n := h.headerTokens()
	for _, b := range h.msgs {
		n += b.Tokens
	}
	return n
}

func (h *harness) event(e Event) { h.events = append(h.events, e) }

// emit appends a frame of kind for the current trace step, with narration
// keys base@variant (the step's variants, then the mechanisms' tags) and
// base.
func (h *harness) emit(kind FrameKind, base string, fc frameCtx) *Frame {
	return h.emitWith(kind, base, nil, fc)
}

// emitWith is emit with variants of the frame's own before the step's.
func (h *harness) emitWith(kind FrameKind, base string, own []string, fc frameCtx) *Frame {
	h.closeFrame()
	req, o := h.fr.open(h)
	f := Frame{
		Step: len(h.frames) + 1, Kind: kind, TraceStep: h.cur.ID, req: req, Total: o.total,
		Session: h.session, Events: h.events,
	}
	f.Figures = make([]Figure, 0, 12)
	if o.newBlocks > 0 {
		// What is new in the window since the previous frame.
		f.Figures = append(f.Figures, count("new-blocks", o.newBlocks), tokens("new-tokens", o.newTokens))
	}
	if h.cache != nil {
		c := h.cache.compare(f.Blocks())
		f.Cache = &c
	}
	for _, c := range h.counters {
		c.By = maps.Clone(c.By)
		f.Counters = append(f.Counters, c)
	}
	h.tags = h.tags[:0]
	fc.step, fc.tags = h.cur.Type, &h.tags
	for _, m := range h.mechs {
		m.frame(h, &f, fc)
	}
	f.Categories = categoriesOf(f.req.count(), f.req.view)
	// The step's variants apply to the frames keyed by the step, not to a
	// mechanism's own frames (crossed, pass-1, reread, refused).
	vs := slices.Clone(own)
	if base == h.cur.ID {
		vs = append(vs, h.variants...)
	}
	if !fc.own {
		vs = append(vs, h.tags...)
	}
	for _, v := range vs {
		f.Narration = append(f.Narration, base+"@"+v)
	}
	f.Narration = append(f.Narration, base)
	h.events = nil
	h.added = 0
	h.frames = append(h.frames, f)
	if h.tap != nil {
		h.tap.frame(len(h.frames) - 1)
	}
	return &h.frames[len(h.frames)-1]
}

// closeFrame closes the last frame: its blocks join the ones the replay's
// frames share. Mechanisms change a frame's blocks only until then.
func (h *harness) closeFrame() {
	n := len(h.frames)
	if n == 0 || !h.frames[n-1].req.isOpen {
		return
	}
	if h.tap != nil {
		bs := h.frames[n-1].req.materialize()
		withDistances(bs)
		h.tap.closing(n-1, bs)
	}
	h.fr.close(&h.frames[n-1].req)
}

// blockOf makes the block of a trace message, sized by the lesson's rule.
func (h *harness) blockOf(m Message) Block {
	kind := m.Kind
	if kind == "" {
		kind = KindText
	}
	b := Block{ID: m.ID, Role: m.Role, Kind: kind, Label: m.Label, LabelKey: m.LabelKey, Content: m.Content,
		Tool: m.Tool, ToolUseID: m.ToolUseID, Args: m.Args, Usage: m.Usage}
	if m.Origin != "" {
		if h.origins[m.Origin] == nil {
			h.origins[m.Origin] = &Msg{Key: m.Origin}
		}
		b.Origin = h.origins[m.Origin]
	}
	b.Tokens = h.size(m, m.Content)
	if h.calib != nil {
		h.calib.size(&b)
	}
	return b
}

// callsIn counts the model calls a step's messages make: its assistant
// messages that do not continue the one before.
func callsIn(ms []Message) int {
	n := 0
	for i := range ms {
		if ms[i].Role == RoleAssistant && !ms[i].Continues {
			n++
		}
	}
	return n
}

// size is a message's size: its trace size, or the count of text in a
// counted lesson.
func (h *harness) size(m Message, text string) int {
	if h.l.Counted || m.Tokens == 0 {
		return h.count(text)
	}
	return m.Tokens
}

// count is the o200k_base count of a text, exactly as sent.
func (h *harness) count(text string) int { return h.tok.Count(text) }

// textBlock makes a block the harness or a mechanism writes, sized by count.
func (h *harness) textBlock(id string, role Role, kind Kind, text string) Block {
	return Block{ID: id, Role: role, Kind: kind, Content: text, Tokens: h.tok.Count(text)}
}

// messageIndex is the provider's index of blocks[i] among the messages of
// a request: system blocks are not messages.
func messageIndex(blocks []Block, i int) int {
	n := 0
	for _, b := range blocks[:i] {
		if b.Role != RoleSystem {
			n++
		}
	}
	return n
}

// runeCount is the characters of a text.
func runeCount(s string) int { return utf8.RuneCountInString(s) }
