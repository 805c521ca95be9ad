package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Tiered is the tiered compressor: it starts before the first model call
// whose request is above the pressure line and from then on runs before
// every model call. Each pass classifies the tool results it has not
// touched before by their distance from the tail (the number of tool
// results after them), once: Tier 3 stays untouched, Tier 2 becomes a
// summary or a head + tail excerpt, Tier 1 becomes a metadata stub.
// Its fields are its configuration as a lesson file gives it
// (mechanisms.tiered), in the order written.
type Tiered struct {
	Pressure int `yaml:"pressure"` // tokens, in the lesson's window (a smaller window of a Limit scales it)
	// Optional: a replay may do without the compressor. The strategy
	// parameter then offers "off" (the default) beside tiered and age, and
	// the floor, summarizer and budget are fixed (on, ok, attempts): an
	// imported session is replayed as it happened unless asked otherwise.
	Optional bool      `yaml:"optional"`
	Rules    TierRules `yaml:"rules"`
	// SummaryProvenance says where the Tier 2 summaries' texts come from.
	SummaryProvenance Text `yaml:"summary_provenance"`
}

// TierRules are the compressor's constants. The lesson's values are one
// public snapshot of an implementation, not a contract.
type TierRules struct {
	KeepRecent         int      `yaml:"keep_recent"`              // Tier 3: results at a distance under this stay untouched
	Tier1Distance      int      `yaml:"tier1_distance"`           // results first touched at this distance or more go to Tier 1
	SemanticMinChars   int      `yaml:"semantic_min_chars"`       // Tier 2 results over this many characters get a model summary
	ExcerptChars       int      `yaml:"excerpt_chars"`            // Tier 2 head + tail keeps this many characters
	HeadPercent        int      `yaml:"head_percent"`             // the head's share of ExcerptChars
	MaxSemanticPerPass int      `yaml:"max_semantic_per_pass"`    // model summaries per pass (counted on attempts or successes)
	ArgsChars          int      `yaml:"args_chars"`               // a Tier 1 stub keeps this many characters of the arguments
	FloorTools         []string `yaml:"floor_tools"`              // never below Tier 2 while the floor is on
	FloorPrefixes      []string `yaml:"floor_prefixes,omitempty"` // the same, by name prefix ("browser_")
	SkipTools          []string `yaml:"skip_tools,omitempty"`     // besides floor tools: never summarized by a model, only cut
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

// Name is "tiered".
func (Tiered) Name() string { return "tiered" }

// Params are the strategy (tiered, or age: the naive baseline), the floor,
// a working or broken summarizer, and what the semantic budget counts.
func (t Tiered) Params() []Param {
	if t.Optional {
		return []Param{{Name: "strategy", Choices: []string{"off", "tiered", "age"}, Default: "off"}}
	}
	return []Param{
		{Name: "strategy", Choices: []string{"tiered", "age"}, Default: "tiered"},
		onOff("floor", "on"),
		{Name: "summarizer", Choices: []string{"ok", "broken"}, Default: "ok"},
		{Name: "budget", Choices: []string{"attempts", "successes"}, Default: "attempts"},
	}
}

func (t Tiered) start(h *harness) hooks {
	if h.p.Get("strategy") == "off" {
		return base{}
	}
	h.declare("tokens_saved", "compression_calls", "rereads", "round_trips")
	h.declareBy("cache_invalidations", "cache_invalidations_by_tier")
	r := &tieredRun{cfg: t, rules: t.Rules, age: h.p.Get("strategy") == "age", floor: h.p.On("floor"),
		summarizerOK: h.p.Get("summarizer") == "ok", successes: h.p.Get("budget") == "successes"}
	if t.Optional {
		r.floor, r.summarizerOK, r.successes = true, true, false
	}
	r.pressure = t.Pressure
	if w := windowOf(h.l, h.p); w < h.l.Window {
		r.pressure = int(int64(t.Pressure) * int64(w) / int64(h.l.Window))
	}
	return r
}

type tieredRun struct {
	base
	cfg          Tiered
	rules        TierRules
	age          bool
	floor        bool
	summarizerOK bool
	successes    bool

	pressure  int  // the pressure line in this run's window
	latched   bool // the compressor has started
	staleRead bool // a pass since the last frame stubbed a file read
	reads     map[string]bool
	sized     map[string]sized  // characters of each result, by block id
	summaries map[string]string // Tier 2 texts of the trace, by tool_use id
	// failed and back are the failed semantic calls and the tokens re-reads
	// brought back, over the frames emitted so far.
	failed, back int
}

// sized is a text and its characters.
type sized struct {
	text  string
	chars int
}

// chars is the characters of a result's content. Every frame carries the
// count of every result, and most results are unchanged since the last
// frame, so counts are kept by block until the content changes.
func (r *tieredRun) chars(b *Block) int {
	if s, ok := r.sized[b.ID]; ok && s.text == b.Content {
		return s.chars
	}
	if r.sized == nil {
		r.sized = map[string]sized{}
	}
	n := runeCount(b.Content)
	r.sized[b.ID] = sized{b.Content, n}
	return n
}

// sessionStart: a new session is a new conversation; the compressor starts
// again at its first request above the pressure line.
func (r *tieredRun) sessionStart(*harness) { r.latched, r.staleRead = false, false }

// result remembers which results are file reads (a stub of one is stale).
func (r *tieredRun) result(_ *harness, b *Block, m *Message) {
	if m.Op != nil && m.Op.Op == OpRead {
		if r.reads == nil {
			r.reads = map[string]bool{}
		}
		r.reads[b.ID] = true
	}
}

// afterResult starts the compressor at the first request above the
// pressure line, then passes before every call.
func (r *tieredRun) afterResult(h *harness) {
	if r.latched {
		r.pass(h)
		return
	}
	if h.total() <= r.pressure {
		return
	}
	r.latched = true
	h.event(Event{Type: EventPressure, Tokens: h.total()})
	n := len(h.frames)
	h.showPart()
	if len(h.frames) > n {
		h.frames[n].Decisive = true
	}
	r.pass(h)
	f := h.emit(FramePass, PassKey(1), frameCtx{})
	f.Decisive = true
}

// pass is one compression pass over the results not touched before.
func (r *tieredRun) pass(h *harness) {
	results := 0
	for _, b := range h.msgs {
		if b.Role == RoleTool {
			results++
		}
	}
	seen, removed := 0, 0
	budget := budget{}
	// Filtered in place: a result is written at or before its own index,
	// after every message before it was read, so the calls stub looks up
	// are still there. Blocks are moved only once one was removed.
	w := 0
	keep := func(i int) {
		if w != i {
			h.msgs[w] = h.msgs[i]
		}
		w++
	}
	for i := range h.msgs {
		b := &h.msgs[i]
		if b.Role != RoleTool {
			keep(i)
			continue
		}
		d := results - 1 - seen
		seen++
		idx := i - removed // messages.N after this pass: the header holds no messages
		if d < r.rules.KeepRecent || b.tier != 0 {
			keep(i) // Tier 3, or classified before: its bytes never change again
			continue
		}
		floor := r.floor && r.rules.IsFloorTool(b.Tool)
		if r.age || (d >= r.rules.Tier1Distance && !floor) {
			if h.breaksPairs() {
				// The bug pairs: broken shows: the result is deleted while
				// its call stays.
				removed++
				h.bump("tokens_saved", b.Tokens)
				h.bumpBy("cache_invalidations", "1", 1)
				h.event(Event{Type: EventCacheCompaction, Tier: 1, Index: &idx, Block: b.ID, Tokens: b.Tokens, Reason: "dropped"})
				continue
			}
			r.rewrite(h, b, r.stub(h, *b), KindStub, 1, idx)
			b.Origin = &Msg{Key: "stub", Args: []Figure{count("args", r.rules.ArgsChars)}}
			if r.reads[b.ID] {
				r.staleRead = true
			}
			keep(i)
			continue
		}
		r.tier2(h, b, idx, &budget)
		keep(i)
	}
	h.msgs = h.msgs[:w]
}

// budget counts a pass's semantic compressions.
type budget struct{ tries, wins int }

// tier2 compresses one result to Tier 2: a model summary when it is large
// and the budget allows, else head + tail.
func (r *tieredRun) tier2(h *harness, b *Block, idx int, bg *budget) {
	chars := r.chars(b)
	// A replay without Tier 2 texts (a recorded session) has no model to
	// call: its results are cut, and no call is counted.
	noModel := r.cfg.Optional && r.summaryOf(h, b.ToolUseID) == ""
	if chars > r.rules.SemanticMinChars && r.rules.Summarizable(b.Tool) && !noModel {
		spent := bg.tries
		if r.successes {
			spent = bg.wins
		}
		if spent < r.rules.MaxSemanticPerPass {
			bg.tries++
			h.bump("compression_calls", 1)
			summary := r.summaryOf(h, b.ToolUseID)
			if r.summarizerOK && summary != "" {
				bg.wins++
				h.event(Event{Type: EventSemanticCall, Tier: 2, Block: b.ID, Reason: "ok"})
				r.rewrite(h, b, summary, KindSummary, 2, idx)
				b.Summary = &SummaryOf{Covers: []string{b.ID}, Provenance: r.cfg.SummaryProvenance}
				b.Origin = nil
				return
			}
			h.event(Event{Type: EventSemanticCall, Tier: 2, Block: b.ID, Reason: "failed"})
			if r.successes {
				// The budget never sees a failure: the result stays as it
				// is, untouched, and the next pass calls the model again.
				return
			}
		}
	}
	if chars <= r.rules.ExcerptChars {
		b.tier = 2 // classified; nothing to cut, so no bytes change
		return
	}
	r.rewrite(h, b, HeadTail(b.Content, r.rules.ExcerptChars, r.rules.HeadPercent), KindExcerpt, 2, idx)
	b.Origin = &Msg{Key: "excerpt", Args: []Figure{count("chars", r.rules.ExcerptChars),
		percent("head", r.rules.HeadPercent), percent("tail", 100-r.rules.HeadPercent)}}
}

// summaryOf is the summary the trace gives for a result.
func (r *tieredRun) summaryOf(h *harness, toolUseID string) string {
	if r.summaries == nil {
		r.summaries = map[string]string{}
		for _, st := range h.l.Trace {
			for _, m := range st.Messages {
				if m.Role == RoleTool && m.Summary != "" {
					r.summaries[m.ToolUseID] = m.Summary
				}
			}
		}
	}
	return r.summaries[toolUseID]
}

// rewrite replaces a result's content in place: the prompt cache is
// invalidated from that message on, so every rewrite is an event.
func (r *tieredRun) rewrite(h *harness, b *Block, content string, kind Kind, tier, idx int) {
	before := b.Tokens
	b.Content, b.Kind, b.tier = content, kind, int8(tier)
	b.Tokens = h.count(content)
	saved := before - b.Tokens
	h.bump("tokens_saved", saved)
	h.bumpBy("cache_invalidations", strconv.Itoa(tier), 1)
	h.event(Event{Type: EventCacheCompaction, Tier: tier, Index: &idx, Block: b.ID, Tokens: saved, Reason: string(kind)})
}

// stub is a Tier 1 result: what was called, with what, and how big the
// result was. Enough to know what happened, not to rebuild it.
func (r *tieredRun) stub(h *harness, b Block) string {
	args := ""
	for i := range h.msgs {
		if x := &h.msgs[i]; x.Kind == KindToolCall && x.ToolUseID == b.ToolUseID {
			args = x.Args
		}
	}
	return Stub(b.Tool, args, runeCount(b.Content), r.rules.ArgsChars)
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

// tags are the narration variants of the policy, most specific first.
func (r *tieredRun) tags() []string {
	if r.age {
		return []string{"age"}
	}
	var t []string
	if !r.summarizerOK {
		if r.successes {
			t = append(t, "runaway")
		} else {
			t = append(t, "broken")
		}
	}
	if !r.floor {
		t = append(t, "floor-off")
	}
	return t
}

// frame annotates tool results with their characters, tier and distance,
// badges them, adds the pressure line, the legend, the counters and the
// pass panels, and tags the frame with the policy.
func (r *tieredRun) frame(h *harness, f *Frame, fc frameCtx) {
	if !fc.own {
		*fc.tags = append(*fc.tags, r.tags()...)
	}
	if fc.finish && r.staleRead {
		f.Decisive = true // a pass stripped a file read: the agent will have to read it again
	}
	r.staleRead = false
	f.Line = Line{Tokens: r.pressure, Key: "line.pressure"}
	f.Alert = f.Total > r.pressure
	f.Figures = append(f.Figures, tokens("pressure", r.pressure))
	r.figures(f)
	rewritten := map[string]Event{}
	for _, e := range f.Events {
		if e.Type == EventCacheCompaction {
			rewritten[e.Block] = e
		}
		if e.Type == EventPressure {
			f.Legend = "legend.pressure-crossed"
		}
	}
	if !r.latched {
		f.Legend = "legend.pressure-off"
	}
	r.annotate(f, rewritten)
	f.Panels = append(f.Panels, r.countersPanel(h, f))
	if p, ok := r.passPanel(f, rewritten); ok {
		f.Panels = append(f.Panels, p)
	}
}

// figures are the counters and this frame's pass, for narration.
func (r *tieredRun) figures(f *Frame) {
	for _, c := range f.Counters {
		u := UnitCount
		if c.Name == "tokens_saved" {
			u = UnitTokens
		}
		f.Figures = append(f.Figures, Figure{Name: strings.ReplaceAll(c.Name, "_", "-"), Value: c.Value, Unit: u})
	}
	stubs, tier2, saved, calls, failed := 0, 0, 0, 0, 0
	for _, e := range f.Events {
		switch {
		case e.Type == EventCacheCompaction && e.Tier == 1:
			stubs++
			saved += e.Tokens
		case e.Type == EventCacheCompaction:
			tier2++
			saved += e.Tokens
		case e.Type == EventSemanticCall:
			calls++
			if e.Reason == "failed" {
				failed++
			}
		}
	}
	f.Figures = append(f.Figures, count("rewrites", stubs+tier2), count("stubs", stubs), count("tier2", tier2),
		tokens("pass-saved", saved), count("pass-calls", calls), count("pass-failed", failed))
	if r.latched {
		f.Figures = append(f.Figures, count("latched", 1))
	}
}

// annotate gives tool results their attributes and badges. A result's
// distance (how many results came after it) changes at every frame, so it
// is not written here: the attribute and the badge that show it are
// placeholders a frame's reader fills in (withDistances), and a result's
// annotated copy stays the same from frame to frame until its tier, the
// latch or a rewrite changes it: the frames share it.
func (r *tieredRun) annotate(f *Frame, rewritten map[string]Event) {
	bs := f.Blocks()
	for i := range bs {
		b := &bs[i]
		if b.Role != RoleTool {
			continue
		}
		b.Attrs = append(b.Attrs, Attr{"chars", r.chars(b)}, Attr{"tier", int(b.tier)}, Attr{"distance", distanceHere})
		floor := !r.age && r.floor && r.rules.IsFloorTool(b.Tool)
		tone := ""
		switch {
		case floor:
			tone = "ok"
		case b.tier == 1:
			tone = "warn"
		case b.tier == 2:
			tone = "info"
		}
		latched := 0
		if r.latched {
			latched = 1
		}
		b.Badges = append(b.Badges, Badge{Key: distanceBadge, Tone: tone,
			Args: []Figure{count("tier", int(b.tier)), count("keep", r.rules.KeepRecent), count("latched", latched)}})
		if floor {
			b.Badges = append(b.Badges, Badge{Key: "floor", Tone: "ok", Minor: true})
		}
		if e, ok := rewritten[b.ID]; ok {
			b.Touched = true
			if len(rewritten) <= 3 {
				b.Badges = append(b.Badges, Badge{Key: "cache-cut", Args: []Figure{count("tier", e.Tier)}, Tone: "warn", Minor: true})
			}
			if b.Kind == KindSummary && e.Reason == string(KindSummary) {
				b.Spotlight = true // a new Tier 2 summary: its text beside the window
			}
		}
	}
}

// distanceHere is the value of a "distance" attribute a frame's reader
// fills in, and distanceBadge the key of the badge it makes from the
// result's tier, the rules' keep_recent and the latch (annotate).
const (
	distanceHere  = math.MinInt32
	distanceBadge = "\x00distance"
)

// hasDistance reports whether b holds placeholders of its distance.
func hasDistance(b *Block) bool {
	for _, a := range b.Attrs {
		if a.Value == distanceHere {
			return true
		}
	}
	return false
}

// withDistance fills in b's distance d where annotate left placeholders,
// on copies of its lists (the frames share them).
func withDistance(b *Block, d int) {
	b.Attrs = slices.Clone(b.Attrs)
	for i := range b.Attrs {
		if b.Attrs[i].Value == distanceHere {
			b.Attrs[i].Value = d
		}
	}
	b.Badges = slices.Clone(b.Badges)
	for i, bd := range b.Badges {
		if bd.Key != distanceBadge {
			continue
		}
		tier, keep, latched := bd.Args[0].Value, bd.Args[1].Value, bd.Args[2].Value == 1
		dist := count("d", d)
		switch {
		case tier > 0:
			b.Badges[i] = Badge{Key: "tier", Args: []Figure{count("tier", tier), dist}, Tone: bd.Tone}
		case d < keep:
			b.Badges[i] = Badge{Key: "tier", Args: []Figure{count("tier", 3), dist}, Tone: "muted"}
		case latched:
			b.Badges[i] = Badge{Key: "untouched-on", Args: []Figure{dist}, Tone: "warn"}
		default:
			b.Badges[i] = Badge{Key: "distance", Args: []Figure{dist}, Tone: "muted"}
		}
	}
}

// withDistances fills in the distances of bs, a frame's blocks in order.
func withDistances(bs []Block) {
	d := 0
	for i := len(bs) - 1; i >= 0; i-- {
		if bs[i].Role != RoleTool {
			continue
		}
		if hasDistance(&bs[i]) {
			withDistance(&bs[i], d)
		}
		d++
	}
}

// countersPanel shows the running counters, with what the events so far
// add to them: failed calls, the tokens re-reads brought back.
func (r *tieredRun) countersPanel(h *harness, f *Frame) Panel {
	failed, back := r.failed, r.back
	for _, e := range f.Events {
		switch {
		case e.Type == EventSemanticCall && e.Reason == "failed":
			failed++
		case e.Type == EventReread:
			back += e.Tokens
		}
	}
	r.failed, r.back = failed, back
	value := func(name string) int { c, _ := f.Counter(name); return c.Value }
	inv, _ := f.Counter("cache_invalidations")
	calls := Row{Key: "calls", Values: []Figure{count("n", value("compression_calls"))}}
	if failed > 0 {
		calls.Note = &Msg{Key: "counters.failed", Args: []Figure{count("n", failed)}}
	}
	rereads := Row{Key: "rereads", Values: []Figure{count("n", value("rereads"))}}
	if back > 0 {
		rereads.Note = &Msg{Key: "counters.back", Args: []Figure{tokens("n", back)}}
	}
	return Panel{ID: "counters", Tone: "info", Rows: []Row{
		{Key: "saved", Values: []Figure{tokens("n", value("tokens_saved"))}, Emph: true},
		calls, rereads,
		{Key: "round-trips", Values: []Figure{count("n", value("round_trips"))}},
		{Key: "invalidations", Values: []Figure{count("n", inv.Value)},
			Note: &Msg{Key: "counters.by-tier", Args: []Figure{count("t1", inv.By["1"]), count("t2", inv.By["2"])}}},
	}}
}

// passPanel says what happened before this frame's request: the rewrites
// of the pass and where the cache ends, model calls, a re-read, a refusal.
func (r *tieredRun) passPanel(f *Frame, rewritten map[string]Event) (Panel, bool) {
	var rows []Row
	var rewrites []Event
	ok, failed := 0, 0
	for _, e := range f.Events {
		switch e.Type {
		case EventCacheCompaction:
			rewrites = append(rewrites, e)
		case EventSemanticCall:
			if e.Reason == "ok" {
				ok++
			} else {
				failed++
			}
		case EventReread:
			rows = append(rows, Row{Key: "reread", Values: []Figure{tokens("n", e.Tokens)}, Note: &Msg{Key: "pass.reread"}})
		case EventPressure:
			rows = append(rows, Row{Key: "pressure", Values: []Figure{tokens("n", e.Tokens)}, Note: &Msg{Key: "pass.pressure"}})
		}
	}
	tool := func(id string) Figure {
		for _, b := range f.Blocks() {
			if b.ID == id {
				return text("tool", b.Tool)
			}
		}
		return text("tool", id)
	}
	if len(rewrites) > 0 && len(rewrites) <= 3 {
		for _, e := range rewrites {
			rows = append(rows, Row{Key: "rewrite", Values: []Figure{count("index", *e.Index), tool(e.Block), count("tier", e.Tier),
				key("kind", "kind."+e.Reason)},
				Note: &Msg{Key: "pass.saved", Args: []Figure{tokens("n", e.Tokens)}}})
		}
	} else if len(rewrites) > 3 {
		byTier, saved := map[int]int{}, 0
		for _, e := range rewrites {
			byTier[e.Tier]++
			saved += e.Tokens
		}
		rows = append(rows, Row{Key: "rewrites", Values: []Figure{count("n", len(rewrites))},
			Note: &Msg{Key: "counters.by-tier", Args: []Figure{count("t1", byTier[1]), count("t2", byTier[2])}}},
			Row{Key: "saved", Values: []Figure{tokens("n", saved)}})
	}
	if len(rewrites) > 0 {
		first := rewrites[0]
		for _, e := range rewrites {
			if *e.Index < *first.Index {
				first = e
			}
		}
		rows = append(rows, Row{Key: "cache-from", Values: []Figure{count("index", *first.Index)},
			Note: &Msg{Key: "pass.cache-from", Args: []Figure{tool(first.Block), count("tier", first.Tier)}}, Emph: true})
	}
	if ok+failed > 0 {
		rows = append(rows, Row{Key: "calls", Values: []Figure{count("n", ok+failed)},
			Note: &Msg{Key: "pass.ok-failed", Args: []Figure{count("ok", ok), count("failed", failed)}}})
	}
	return Panel{ID: "pass", Tone: "warn", Rows: rows}, len(rows) > 0
}

// refused counts the round trip a refusal costs and explains it.
func (r *tieredRun) refused(h *harness) { h.bump("round_trips", 1) }

// finish adds the rules in force.
func (r *tieredRun) finish(h *harness, rp *Replay) {
	rl := r.rules
	floor := strings.Join(rl.FloorTools, ", ")
	for _, pre := range rl.FloorPrefixes {
		floor += ", " + pre + "*"
	}
	rows := []Row{
		{Key: "tier3", Values: []Figure{count("d", rl.KeepRecent)}, Note: &Msg{Key: "rules.tier3"}},
		{Key: "tier2", Values: []Figure{count("from", rl.KeepRecent), count("to", rl.Tier1Distance-1)},
			Note: &Msg{Key: "rules.tier2." + r.budgetWord(h), Args: []Figure{
				{Name: "min", Value: rl.SemanticMinChars, Unit: UnitChars}, count("max", rl.MaxSemanticPerPass),
				count("chars", rl.ExcerptChars), percent("head", rl.HeadPercent), percent("tail", 100-rl.HeadPercent)}}},
		{Key: "tier1", Values: []Figure{count("d", rl.Tier1Distance)}, Note: &Msg{Key: "rules.tier1"}},
		{Key: "floor", Values: []Figure{key("on", "value."+onOffWord(r.floor && !r.age))},
			Note: &Msg{Key: "rules.floor", Args: []Figure{text("tools", floor)}}},
	}
	if r.age {
		rows = []Row{
			{Key: "tier3", Values: []Figure{count("d", rl.KeepRecent)}, Note: &Msg{Key: "rules.tier3"}},
			{Key: "age", Values: []Figure{count("d", rl.KeepRecent)}, Note: &Msg{Key: "rules.age"}, Emph: true},
		}
	}
	rp.Panels = append(rp.Panels, Panel{ID: "rules", Tone: "ok", Rows: rows, Section: "panel:rules"})
}

// budgetWord names the Tier 2 rule: what the budget counts, or "cut" when
// the replay has no Tier 2 texts (a recorded session).
func (r *tieredRun) budgetWord(h *harness) string {
	if r.cfg.Optional {
		return "cut"
	}
	return h.p.Get("budget")
}

func onOffWord(on bool) string {
	if on {
		return "on"
	}
	return "off"
}
