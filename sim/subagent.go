package sim

// Subagent is the subagent mechanism (the isolation parameter). With
// isolation on, the steps the trace gives a sub-agent (Step.Agent sub) run
// in the sub-agent's own window: it starts with its System prompt and the
// task (Prompt, a user message), and every frame carries it as a second
// window. The main window gets two messages only: the task (Task, a tool
// call the main agent writes when the first of those steps starts) and the
// conclusion (the sub-agent's last message, returned as the call's result
// when the last of them ends); the sub-agent's window is then dropped.
// With isolation off, the main agent does those steps itself, in the main
// window.
type Subagent struct {
	System Message // the sub-agent's system prompt
	Task   Message // the main agent's call that hands the task over
	Prompt Message // the task as the sub-agent reads it: its first message
}

// Name is "subagent".
func (Subagent) Name() string { return "subagent" }

// Params is isolation on/off.
func (Subagent) Params() []Param { return []Param{onOff("isolation", "off")} }

// texts are the texts the mechanism carries.
func (s Subagent) texts() []string {
	return []string{s.System.Content, s.Task.Content, s.Prompt.Content}
}

func (s Subagent) start(h *harness) hooks {
	r := &subagentRun{cfg: s, on: h.p.On("isolation")}
	for i, st := range h.l.Trace {
		if st.Agent == AgentSub && (i+1 == len(h.l.Trace) || h.l.Trace[i+1].Agent != AgentSub) {
			r.last = st.ID
		}
	}
	return r
}

type subagentRun struct {
	base
	cfg  Subagent
	on   bool
	last string // the last sub-agent step: the conclusion returns after it

	open    bool
	window  []Block // the sub-agent's window while it works
	prevIDs map[string]bool
	task    Block // the main agent's call, waiting for its result
	spent   int   // tokens of the sub-agent's calls so far
	calls   int
}

// runStep runs a sub-agent's step in its own window when isolation is on.
func (r *subagentRun) runStep(h *harness, st Step) bool {
	if !r.on || st.Agent != AgentSub {
		return false
	}
	if !r.open && !r.start(h) {
		return true
	}
	for i := range st.Messages {
		r.message(h, &st.Messages[i])
	}
	closing := st.ID == r.last
	if closing {
		r.conclude(h)
	}
	h.emit(FrameStep, st.ID, frameCtx{finish: true})
	if closing {
		r.window, r.open = nil, false
	}
	return true
}

// start is the main agent's model call that writes the task; the
// sub-agent's window opens with its system prompt and the task. The call
// waits for its result outside the window until the sub-agent returns.
func (r *subagentRun) start(h *harness) bool {
	if !h.call() {
		return false
	}
	r.task = h.blockOf(r.cfg.Task)
	r.task.Role, r.task.Kind, r.task.ToolUseID = RoleAssistant, KindToolCall, r.cfg.Task.ID
	sys := h.blockOf(r.cfg.System)
	sys.Role, sys.Kind = RoleSystem, KindPrompt
	prompt := h.blockOf(r.cfg.Prompt)
	prompt.Role = RoleUser
	r.window = []Block{sys, prompt}
	r.open = true
	h.event(Event{Type: EventDelegated, Block: r.cfg.Task.ID, Tokens: sys.Tokens + prompt.Tokens})
	return true
}

// message adds a sub-agent's message to its window; the sub-agent's own
// model call comes first, priced like the main agent's.
func (r *subagentRun) message(h *harness, m *Message) {
	if m.Role == RoleAssistant && !m.Continues {
		n := 0
		for _, b := range r.window {
			n += b.Tokens
		}
		r.charge(h, n)
		r.calls++
		h.spent.subCalls++
	}
	b := h.blockOf(*m)
	if b.Role == RoleAssistant {
		r.charge(h, b.Tokens)
	}
	r.window = append(r.window, b)
	variant := "sub"
	if b.Role == RoleTool && len(r.window) >= 2 && r.window[len(r.window)-2].ToolUseID == b.ToolUseID {
		c := r.window[len(r.window)-2]
		h.event(Event{Type: EventToolCall, Block: c.ID, Tokens: c.Tokens + b.Tokens, Variant: variant})
		return
	}
	if b.Kind != KindToolCall {
		h.event(Event{Type: EventMessage, Block: b.ID, Tokens: b.Tokens, Variant: variant})
	}
}

func (r *subagentRun) charge(h *harness, n int) {
	h.spent.tokens += n
	h.spent.sub += n
	r.spent += n
}

// conclude returns the sub-agent's last message to the main window as the
// task call's result: the call and its result enter together.
func (r *subagentRun) conclude(h *harness) {
	last := r.window[len(r.window)-1]
	task := Message{ID: r.task.ID, Role: RoleAssistant, Kind: KindToolCall, Label: r.cfg.Task.Label, Tokens: r.task.Tokens,
		Content: r.cfg.Task.Content, ToolUseID: r.cfg.Task.ID, Origin: r.cfg.Task.Origin}
	res := Message{ID: last.ID, Role: RoleTool, Kind: KindToolResult, Label: last.Label, Tokens: last.Tokens, Content: last.Content,
		ToolUseID: r.cfg.Task.ID, Origin: originKey(last.Origin)}
	h.put(&task)
	h.event(Event{Type: EventReturned, Block: res.ID, Tokens: last.Tokens})
	h.add(&res)
}

// originKey is the origin key a block's origin came from.
func originKey(o *Msg) string {
	if o == nil {
		return ""
	}
	return o.Key
}

// frame carries the sub-agent's window while it works, and tags frames
// "isolated" when isolation is on.
func (r *subagentRun) frame(h *harness, f *Frame, fc frameCtx) {
	if r.on && !fc.own {
		*fc.tags = append(*fc.tags, "isolated")
	}
	f.Figures = append(f.Figures, count("sub-calls", r.calls))
	if !r.open {
		r.prevIDs = nil
		return
	}
	sw := &SecondWindow{LabelKey: "ui.window-subagent", LegendKey: "legend.subagent", Blocks: make([]Block, len(r.window))}
	copy(sw.Blocks, r.window)
	ids := map[string]bool{}
	for i := range sw.Blocks {
		b := &sw.Blocks[i]
		ids[b.ID] = true
		b.New = !r.prevIDs[b.ID]
		sw.Total += b.Tokens
	}
	r.prevIDs = ids
	f.Second = sw
	f.Figures = append(f.Figures, tokens("sub-total", sw.Total), count("sub-blocks", len(sw.Blocks)))
}

// Events of the subagent mechanism.
const (
	EventDelegated = "delegated" // the main agent handed a task to a sub-agent
	EventReturned  = "returned"  // the sub-agent's conclusion came back as the task's result
)
