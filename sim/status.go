package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Constraint is a rule a status bar checks: at most Max calls of Tool per
// value of its Key argument ("company").
type Constraint struct {
	Tool string
	Key  string
	Max  int
}

// StatusBar is the status_bar mechanism: before each model call, code
// derives a status from the trajectory so far and injects it as a
// user-role message at the tail, either replacing the previous one or
// appending to the old ones. The model trusts it almost blindly, so code,
// not the model, computes every figure.
//
// Its fields are its configuration as a lesson file gives it
// (mechanisms.status_bar) but Cost, which the loader declares from the
// lesson's other mechanisms (CostOf).
type StatusBar struct {
	Constraint Constraint
	Todo       string // the TODO item the bar reports
	// Cost is what the replace-versus-append cost model reads; nil: the
	// lesson has no cost model (it does not price the cache).
	Cost *CostInputs `yaml:"-"`
}

// CostInputs are the parameters of other mechanisms the status bar's cost
// model reads, declared when the lesson is built: the cached-input price,
// in percent of the input price, and the switches its two runs turn off
// (a clock in the system prompt recomputes everything under both
// policies: a cost common to both, noted beside the model).
type CostInputs struct {
	Price string   // a parameter holding a percent (the prompt cache's alpha)
	Off   []string // on/off parameters set off in both runs
}

// CostOf declares the status bar's cost model from the mechanisms of a
// lesson: priced by a prompt cache that has a price, with its clock, if
// any, turned off. It returns nil when no mechanism prices the cache.
func CostOf(ms []Mechanism) *CostInputs {
	var c CostInputs
	for _, m := range ms {
		switch m := m.(type) {
		case PromptCache:
			if ps := m.Params(); m.Pricing && len(ps) > 0 {
				c.Price = ps[0].Name
			}
		case Clock:
			c.Off = append(c.Off, m.Params()[0].Name)
		}
	}
	if c.Price == "" {
		return nil
	}
	return &c
}

// statusID is the block id of the nth status the bar injects.
func statusID(n int) string { return "status-" + strconv.Itoa(n) }

// Name is "status_bar".
func (StatusBar) Name() string { return "status_bar" }

// Params is status off/replace/append.
func (StatusBar) Params() []Param {
	return []Param{{Name: "status", Choices: []string{"off", "replace", "append"}, Default: "off"}}
}

func (s StatusBar) start(h *harness) hooks {
	return &statusRun{cfg: s, mode: h.p.Get("status"), tally: newTally(s.Constraint)}
}

type statusRun struct {
	base
	cfg   StatusBar
	mode  string
	tally *tally
	calls int
}

// beforeCall removes the old status (replace) and adds the new one.
func (r *statusRun) beforeCall(h *harness) {
	r.calls++
	if r.mode == "off" {
		return
	}
	if r.mode == "replace" {
		h.msgs = slices.DeleteFunc(h.msgs, func(b Block) bool {
			if b.Kind == KindStatus {
				h.event(Event{Type: EventStatusRemoved, Block: b.ID})
				return true
			}
			return false
		})
	}
	text, headline := r.text(h.cur.Time)
	b := h.textBlock(statusID(r.calls), RoleUser, KindStatus, text)
	b.Label, b.LabelKey = Text{Fallback: headline}, "block.status"
	h.msgs = append(h.msgs, b)
	h.event(Event{Type: EventStatusInjected, Block: b.ID, Tokens: b.Tokens})
}

// result counts the tool calls the bar reports.
func (r *statusRun) result(h *harness, b *Block, _ *Message) { r.tally.add(b, h.callOf(b)) }

// text derives the status from the trajectory so far, and its headline:
// the constraint check (what the bar is for), or the first line.
func (r *statusRun) text(time string) (string, string) {
	t, con := r.tally, r.cfg.Constraint
	var b strings.Builder
	headline := ""
	b.WriteString("<agent_status>\nCurrent state:\n")
	if len(t.order) == 0 {
		b.WriteString("- Tool call summary: no tools called yet\n")
		headline = "no tools called yet"
	}
	for _, tool := range t.order {
		fmt.Fprintf(&b, "- Tool call summary: '%s' has been invoked %d times", tool, t.calls[tool])
		if tool == con.Tool && len(t.keys) > 0 {
			var parts []string
			for _, k := range t.keys {
				parts = append(parts, fmt.Sprintf("%s: %d times", k, t.byKey[k]))
			}
			fmt.Fprintf(&b, " (%s)", strings.Join(parts, ", "))
		}
		b.WriteString("\n")
	}
	for _, k := range t.keys {
		line := fmt.Sprintf("%d of %d calls to %s used", t.byKey[k], con.Max, k)
		if n := t.byKey[k]; n >= con.Max {
			line = fmt.Sprintf("Maximum calls to %s reached (%d/%d)", k, n, con.Max)
		}
		fmt.Fprintf(&b, "- Constraint check: %s\n", line)
		headline = line
	}
	if headline == "" && len(t.order) > 0 {
		headline = fmt.Sprintf("'%s' invoked %d times", t.order[0], t.calls[t.order[0]])
	}
	fmt.Fprintf(&b, "- Current time: %s\n", time)
	if r.cfg.Todo != "" {
		fmt.Fprintf(&b, "- TODO: [1] %s (in_progress)\n", r.cfg.Todo)
	}
	b.WriteString("</agent_status>")
	return b.String(), headline
}

// frame tags every frame with the mode, badges status blocks as written by
// code and pairs tool calls with their results.
func (r *statusRun) frame(h *harness, f *Frame, fc frameCtx) {
	if r.mode != "off" {
		*fc.tags = append(*fc.tags, r.mode)
	}
	statuses, stokens := 0, 0
	for _, b := range f.Blocks() {
		if b.Kind == KindStatus {
			statuses++
			stokens += b.Tokens
		}
	}
	most := 0
	for _, k := range r.tally.keys {
		most = max(most, r.tally.byKey[k])
	}
	f.Figures = append(f.Figures, count("statuses", statuses), tokens("status-tokens", stokens),
		count("limit-calls", most), count("limit", r.cfg.Constraint.Max), count("calls", r.calls))
	if statuses > 0 {
		f.Figures = append(f.Figures, tokens("status-size", f.Blocks()[len(f.Blocks())-1].Tokens))
	}
	bs := f.Blocks()
	for i := range bs {
		b := &bs[i]
		switch {
		case b.Kind == KindStatus:
			b.Badges = append(b.Badges, Badge{Key: "by-code", Tone: "warn"})
		case b.ToolUseID != "":
			b.Badges = append(b.Badges, Badge{Key: "pair", Args: []Figure{text("id", shortID(b.ToolUseID))}, Tone: "info"})
		}
	}
}

// finish adds the replace-versus-append cost model, priced at the lesson's
// cached-input ratio.
func (r *statusRun) finish(h *harness, rp *Replay) {
	in := r.cfg.Cost
	if in == nil {
		return
	}
	cm := statusCostModel(h.l, h.p, *in, h.tok)
	rp.Fields = append(rp.Fields,
		Field{Name: "cost_model", Value: []Field{{"S", round2(cm.S)}, {"R", round2(cm.R)}, {"N", cm.N}, {"alpha", cm.Alpha},
			{"c_replace", round2(cm.CReplace)}, {"c_append", round2(cm.CAppend)}}},
		Field{Name: "measured", Value: []Field{{"c_replace", round2(cm.MeasuredReplace)}, {"c_append", round2(cm.MeasuredAppend)}}})
	rp.Panels = append(rp.Panels, cm.panel(slices.ContainsFunc(in.Off, h.p.On)))
	num := func(name string, v float64) Figure {
		return Figure{Name: name, Value: int(math.Round(v)), Unit: UnitRounded}
	}
	rp.Figures = append(rp.Figures, num("cost-s", cm.S), num("cost-r", cm.R), count("cost-n", cm.N),
		Figure{Name: "cost-alpha", Value: int(math.Round(cm.Alpha * 1000)), Unit: UnitRatio},
		num("cost-replace", cm.CReplace), num("cost-append", cm.CAppend),
		num("measured-replace", cm.MeasuredReplace), num("measured-append", cm.MeasuredAppend))
	if cm.AppendWins {
		rp.Figures = append(rp.Figures, count("formula-append-wins", 1))
	}
	if cm.MeasuredAppendOK {
		rp.Figures = append(rp.Figures, count("measured-append-wins", 1))
	}
}

// shortID shortens a tool_use id for a badge: "01" for toolu_01.
func shortID(id string) string {
	if i := strings.LastIndexAny(id, "_-"); i >= 0 && i+1 < len(id) {
		return id[i+1:]
	}
	return id
}

// tally counts tool calls by tool and by the constraint's key.
type tally struct {
	con   Constraint
	calls map[string]int
	byKey map[string]int
	order []string // tools in first-call order
	keys  []string // key values in first-call order
}

func newTally(con Constraint) *tally {
	return &tally{con: con, calls: map[string]int{}, byKey: map[string]int{}}
}

// add counts the call of result b; it returns the key value ("" if none).
func (t *tally) add(b, call *Block) string {
	t.calls[b.Tool]++
	if t.calls[b.Tool] == 1 {
		t.order = append(t.order, b.Tool)
	}
	key := ""
	if b.Tool == t.con.Tool && call != nil {
		key = argValue(call.Args, t.con.Key)
	}
	if key != "" {
		t.byKey[key]++
		if t.byKey[key] == 1 {
			t.keys = append(t.keys, key)
		}
	}
	return key
}

// argValue reads a string argument from compact JSON arguments.
func argValue(args, key string) string {
	_, rest, ok := strings.Cut(args, `"`+key+`":"`)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, `"`)
	return v
}

// ToolCounter is the counter mechanism: code writes the repeat count into
// each tool result ("[Tool call #3 for 'phone_call': the 3rd call to
// Xfinity]").
type ToolCounter struct {
	Constraint Constraint
}

// Name is "counter".
func (ToolCounter) Name() string { return "counter" }

// Params is counter on/off.
func (ToolCounter) Params() []Param { return []Param{onOff("counter", "off")} }

func (c ToolCounter) start(h *harness) hooks {
	return &counterRun{on: h.p.On("counter"), tally: newTally(c.Constraint)}
}

type counterRun struct {
	base
	on    bool
	tally *tally
}

// result appends the repeat count to the tool's result.
func (r *counterRun) result(h *harness, b *Block, _ *Message) {
	key := r.tally.add(b, h.callOf(b))
	if !r.on {
		return
	}
	line := fmt.Sprintf("[Tool call #%d for '%s']", r.tally.calls[b.Tool], b.Tool)
	if key != "" {
		line = fmt.Sprintf("[Tool call #%d for '%s': the %s call to %s]", r.tally.calls[b.Tool], b.Tool, Ordinal(r.tally.byKey[key]), key)
	}
	b.Content += "\n" + line
	b.Tokens = h.count(b.Content)
}

func (r *counterRun) frame(_ *harness, _ *Frame, fc frameCtx) {
	if r.on {
		*fc.tags = append(*fc.tags, "counter")
	}
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

// Clock is the clock mechanism, the anti-pattern: "Current time: …" at the
// end of the system prompt, the time of each model call.
type Clock struct{}

// Name is "clock".
func (Clock) Name() string { return "clock" }

// Params is clock on/off.
func (Clock) Params() []Param { return []Param{onOff("clock", "off")} }

func (Clock) start(h *harness) hooks { return &clockRun{on: h.p.On("clock")} }

type clockRun struct {
	base
	on bool
}

// beforeCall writes the call's time into the system prompt.
func (r *clockRun) beforeCall(h *harness) {
	if !r.on || h.system == nil {
		return
	}
	b := h.blockOf(h.l.System)
	b.ID, b.Role, b.Kind = "system", RoleSystem, KindPrompt
	b.Content += "\n\nCurrent time: " + h.cur.Time
	b.Tokens = h.count(b.Content)
	b.LabelKey = "block.system-clock"
	h.system = &b
}

func (r *clockRun) frame(_ *harness, _ *Frame, fc frameCtx) {
	if r.on {
		*fc.tags = append(*fc.tags, "clock")
	}
}

// costModel is the replace-versus-append estimate from the source, with
// the same costs measured from the simulated frames of this trajectory.
type costModel struct {
	S, R             float64 // mean status tokens; mean tokens appended between updates
	N                int     // status updates (model calls with a status)
	Alpha            float64 // cached-input price ratio
	CReplace         float64 // (N-1)(1-α)R
	CAppend          float64 // αSN(N-1)/2
	MeasuredReplace  float64 // Σ (1-α) × cached tokens recomputed, from the replace run
	MeasuredAppend   float64 // Σ α × earlier status tokens in each request, from the append run
	Left, Right      float64 // αSN/2 and (1-α)R
	AppendWins       bool    // αSN/2 < (1-α)R
	MeasuredAppendOK bool    // measured append < measured replace
}

// statusCostModel runs l under replace and append (the other parameters
// as in p but those in.Off, off: with a clock in the system prompt both
// recompute everything, a cost common to both) and prices them at p's
// value of in.Price.
func statusCostModel(l *Lesson, p Policy, in CostInputs, tok Tokenizer) costModel {
	alpha := float64(p.Int(in.Price)) / 100
	rp := withParam(l, p, "status", "replace")
	for _, name := range in.Off {
		rp = withParam(l, rp, name, "off")
	}
	ap := withParam(l, rp, "status", "append")
	repl, app := replayFrames(l, rp, tok), replayFrames(l, ap, tok)
	m := costModel{Alpha: alpha}
	var sTotal, rTotal float64
	for i, f := range app {
		for _, b := range f.Blocks() {
			if b.Kind == KindStatus && b.ID == statusID(i+1) {
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
		rTotal += float64(conversationTokens(f.Blocks()) - conversationTokens(repl[i-1].Blocks()))
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
	m.Left, m.Right = alpha*m.S*n/2, (1-alpha)*m.R
	m.AppendWins = m.Left < m.Right
	m.MeasuredAppendOK = m.MeasuredAppend < m.MeasuredReplace
	return m
}

// withParam sets a parameter the lesson has; p is unchanged otherwise.
func withParam(l *Lesson, p Policy, name, v string) Policy {
	if q, err := l.With(p, name, v); err == nil {
		return q
	}
	return p
}

// replayFrames runs a policy built from another valid one; it cannot fail.
func replayFrames(l *Lesson, p Policy, tok Tokenizer) []Frame { return replay(l, p, tok).frames }

func conversationTokens(bs []Block) int {
	n := 0
	for _, b := range bs {
		if b.Kind != KindStatus && b.Kind != KindPrompt {
			n += b.Tokens
		}
	}
	return n
}

// panel is the cost model as a panel. The comparison sign is the one that
// holds.
func (m costModel) panel(clock bool) Panel {
	num := func(name string, v float64) Figure {
		return Figure{Name: name, Value: int(math.Round(v)), Unit: UnitRounded}
	}
	left, right := num("left", m.Left), num("right", m.Right)
	if left.Value == right.Value && m.Left != m.Right {
		// Equal when rounded, not equal: one decimal shows which is larger.
		left = Figure{Name: "left", Value: int(math.Round(m.Left * 10)), Unit: UnitTenths}
		right = Figure{Name: "right", Value: int(math.Round(m.Right * 10)), Unit: UnitTenths}
	}
	sign := "="
	switch {
	case left.Value < right.Value:
		sign = "<"
	case left.Value > right.Value:
		sign = ">"
	}
	formula, measured := "replace", "replace"
	if m.AppendWins {
		formula = "append"
	}
	if m.MeasuredAppendOK {
		measured = "append"
	}
	p := Panel{ID: "cost", Tone: "warn", Section: "panel:cost", Rows: []Row{
		{Key: "inputs", Values: []Figure{num("S", m.S), num("R", m.R), count("N", m.N), {Name: "alpha", Value: int(math.Round(m.Alpha * 1000)), Unit: UnitRatio}}},
		{Key: "replace", Values: []Figure{num("c", m.CReplace)}, Note: &Msg{Key: "cost.measured", Args: []Figure{num("m", m.MeasuredReplace)}}},
		{Key: "append", Values: []Figure{num("c", m.CAppend)}, Note: &Msg{Key: "cost.measured", Args: []Figure{num("m", m.MeasuredAppend)}}},
		{Key: "rule", Values: []Figure{left, text("sign", sign), right},
			Note: &Msg{Key: "cost.verdict." + formula + "." + measured}, Emph: true},
	}}
	if clock {
		p.Notes = append(p.Notes, Msg{Key: "cost.clock"})
	}
	p.Notes = append(p.Notes, Msg{Key: "cost.note"})
	return p
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
