package sim

// Mechanism is one part of a harness that a lesson names: memory,
// compaction, a status bar and so on. Its configuration is lesson data; the
// behaviour is Go in this package (the interface cannot be implemented
// elsewhere), so a lesson combines mechanisms without code.
type Mechanism interface {
	// Name is the mechanism's name in lesson files.
	Name() string
	// Params are the policy parameters the mechanism reads.
	Params() []Param
	// start returns the mechanism's state for one replay.
	start(h *harness) hooks
}

// hooks is what a mechanism does during a replay. Every method has a no-op
// default in base; a mechanism overrides the moments it cares about.
type hooks interface {
	// sessionStart runs after the system prompt is placed at a session start.
	sessionStart(h *harness)
	// sessionEnd runs before the window is cleared at a session end.
	sessionEnd(h *harness)
	// remember handles a remember step; it reports whether it did.
	remember(h *harness, st Step) bool
	// compactMark handles a recorded compaction step.
	compactMark(h *harness, st Step)
	// beforeCall may rewrite the request before a model call.
	beforeCall(h *harness)
	// refused runs after the provider refused a request.
	refused(h *harness)
	// beforeTool runs before the model's tool call m is added; it may make
	// other calls first (a re-read). It reports false when the run stopped.
	beforeTool(h *harness, m *Message) bool
	// result fills or changes a tool result before it enters the window.
	result(h *harness, b *Block, m *Message)
	// afterResult runs after a tool result entered the window, before the
	// next model call.
	afterResult(h *harness)
	// frame annotates a frame as it is emitted: narration tags, figures,
	// badges, panels, counters.
	frame(h *harness, f *Frame, fc frameCtx)
	// finish adds run-level fields and panels.
	finish(h *harness, r *Replay)
	// entered runs after a block entered the window (a message the trace
	// or a mechanism put there).
	entered(h *harness, b *Block)
	// runStep may run a messages step itself, in a window of its own (a
	// sub-agent's); it reports whether it did.
	runStep(h *harness, st Step) bool
	// afterCompaction runs after a compaction replaced the history with its
	// summary, before the frame that shows the result.
	afterCompaction(h *harness)
}

// base is the no-op implementation of every hook.
type base struct{}

func (base) sessionStart(*harness)              {}
func (base) sessionEnd(*harness)                {}
func (base) remember(*harness, Step) bool       { return false }
func (base) compactMark(*harness, Step)         {}
func (base) beforeCall(*harness)                {}
func (base) refused(*harness)                   {}
func (base) beforeTool(*harness, *Message) bool { return true }
func (base) result(*harness, *Block, *Message)  {}
func (base) afterResult(*harness)               {}
func (base) frame(*harness, *Frame, frameCtx)   {}
func (base) finish(*harness, *Replay)           {}
func (base) entered(*harness, *Block)           {}
func (base) runStep(*harness, Step) bool        { return false }
func (base) afterCompaction(*harness)           {}

// frameCtx tells the frame hook what kind of moment a frame shows.
type frameCtx struct {
	// step is the trace step's type.
	step StepType
	// finish: the frame that closes a messages or branch step (or its
	// request frame), not a part of it or a mechanism's own frame.
	finish bool
	// own: a frame a mechanism emitted itself (a compaction's four frames);
	// policy tags do not apply to it.
	own bool
	// request: the frame is the request of a model call as sent, before
	// the model's output (a step shown as its request); the harness's
	// next is the message the call writes.
	request bool
	// tags collects the narration variants the mechanisms add.
	tags *[]string
}

// refusal is a provider's refusal of a request.
type refusal struct {
	kind  FrameKind
	base  string // narration key
	err   string
	event Event
}
