package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Patterns of the layout mechanism (the pattern parameter): what a harness
// does to the request before each model call. Only stable leaves the
// prefix alone; each of the others is a way the seed's experiment 2-3 and
// its section on the cache as an architectural constraint say a prefix
// gets changed.
const (
	PatternStable     = "stable"                     // the prefix never changes; dynamic state is not in it
	PatternTimestamp  = "timestamp"                  // the call's time, in a line after the system prompt
	PatternUserState  = "user-settings"              // the user's calls left and balance, in a line after the system prompt
	PatternToolOrder  = "tool-reorder"               // the tool definitions ordered by use so far
	PatternFlattened  = "flattened"                  // the conversation written as "USER: … ASSISTANT: …" text
	PatternConditions = "conditions-before-boundary" // the session's runtime conditions before the cache boundary marker
)

// Patterns lists the layout mechanism's patterns in order.
var Patterns = []string{PatternStable, PatternTimestamp, PatternUserState, PatternToolOrder, PatternFlattened, PatternConditions}

// KindTools is a block of tool definitions (the request's tools field).
const KindTools Kind = "tools"

// Reasons the layout mechanism gives for where a request's cache reuse
// ends (see Cache.Reason).
const (
	CacheClock      = "clock"       // the time line changed
	CacheUserState  = "user_state"  // the user's state line changed
	CacheToolOrder  = "tool_order"  // the tool definitions changed order
	CacheConditions = "conditions"  // the session's runtime conditions differ from the cached request's
	CacheFlattened  = "flattened"   // what the model wrote came back as user text
	CacheNewSession = "new_session" // a new session: its conversation is new
)

// Block ids the layout mechanism writes.
const (
	layoutClock      = "clock"
	layoutState      = "user-state"
	layoutConditions = "conditions"
)

// Layout is the layout mechanism: the blocks a harness puts between the
// system prompt and the conversation at every session start (tool
// definitions, a cache boundary marker, the session's runtime conditions),
// and what the pattern parameter makes the harness do to the request
// before each model call. The provider's prompt cache then decides, block
// by block, what each request can reuse.
type Layout struct {
	Blocks []LayoutBlock // after the system prompt, in order
	// Patterns offered, the default first; fewer than two means no
	// parameter (the lesson shows the stable layout only).
	Patterns []string
	Clock    string // timestamp: the line, with {time} for the call's time
	State    string // user-settings: the line, with {calls-left} and {balance}
	Price    int    // user-settings: what one model call costs the user, in cents
	// Conditions are the runtime conditions of a session (an OS, a mode, a
	// language), each with the values it can take; Users gives each
	// session's values and state, in session order.
	Conditions []Condition
	Users      []LayoutUser
}

// LayoutBlock is a block of the layout: a tool's definition (Tool set), the
// cache boundary marker (Boundary), or another fixed part of the prefix.
type LayoutBlock struct {
	ID       string
	Label    Text
	Content  string
	Tokens   int    // trace size (0 in a counted lesson)
	Tool     string // the tool it defines
	Boundary bool   // the cache boundary marker: what is before it is shared by every session
	Origin   string // where its text comes from (OriginAuthored)
}

// Condition is a runtime condition and the values it takes.
type Condition struct {
	Name   string
	Values []string
}

// LayoutUser is who a session is for: the value (index) of each
// condition, and the user's state at the session's start.
type LayoutUser struct {
	Values    []int
	CallsLeft int
	Balance   int // cents
}

// Name is "layout".
func (Layout) Name() string { return "layout" }

// Params is pattern when more than one is offered.
func (c Layout) Params() []Param {
	if len(c.Patterns) < 2 {
		return nil
	}
	return []Param{{Name: "pattern", Choices: c.Patterns, Default: c.Patterns[0]}}
}

// texts are the texts the mechanism carries.
func (c Layout) texts() []string {
	var out []string
	for _, b := range c.Blocks {
		out = append(out, b.Content)
	}
	return out
}

// Keys is how many different prefixes the runtime conditions can make:
// the product of their numbers of values (2^N for N binary conditions).
func (c Layout) Keys() int {
	n := 1
	for _, cd := range c.Conditions {
		n *= len(cd.Values)
	}
	return n
}

func (c Layout) start(h *harness) hooks {
	pattern := PatternStable
	if len(c.Patterns) > 0 {
		pattern = chosen(h, "pattern", c.Patterns)
	}
	return &layoutRun{cfg: c, pattern: pattern, uses: map[string]int{}, seen: map[string]bool{}}
}

type layoutRun struct {
	base
	cfg     Layout
	pattern string

	user     LayoutUser // this session's user
	calls    int        // model calls of this session so far
	uses     map[string]int
	order    []string        // tool ids in the order of the latest request
	moved    int             // tools whose place changed before this request
	seen     map[string]bool // condition combinations of the sessions so far
	prefixed map[string]bool // ids of the blocks this mechanism put before the conversation
}

// sessionStart puts the layout after the system prompt.
func (r *layoutRun) sessionStart(h *harness) {
	r.calls = 0
	if i := h.session - 1; i >= 0 && i < len(r.cfg.Users) {
		r.user = r.cfg.Users[i]
		r.seen[r.comboKey()] = true
	}
	r.lay(h)
}

// beforeCall lays the prefix out again for this call: the pattern's
// changes happen here.
func (r *layoutRun) beforeCall(h *harness) {
	r.lay(h)
	r.calls++
}

// lay builds the blocks before the conversation for the request about to
// be sent: the pattern's line (a clock, the user's state, or the runtime
// conditions placed before the boundary), the tool definitions, the other
// fixed blocks, and the runtime conditions after the boundary marker. What
// else was injected (a memory copy) stays after them.
func (r *layoutRun) lay(h *harness) {
	var mine []Block
	cond, hasCond := r.conditions(h)
	switch r.pattern {
	case PatternTimestamp:
		mine = append(mine, h.textBlock(layoutClock, RoleSystem, KindPrompt, strings.ReplaceAll(r.cfg.Clock, "{time}", h.cur.Time)))
	case PatternUserState:
		mine = append(mine, h.textBlock(layoutState, RoleSystem, KindPrompt, r.stateLine()))
	case PatternConditions:
		if hasCond {
			mine = append(mine, cond)
		}
		hasCond = false
	}
	tools, rest := r.fixed(h)
	r.reorder(tools)
	mine = append(mine, tools...)
	for _, b := range rest {
		mine = append(mine, b)
		if hasCond && isBoundary(r.cfg, b.ID) {
			mine, hasCond = append(mine, cond), false
		}
	}
	if hasCond { // no boundary marker: the conditions close the prefix
		mine = append(mine, cond)
	}
	ids := map[string]bool{}
	for i := range mine {
		ids[mine[i].ID] = true
		switch mine[i].ID {
		case layoutClock, layoutState:
			mine[i].LabelKey = "block.layout-" + mine[i].ID
		}
	}
	var others []Block
	for _, b := range h.injected {
		if !r.prefixed[b.ID] {
			others = append(others, b)
		}
	}
	r.prefixed = ids
	h.injected = append(mine, others...)
}

// reorder notes the tools' order and how many changed place since the
// previous layout.
func (r *layoutRun) reorder(tools []Block) {
	before := slices.Clone(r.order)
	r.order = r.order[:0]
	for _, b := range tools {
		r.order = append(r.order, b.ID)
	}
	r.moved = 0
	if len(before) != len(r.order) {
		return
	}
	for i, id := range r.order {
		if before[i] != id {
			r.moved++
		}
	}
}

// fixed returns the layout's tool definitions, in the pattern's order, and
// its other blocks.
func (r *layoutRun) fixed(h *harness) (tools, rest []Block) {
	for _, lb := range r.cfg.Blocks {
		b := h.blockOf(Message{ID: lb.ID, Role: RoleSystem, Kind: KindPrompt, Label: lb.Label, Content: lb.Content, Tokens: lb.Tokens, Origin: lb.Origin})
		if lb.Tool != "" {
			b.Kind, b.Tool = KindTools, lb.Tool
			tools = append(tools, b)
			continue
		}
		rest = append(rest, b)
	}
	if r.pattern == PatternToolOrder {
		slices.SortStableFunc(tools, func(a, b Block) int { return r.uses[b.Tool] - r.uses[a.Tool] })
	}
	return tools, rest
}

// isBoundary reports whether id is the layout's boundary marker.
func isBoundary(c Layout, id string) bool {
	return slices.ContainsFunc(c.Blocks, func(lb LayoutBlock) bool { return lb.ID == id && lb.Boundary })
}

// conditions is the block of this session's runtime conditions.
func (r *layoutRun) conditions(h *harness) (Block, bool) {
	if len(r.cfg.Conditions) == 0 || len(r.user.Values) != len(r.cfg.Conditions) {
		return Block{}, false
	}
	var s strings.Builder
	s.WriteString("Runtime conditions:")
	for i, cd := range r.cfg.Conditions {
		fmt.Fprintf(&s, "\n- %s: %s", cd.Name, cd.Values[r.user.Values[i]])
	}
	b := h.textBlock(layoutConditions, RoleSystem, KindPrompt, s.String())
	b.LabelKey = "block.layout-conditions"
	return b, true
}

// comboKey names this session's combination of condition values.
func (r *layoutRun) comboKey() string { return fmt.Sprint(r.user.Values) }

// stateLine is the user's state as of this call: the calls left and the
// balance after the calls this session made so far.
func (r *layoutRun) stateLine() string {
	left := r.user.CallsLeft - r.calls
	cents := r.user.Balance - r.calls*r.cfg.Price
	s := strings.ReplaceAll(r.cfg.State, "{calls-left}", itoa(left))
	return strings.ReplaceAll(s, "{balance}", dollars(cents))
}

// dollars writes cents as a dollar amount ($12.40).
func dollars(cents int) string {
	sign := ""
	if cents < 0 {
		sign, cents = "-", -cents
	}
	return fmt.Sprintf("%s$%d.%02d", sign, cents/100, cents%100)
}

// result counts the uses of each tool (tool-reorder orders by them).
func (r *layoutRun) result(_ *harness, b *Block, _ *Message) { r.uses[b.Tool]++ }

// flatPrefix is how a flattened conversation writes each role.
var flatPrefix = map[Role]string{RoleUser: "USER: ", RoleAssistant: "ASSISTANT: ", RoleTool: "TOOL RESULT: "}

// entered writes a message of the conversation as text in the user role,
// under the flattened pattern: the model then reads one stream of text
// instead of messages with roles. The provider still caches the text as
// it is sent.
func (r *layoutRun) entered(h *harness, b *Block) {
	if r.pattern != PatternFlattened {
		return
	}
	p, ok := flatPrefix[b.Role]
	if !ok || b.Kind == KindStatus || b.Kind == KindSummary {
		return
	}
	b.Content = p + b.Content
	b.Tokens = h.count(b.Content)
	b.Role, b.Kind, b.ToolUseID = RoleUser, KindText, ""
	b.Attrs = append(b.Attrs, Attr{"flattened", 1})
}

// frame names why the cache reuse ends where it does, and reports the
// pattern's figures, badges and panel.
func (r *layoutRun) frame(h *harness, f *Frame, fc frameCtx) {
	if len(r.cfg.Patterns) > 1 && !fc.own {
		*fc.tags = append(*fc.tags, r.pattern)
	}
	r.reason(h, f)
	f.Figures = append(f.Figures, key("pattern", "value."+r.pattern))
	boundary, before, after := false, 0, 0
	flat := 0
	bs := f.Blocks()
	for i := range bs {
		b := &bs[i]
		if r.prefixed[b.ID] || b.ID == "system" {
			if boundary {
				after += b.Tokens
			} else {
				before += b.Tokens
			}
			if isBoundary(r.cfg, b.ID) {
				boundary = true
			}
		}
		switch {
		case b.ID == layoutClock || b.ID == layoutState:
			b.Badges = append(b.Badges, Badge{Key: "per-call", Tone: "warn"})
		case b.ID == layoutConditions:
			b.Badges = append(b.Badges, Badge{Key: "per-session", Tone: "warn"})
		case isBoundary(r.cfg, b.ID):
			b.Badges = append(b.Badges, Badge{Key: "boundary", Tone: "info"})
		}
		if _, ok := b.Attr("flattened"); ok {
			flat++
			b.Badges = append(b.Badges, Badge{Key: "flattened", Tone: "warn", Minor: true})
		}
	}
	rows := []Row{{Key: "pattern", Values: []Figure{key("p", "value."+r.pattern)}, Emph: true}}
	if boundary {
		f.Figures = append(f.Figures, tokens("global-prefix", before), tokens("session-prefix", after))
		rows = append(rows, Row{Key: "global", Values: []Figure{tokens("n", before)}}, Row{Key: "session", Values: []Figure{tokens("n", after)}})
	}
	if len(r.cfg.Conditions) > 0 {
		used := len(r.seen)
		f.Figures = append(f.Figures, count("conditions-n", len(r.cfg.Conditions)), count("keys-possible", r.cfg.Keys()),
			count("users", used))
		if r.pattern == PatternConditions {
			f.Figures = append(f.Figures, count("keys-used", used))
			rows = append(rows, Row{Key: "keys", Values: []Figure{count("used", used), count("possible", r.cfg.Keys())}})
		}
	}
	switch r.pattern {
	case PatternTimestamp:
		f.Figures = append(f.Figures, text("time", h.cur.Time))
	case PatternUserState:
		left := r.user.CallsLeft - max(r.calls-1, 0)
		f.Figures = append(f.Figures, count("calls-left", left))
		rows = append(rows, Row{Key: "state", Values: []Figure{count("left", left)}})
	case PatternToolOrder:
		f.Figures = append(f.Figures, count("moved", r.moved))
		rows = append(rows, Row{Key: "moved", Values: []Figure{count("n", r.moved)}})
	case PatternFlattened:
		f.Figures = append(f.Figures, count("flattened", flat))
	}
	if c := f.Cache; c != nil && c.FirstChanged != "" {
		f.Figures = append(f.Figures, blockRef("first-changed", c.FirstChanged))
		if b, ok := f.Block(c.FirstChanged); ok && b.Role == RoleTool {
			f.Figures = append(f.Figures, count("first-changed-result", 1))
		}
		// Calls the model wrote that lie after the cut: computed again.
		calls, after := 0, false
		for _, b := range f.Blocks() {
			after = after || b.ID == c.FirstChanged
			if after && b.Kind == KindToolCall {
				calls++
			}
		}
		if calls > 0 {
			f.Figures = append(f.Figures, count("recomputed-calls", calls))
		}
	}
	f.Figures = append(f.Figures, count("next-request", h.spent.calls+1))
	if (fc.finish || fc.step == StepSessionStart) && (len(r.cfg.Patterns) > 1 || boundary || len(r.cfg.Conditions) > 0) {
		f.Panels = append(f.Panels, Panel{ID: "layout", Tone: "info", Rows: rows})
	}
}

// reason names what ends the cache reuse, where the layout is the cause.
func (r *layoutRun) reason(h *harness, f *Frame) {
	c := f.Cache
	if c == nil || c.FirstChanged == "" || c.Reason == CacheCold || c.Reason == CacheAppend {
		return
	}
	b, ok := f.Block(c.FirstChanged)
	if !ok {
		return
	}
	_, flat := b.Attr("flattened")
	switch {
	case b.ID == layoutClock:
		c.Reason = CacheClock
	case b.ID == layoutState:
		c.Reason = CacheUserState
	case b.ID == layoutConditions:
		c.Reason = CacheConditions
	case b.Kind == KindTools:
		c.Reason = CacheToolOrder
	case flat && strings.HasPrefix(b.Content, flatPrefix[RoleAssistant]):
		c.Reason = CacheFlattened
	case !r.prefixed[b.ID] && b.ID != "system" && !r.holdsConversation(h, f):
		c.Reason = CacheNewSession
	}
}

// holdsConversation reports whether the cached request holds any message
// of this frame's conversation: when it holds none, it was another
// session's.
func (r *layoutRun) holdsConversation(h *harness, f *Frame) bool {
	held := map[string]bool{}
	for _, cb := range h.cache.cached {
		held[cb.id] = true
	}
	for _, b := range f.Blocks() {
		if b.ID != "system" && !r.prefixed[b.ID] && held[b.ID] {
			return true
		}
	}
	return false
}
