package sim

import (
	"fmt"
	"slices"
	"strings"
)

// StatusTrace is the status engine's trajectory: a tool-using agent whose
// every model call is one frame. Sizes are not given: they are the token
// counts of the texts, so the engine counts them.
type StatusTrace struct {
	System     string
	Constraint Constraint
	Todo       string // the TODO item the status bar reports
	Steps      []StatusStep
}

// Constraint is the rule the status bar checks: at most Max calls of Tool
// per value of its Key argument ("company").
type Constraint struct {
	Tool string
	Key  string
	Max  int
}

// StatusStep is one model call and what the model did in it.
type StatusStep struct {
	ID       string    // narration key
	Time     string    // trace timestamp of the call, "2025-09-14 10:30:45"
	User     string    // a user message that arrives before the call
	UserID   string    // its block id
	Call     *ToolCall // the tool call the model made, with its result
	Decision bool      // the call where the arms differ: no model output is simulated
}

// ToolCall is a tool call (an assistant message) and its result.
type ToolCall struct {
	ID     string // tool_use id pairing call and result
	Tool   string
	Args   string // JSON arguments as sent
	Key    string // the constraint key's value in Args ("Xfinity"), "" if none
	Result string
}

// runStatus replays the trajectory: before each model call it derives the
// status from the trajectory so far and injects it per the policy.
func runStatus(l *Lesson, p Policy, tok Tokenizer) []Frame {
	st := l.Status
	r := &statusRun{l: l, p: p, tok: tok, calls: map[string]int{}, byKey: map[string]int{}}
	task := r.block("user-task", RoleUser, KindText, st.Steps[0].User)
	task.Label = Text{"en": "task", "ja": "依頼"}
	r.msgs = []Block{task}
	for i, step := range st.Steps {
		if i > 0 && step.User != "" {
			u := r.block(step.UserID, RoleUser, KindText, step.User)
			u.Label = Text{"en": "user message", "ja": "ユーザーの発言"}
			r.msgs = append(r.msgs, u)
			r.events = append(r.events, Event{Type: EventMessage, Block: step.UserID})
		}
		r.call(i, step)
	}
	return r.frames
}

type statusRun struct {
	l      *Lesson
	p      Policy
	tok    Tokenizer
	msgs   []Block // conversation after the system prompt, statuses included
	calls  map[string]int
	byKey  map[string]int
	order  []string // tools in first-call order
	keys   []string // constraint key values in first-call order
	cached []Block  // what the provider holds after the previous call
	frames []Frame
	events []Event
}

func (r *statusRun) block(id string, role Role, kind Kind, text string) Block {
	text = strings.TrimRight(text, "\n")
	return Block{ID: id, Role: role, Kind: kind, Content: text, Tokens: r.tok.Count(text)}
}

// call is one model call: inject the status, send the request (a frame),
// then append what the model did.
func (r *statusRun) call(i int, step StatusStep) {
	if r.p.Status != "" && r.p.Status != "off" {
		if r.p.Status == "replace" {
			r.msgs = slices.DeleteFunc(r.msgs, func(b Block) bool {
				if b.Kind == KindStatus {
					r.events = append(r.events, Event{Type: EventStatusRemoved, Block: b.ID})
					return true
				}
				return false
			})
		}
		s := r.block(fmt.Sprintf("status-%d", i+1), RoleUser, KindStatus, r.statusText(step))
		s.Label = Text{"en": "<agent_status>", "ja": "<agent_status>"}
		r.msgs = append(r.msgs, s)
		r.events = append(r.events, Event{Type: EventStatusInjected, Block: s.ID, Tokens: s.Tokens})
	}
	req := append([]Block{r.system(step)}, r.msgs...)
	cache := compareCache(r.cached, req, len(r.frames) == 0)
	for j := range req {
		req[j].Cached = j < cache.ReusedBlocks
		req[j].FirstChanged = req[j].ID == cache.FirstChanged
	}
	kind := FrameStep
	if step.Decision {
		kind = FrameDecision
		r.events = append(r.events, Event{Type: EventDecision})
	}
	r.emit(step, kind, req, cache)
	if step.Call == nil {
		r.cached = slices.Clone(req)
		return
	}
	a, t := r.toolBlocks(step.Call)
	// The provider keeps the request and the tokens it generated.
	r.cached = append(slices.Clone(req), a)
	r.msgs = append(r.msgs, a, t)
	r.events = append(r.events, Event{Type: EventToolCall, Block: a.ID, Tokens: a.Tokens + t.Tokens})
}

func (r *statusRun) system(step StatusStep) Block {
	text := r.l.Status.System
	if r.p.Clock {
		text += "\nCurrent time: " + step.Time
	}
	b := r.block("system", RoleSystem, KindPrompt, text)
	b.Label = Text{"en": "system prompt", "ja": "システムプロンプト"}
	if r.p.Clock {
		b.Label = Text{"en": "system prompt + clock", "ja": "システムプロンプト＋時刻"}
	}
	return b
}

func (r *statusRun) toolBlocks(c *ToolCall) (Block, Block) {
	r.calls[c.Tool]++
	if r.calls[c.Tool] == 1 {
		r.order = append(r.order, c.Tool)
	}
	con := r.l.Status.Constraint
	if c.Tool == con.Tool && c.Key != "" {
		r.byKey[c.Key]++
		if r.byKey[c.Key] == 1 {
			r.keys = append(r.keys, c.Key)
		}
	}
	a := r.block("call-"+c.ID, RoleAssistant, KindToolCall, fmt.Sprintf("%s(%s)", c.Tool, c.Args))
	a.Tool, a.ToolUseID = c.Tool, c.ID
	name := c.Tool
	if c.Key != "" {
		name += " " + c.Key
	}
	a.Label = Text{"en": name, "ja": name}
	result := c.Result
	if r.p.Counter {
		result += "\n" + r.counterLine(c)
	}
	t := r.block("result-"+c.ID, RoleTool, KindToolResult, result)
	t.Tool, t.ToolUseID = c.Tool, c.ID
	t.Label = Text{"en": c.Tool + " result", "ja": c.Tool + " の結果"}
	return a, t
}

// counterLine is the repeat count written into a tool result (counter=on).
func (r *statusRun) counterLine(c *ToolCall) string {
	con := r.l.Status.Constraint
	if c.Tool == con.Tool && c.Key != "" {
		n := r.byKey[c.Key]
		return fmt.Sprintf("[Tool call #%d for '%s': the %s call to %s]", r.calls[c.Tool], c.Tool, Ordinal(n), c.Key)
	}
	return fmt.Sprintf("[Tool call #%d for '%s']", r.calls[c.Tool], c.Tool)
}

// statusText derives the status bar from the trajectory so far. The model
// trusts it almost blindly, so code, not the model, computes every figure.
func (r *statusRun) statusText(step StatusStep) string {
	con := r.l.Status.Constraint
	var b strings.Builder
	b.WriteString("<agent_status>\nCurrent state:\n")
	if len(r.order) == 0 {
		b.WriteString("- Tool call summary: no tools called yet\n")
	}
	for _, tool := range r.order {
		fmt.Fprintf(&b, "- Tool call summary: '%s' has been invoked %d times", tool, r.calls[tool])
		if tool == con.Tool && len(r.keys) > 0 {
			var parts []string
			for _, k := range r.keys {
				parts = append(parts, fmt.Sprintf("%s: %d times", k, r.byKey[k]))
			}
			fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
		}
		b.WriteString("\n")
	}
	for _, k := range r.keys {
		if n := r.byKey[k]; n >= con.Max {
			fmt.Fprintf(&b, "- Constraint check: Maximum calls to %s reached (%d/%d)\n", k, n, con.Max)
		} else {
			fmt.Fprintf(&b, "- Constraint check: %d of %d calls to %s used\n", n, con.Max, k)
		}
	}
	fmt.Fprintf(&b, "- Current time: %s\n", step.Time)
	if t := r.l.Status.Todo; t != "" {
		fmt.Fprintf(&b, "- TODO: [1] %s (in_progress)\n", t)
	}
	b.WriteString("</agent_status>")
	return b.String()
}

func (r *statusRun) emit(step StatusStep, kind FrameKind, req []Block, cache Cache) {
	keys := []string{}
	if r.p.Clock {
		keys = append(keys, step.ID+"@clock")
	}
	if r.p.Status != "" && r.p.Status != "off" {
		keys = append(keys, step.ID+"@"+r.p.Status)
	}
	if r.p.Counter {
		keys = append(keys, step.ID+"@counter")
	}
	keys = append(keys, step.ID)
	var prev map[string]bool
	if n := len(r.frames); n > 0 {
		prev = map[string]bool{}
		for _, b := range r.frames[n-1].Blocks {
			prev[b.ID] = true
		}
	}
	total := 0
	for j := range req {
		total += req[j].Tokens
		req[j].New = prev == nil || !prev[req[j].ID]
	}
	c := cache
	r.frames = append(r.frames, Frame{
		Step: len(r.frames) + 1, Kind: kind, TraceStep: step.ID, Narration: keys,
		Blocks: req, Total: total, Session: 1, Events: r.events, Cache: &c, Decisive: kind == FrameDecision,
	})
	r.events = nil
}

// compareCache finds the longest prefix of req that the provider cached
// from the previous call (same block, same text) and what that leaves to
// recompute.
func compareCache(cached, req []Block, first bool) Cache {
	var c Cache
	n := 0
	for n < len(req) && n < len(cached) && req[n].ID == cached[n].ID && req[n].Content == cached[n].Content {
		c.ReusedTokens += req[n].Tokens
		n++
	}
	c.ReusedBlocks = n
	inCache := map[string]string{}
	for _, b := range cached[n:] {
		inCache[b.ID] = b.Content
	}
	for _, b := range req[n:] {
		c.RecomputedTokens += b.Tokens
		if text, ok := inCache[b.ID]; ok && text == b.Content {
			c.InvalidatedTokens += b.Tokens
		}
	}
	for _, b := range req[:max(len(req)-1, 0)] {
		if b.Kind == KindStatus {
			c.OldStatusTokens += b.Tokens
		}
	}
	if n < len(req) {
		c.FirstChanged = req[n].ID
	}
	switch {
	case first:
		c.Reason = CacheCold
	case n == 0 && len(req) > 0 && req[0].ID == "system":
		c.Reason = CacheSystemChanged
	case n < len(cached) && cached[n].Kind == KindStatus:
		c.Reason = CacheStatusReplaced
	case n < len(cached):
		c.Reason = CacheRewritten
	default:
		c.Reason = CacheAppend
	}
	return c
}

// Ordinal spells 1 as "1st", 2 as "2nd", 3 as "3rd", 4 as "4th" and so on.
func Ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// CostModel is the replace-versus-append estimate from the source, with the
// same costs measured from the simulated frames of this trajectory.
type CostModel struct {
	S, R             float64 // mean status tokens; mean tokens appended between updates
	N                int     // status updates (model calls with a status)
	Alpha            float64 // cached-input price ratio
	CReplace         float64 // (N-1)(1-α)R
	CAppend          float64 // αSN(N-1)/2
	MeasuredReplace  float64 // Σ (1-α) × cached tokens recomputed, from the replace run
	MeasuredAppend   float64 // Σ α × earlier status tokens in each request, from the append run
	AppendWins       bool    // αSN/2 < (1-α)R
	MeasuredAppendOK bool    // measured append < measured replace
}

// StatusCostModel runs l under replace and append (counter and clock as in
// p) and returns the formula and the measured costs, in tokens of normal
// input price.
func StatusCostModel(l *Lesson, p Policy, tok Tokenizer) CostModel {
	alpha := float64(p.AlphaPercent) / 100
	rp, ap := p, p
	rp.Status, ap.Status = "replace", "append"
	repl, app := runStatus(l, rp, tok), runStatus(l, ap, tok)
	m := CostModel{Alpha: alpha}
	var sTotal, rTotal float64
	for i, f := range app {
		for _, b := range f.Blocks {
			if b.Kind == KindStatus && b.ID == fmt.Sprintf("status-%d", i+1) {
				sTotal += float64(b.Tokens)
				m.N++
			}
		}
		m.MeasuredAppend += alpha * float64(f.Cache.OldStatusTokens)
	}
	for i, f := range repl {
		m.MeasuredReplace += (1 - alpha) * float64(f.Cache.InvalidatedTokens)
		if i == 0 {
			continue
		}
		// R: what the conversation gained between the previous update and
		// this one (everything but the statuses).
		rTotal += float64(conversationTokens(f.Blocks) - conversationTokens(repl[i-1].Blocks))
	}
	if m.N > 0 {
		m.S = sTotal / float64(m.N)
	}
	if m.N > 1 {
		m.R = rTotal / float64(m.N-1)
	}
	n := float64(m.N)
	m.CReplace = (n - 1) * (1 - alpha) * m.R
	m.CAppend = alpha * m.S * n * (n - 1) / 2
	m.AppendWins = alpha*m.S*n/2 < (1-alpha)*m.R
	m.MeasuredAppendOK = m.MeasuredAppend < m.MeasuredReplace
	return m
}

func conversationTokens(bs []Block) int {
	n := 0
	for _, b := range bs {
		if b.Kind != KindStatus && b.Kind != KindPrompt {
			n += b.Tokens
		}
	}
	return n
}
