package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Run replays l's trace under p and returns one frame per visible step.
// It fails only when p is out of range; a validated lesson always runs.
func Run(l *Lesson, p Policy, tok Tokenizer) ([]Frame, error) {
	if err := l.ValidatePolicy(p); err != nil {
		return nil, err
	}
	switch l.Engine {
	case EngineStatus:
		return runStatus(l, p, tok), nil
	case EngineTiered:
		return runTiered(l, p, tok), nil
	}
	return runContext(l, p, tok), nil
}

// runContext replays a context-engine trace: compaction and memory.
func runContext(l *Lesson, p Policy, tok Tokenizer) []Frame {
	r := &run{l: l, p: p, tok: tok, threshold: l.ThresholdTokens(p.ThresholdPercent), prevIDs: map[string]bool{}}
	if p.Memory {
		r.file = slices.Clone(l.Memory.Lines)
		r.fileTokens = l.Memory.Tokens
	}
	for _, st := range l.Trace {
		r.step(st)
	}
	return r.frames
}

// run is the mutable state of one replay; it never outlives Run.
type run struct {
	l         *Lesson
	p         Policy
	tok       Tokenizer
	threshold int

	file       []string // MEMORY.md on disk
	fileTokens int
	injected   []string // the copy injected at session start
	header     []Block  // system prompt and injected copy
	msgs       []Block  // the conversation after the header
	session    int

	breaker     bool // auto-compaction stopped for this session (heavy tail)
	stuck       bool // a call was refused; the session cannot go on
	compactions int
	mechanical  int

	frames  []Frame
	prevIDs map[string]bool
	events  []Event

	// per step
	cur      Step
	variants []string
	added    int  // messages added since the last frame of this step
	shown    bool // a part of this step was already shown
}

func (r *run) step(st Step) {
	r.cur, r.variants, r.added, r.shown = st, nil, 0, false
	switch st.Type {
	case StepSessionStart:
		r.startSession()
	case StepSessionEnd:
		r.endSession()
	case StepRemember:
		r.remember(st)
	case StepMessages:
		if r.stuck {
			r.skip()
			return
		}
		for _, m := range st.Messages {
			if !r.message(m) {
				return
			}
		}
		r.finishStep()
	case StepBranch:
		if r.stuck {
			r.skip()
			return
		}
		r.branch(st.Branch)
	}
}

func (r *run) startSession() {
	r.session++
	r.breaker, r.stuck = false, false
	r.msgs = nil
	r.header = []Block{blockOf(r.l.System, "system")}
	r.injected = nil
	if r.p.Memory {
		r.injected = slices.Clone(r.file)
		r.header = append(r.header, Block{
			ID: fmt.Sprintf("memory-%d", r.session), Role: RoleSystem, Kind: KindMemory,
			Label:  Text{"en": r.l.Memory.Path + " copy", "ja": r.l.Memory.Path + " コピー"},
			Tokens: r.fileTokens, Content: strings.Join(r.injected, "\n"),
		})
	} else {
		r.variants = append(r.variants, "no-memory")
	}
	r.event(Event{Type: EventSessionStart, Tokens: r.total()})
	r.emit(FrameStep)
}

func (r *run) endSession() {
	if r.stuck {
		r.variants = append(r.variants, "after-overflow")
	}
	if !r.p.Memory {
		r.variants = append(r.variants, "no-memory")
	}
	r.event(Event{Type: EventSessionEnd, Tokens: r.total()})
	r.header, r.msgs, r.injected = nil, nil, nil
	r.stuck, r.breaker = false, false
	f := r.emit(FrameStep)
	f.Decisive = true
}

func (r *run) remember(st Step) {
	if !r.p.Memory {
		r.variants = append(r.variants, "no-memory")
		r.event(Event{Type: EventMemoryOff, Line: st.Line})
	} else {
		r.file = append(r.file, st.Line)
		r.fileTokens += st.Tokens
		r.event(Event{Type: EventMemoryWrite, Line: st.Line, Tokens: st.Tokens})
	}
	r.emit(FrameStep)
}

// skip records a step that a refused call made impossible.
func (r *run) skip() {
	if len(r.frames) > 0 {
		last := &r.frames[len(r.frames)-1]
		last.Events = append(last.Events, Event{Type: EventSkipped, Reason: r.cur.ID})
	}
}

// message adds m to the window, calling the model first when m is the
// model's. It reports false when the call was refused.
func (r *run) message(m Message) bool {
	if m.Role == RoleAssistant {
		if !r.beforeCall() {
			return false
		}
	}
	b := blockOf(m, m.ID)
	if m.Answer != nil {
		found := r.lookup(m.Answer.Fact)
		b.Content = m.Answer.Missing
		if found {
			b.Content = m.Answer.Found
		}
		r.variants = append(r.variants, foundVariant(found))
	}
	r.msgs = append(r.msgs, b)
	r.added++
	r.event(Event{Type: EventMessage, Block: b.ID, Tokens: b.Tokens})
	return true
}

// branch runs the model call that starts a branch step, then follows the
// messages the fact lookup selects.
func (r *run) branch(br *Branch) {
	if !r.beforeCall() {
		return
	}
	found := r.lookup(br.Fact)
	r.variants = append(r.variants, foundVariant(found))
	msgs := br.Missing
	if found {
		msgs = br.Found
	}
	for i, m := range msgs {
		if i == 0 { // its call was checked above
			b := blockOf(m, m.ID)
			r.msgs = append(r.msgs, b)
			r.added++
			r.event(Event{Type: EventMessage, Block: b.ID, Tokens: b.Tokens})
			continue
		}
		if !r.message(m) {
			return
		}
	}
	r.finishStep()
}

func foundVariant(found bool) string {
	if found {
		return "found"
	}
	return "missing"
}

// lookup reports whether fact is in the window now, and records the lookup.
func (r *run) lookup(id string) bool {
	var fact Fact
	for _, f := range r.l.Facts {
		if f.ID == id {
			fact = f
		}
	}
	found, where := false, ""
	for _, b := range r.window() {
		if fact.Pattern != nil && fact.Pattern.MatchString(b.Content) {
			found, where = true, b.ID
			break
		}
	}
	r.event(Event{Type: EventLookup, Fact: id, Found: &found, Block: where})
	return found
}

func (r *run) finishStep() {
	if r.added == 0 && r.shown {
		return
	}
	if r.shown {
		r.variants = append(r.variants, "continued")
	}
	if !r.p.Compaction {
		r.variants = append(r.variants, "no-compaction")
	}
	r.emit(FrameStep)
}

// flushPart shows the part of the current step added so far, before the
// frames of a compaction or a refusal interrupt it.
func (r *run) flushPart() {
	if r.added == 0 {
		return
	}
	vs := r.variants
	if r.shown {
		r.variants = append(slices.Clone(vs), "continued")
	}
	r.emit(FrameStep)
	r.variants = vs
	r.shown, r.added = true, 0
}

// beforeCall is the harness's check before a model call: compact when above
// the threshold, refuse when above the window. It reports false when the
// request was refused.
func (r *run) beforeCall() bool {
	if r.p.Compaction && !r.breaker && r.total() > r.threshold {
		r.compact(false)
	}
	if r.p.Compaction && r.breaker && r.total() > r.l.Window {
		// The breaker stopped routine compaction, but this request would be
		// refused: compact once more rather than send it (reactive compaction).
		r.compact(true)
	}
	if t := r.total(); t > r.l.Window {
		r.flushPart()
		r.stuck = true
		r.event(Event{Type: EventOverflow, Tokens: t, Reason: ErrContextLengthExceeded})
		f := r.emitKind(FrameOverflow, []string{"overflow"})
		f.Error = ErrContextLengthExceeded
		f.Decisive = true
		return false
	}
	return true
}

func (r *run) total() int {
	n := 0
	for _, b := range r.header {
		n += b.Tokens
	}
	for _, b := range r.msgs {
		n += b.Tokens
	}
	return n
}

func (r *run) window() []Block {
	return append(slices.Clone(r.header), r.msgs...)
}

func (r *run) event(e Event) { r.events = append(r.events, e) }

// emit appends a frame of kind for the current trace step.
func (r *run) emit(kind FrameKind) *Frame {
	keys := make([]string, 0, len(r.variants)+1)
	for _, v := range r.variants {
		keys = append(keys, r.cur.ID+"@"+v)
	}
	return r.emitKind(kind, append(keys, r.cur.ID))
}

func (r *run) emitKind(kind FrameKind, keys []string) *Frame {
	blocks := r.window()
	ids := make(map[string]bool, len(blocks))
	for i := range blocks {
		ids[blocks[i].ID] = true
		blocks[i].New = !r.prevIDs[blocks[i].ID]
	}
	r.prevIDs = ids
	f := Frame{
		Step:           len(r.frames) + 1,
		Kind:           kind,
		TraceStep:      r.cur.ID,
		Narration:      keys,
		Blocks:         blocks,
		Total:          r.total(),
		MemoryEnabled:  r.p.Memory,
		MemoryFile:     slices.Clone(r.file),
		MemoryInjected: slices.Clone(r.injected),
		Session:        r.session,
		Events:         r.events,
	}
	if r.p.Memory && r.session > 0 && f.MemoryInjected != nil {
		f.MemoryNew = newLines(r.file, r.injected)
	}
	r.events = nil
	r.frames = append(r.frames, f)
	return &r.frames[len(r.frames)-1]
}

// newLines returns the lines of file that the injected copy does not hold.
func newLines(file, injected []string) []string {
	var out []string
	for _, l := range file {
		if !slices.Contains(injected, l) {
			out = append(out, l)
		}
	}
	return out
}

func blockOf(m Message, id string) Block {
	kind := m.Kind
	if kind == "" {
		kind = KindText
	}
	return Block{ID: id, Role: m.Role, Kind: kind, Label: m.Label, Tokens: m.Tokens, Content: m.Content}
}
