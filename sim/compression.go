package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Compression strategies: what happens to a tool result. The names are
// the values of the strategy (and history) parameters.
const (
	StrategyNone         = "none"          // every result stays whole
	StrategyPerResult    = "per-result"    // each result summarized on its own as it arrives
	StrategyCombined     = "combined"      // a result's pages merged, then one summary
	StrategyContextAware = "context-aware" // a summary of what the task needs (query and context in the prompt)
	StrategyCitations    = "citations"     // context-aware, with a source URL on each fact
	StrategyAdaptive     = "adaptive"      // whole until the trigger, then every unmarked result at once
)

// Strategies lists the compression mechanism's strategies in order.
var Strategies = []string{StrategyNone, StrategyPerResult, StrategyCombined, StrategyContextAware, StrategyCitations, StrategyAdaptive}

// onEntry reports whether a strategy compresses a result as it arrives.
func onEntry(s string) bool {
	return s == StrategyPerResult || s == StrategyCombined || s == StrategyContextAware || s == StrategyCitations
}

// Summarizes reports whether a strategy needs a summary card per result.
func Summarizes(s string) bool { return onEntry(s) || s == StrategyAdaptive }

// Compression is the compression mechanism: what happens to each tool
// result under the strategy parameter. none keeps results whole;
// per-result, combined, context-aware and citations replace a result with
// the summary written for it under that strategy (a card) before it enters
// the window; adaptive keeps results whole until a request passes Trigger
// percent of the window, then compresses every result not yet marked
// [COMPRESSED], at once, and marks them (see batch).
type Compression struct {
	Strategies []string // offered, the default first; one means no parameter
	Trigger    int      // adaptive: percent of the window
	Cards      []Card   // one per result and strategy (Card.Strategy, Covers[0])
	Versions   int      // versions of each card's text (the rec parameter when over 1)
	// Tools whose results are compressed on arrival; the results of other
	// tools (a page fetched whole) stay whole. Empty: every tool's.
	Tools []string
	// Reported is the compression ratio the lesson's source reports for a
	// strategy, in tenths of a percent of characters (the source's unit),
	// shown beside the run's own ratio, counted in tokens.
	Reported map[string]int
}

// texts are the texts of every card's versions.
func (c Compression) texts() []string { return cardTexts(c.Cards) }

// Name is "compression".
func (Compression) Name() string { return "compression" }

// Params are the strategy and, with several versions of the cards' texts,
// the version shown.
func (c Compression) Params() []Param {
	return strategyParams("strategy", c.Strategies, c.Versions)
}

// strategyParams is a strategy parameter (none when only one strategy is
// offered) and the rec parameter when cards have several versions.
func strategyParams(name string, offered []string, versions int) []Param {
	var ps []Param
	if len(offered) > 1 {
		ps = append(ps, Param{Name: name, Choices: offered, Default: offered[0]})
	}
	if versions > 1 {
		var vs []int
		for v := 1; v <= versions; v++ {
			vs = append(vs, v)
		}
		ps = append(ps, intParam("rec", 1, versions, 1, vs, true))
	}
	return ps
}

// chosen is the strategy a policy picks: its value of name, or the only
// one offered.
func chosen(h *harness, name string, offered []string) string {
	if v := h.p.Get(name); v != "" {
		return v
	}
	return offered[0]
}

func (c Compression) start(h *harness) hooks {
	r := &compressionRun{cfg: c, strategy: chosen(h, "strategy", c.Strategies)}
	r.sum, r.batch = summarizing(h, c.Cards, c.Trigger)
	return r
}

type compressionRun struct {
	base
	cfg      Compression
	strategy string
	sum      *summaries
	batch    *batch
	results  int // tool results that came back
	chars    int // their characters, whole
}

// result replaces a result with its summary as it arrives, under a
// strategy that compresses on entry; every result's whole size is noted.
func (r *compressionRun) result(h *harness, b *Block, m *Message) {
	r.results++
	r.chars += noteChars(h, b, m)
	if !onEntry(r.strategy) || (len(r.cfg.Tools) > 0 && !slices.Contains(r.cfg.Tools, b.Tool)) {
		return
	}
	if !r.sum.compress(h, b, r.strategy, false) {
		h.event(Event{Type: EventCompressionSkipped, Block: b.ID, Reason: "no summary was written for this result under " + r.strategy})
	}
}

// beforeCall runs the adaptive batch.
func (r *compressionRun) beforeCall(h *harness) {
	if r.strategy == StrategyAdaptive {
		r.batch.run(h)
	}
}

// frame tags frames with the strategy and reports the results, the
// compression ratio and, under adaptive, the trigger.
func (r *compressionRun) frame(h *harness, f *Frame, fc frameCtx) {
	if !fc.own {
		*fc.tags = append(*fc.tags, r.strategy)
	}
	f.Figures = append(f.Figures, count("results", r.results), Figure{Name: "result-chars", Value: r.chars, Unit: UnitChars})
	if r.results > 0 {
		avg := (r.chars + r.results/2) / r.results
		f.Figures = append(f.Figures, Figure{Name: "avg-chars", Value: (avg + 500) / 1000 * 1000, Unit: UnitChars})
	}
	r.sum.frame(f)
	if r.strategy == StrategyAdaptive {
		r.batch.frame(f)
	}
	pn := r.sum.panel("compression", r.strategy, r.results, r.chars)
	if v, ok := r.cfg.Reported[r.strategy]; ok {
		reported := Figure{Name: "reported-ratio", Value: v, Unit: UnitTenths}
		f.Figures = append(f.Figures, reported)
		pn.Rows = append(pn.Rows, Row{Key: "reported", Values: []Figure{reported}})
	}
	f.Panels = append(f.Panels, pn)
}

// summaries holds a mechanism's cards by strategy and result, and counts
// what it compressed.
type summaries struct {
	cards   map[[2]string]*Card // (strategy, result id) → card
	version int
	orig    int             // tokens of the results compressed so far, whole
	comp    int             // their tokens compressed
	done    map[string]bool // blocks compressed since the last frame
}

func newSummaries(cards []Card, version int) *summaries {
	s := &summaries{cards: map[[2]string]*Card{}, version: version, done: map[string]bool{}}
	for i := range cards {
		c := &cards[i]
		if len(c.Covers) > 0 {
			s.cards[[2]string{c.Strategy, c.Covers[0]}] = c
		}
	}
	return s
}

// noteChars records a result's whole characters and returns them: its trace
// figure, or its text's when the text is whole (a counted lesson, or a
// message without a trace size). A trace-sized result without the figure
// shows an excerpt of a text whose characters nobody gave: 0, and no
// attribute.
func noteChars(h *harness, b *Block, m *Message) int {
	n := m.Chars
	if n == 0 && (h.l.Counted || m.Tokens == 0) {
		n = runeCount(b.Content)
	}
	if n == 0 {
		return 0
	}
	b.Attrs = append(b.Attrs, Attr{"chars", n})
	return n
}

// compress replaces b's text with the card for b under strategy; marked
// adds the [COMPRESSED] line. It reports false when no card exists.
func (s *summaries) compress(h *harness, b *Block, strategy string, marked bool) bool {
	c, ok := s.cards[[2]string{strategy, b.ID}]
	if !ok {
		return false
	}
	n := min(s.version, len(c.Versions))
	v := c.Versions[n-1]
	// The summary's size as the model would be sent it: its trace size, or
	// the count of its text when that is the whole text.
	whole := c.Tokens == 0 || c.counted(n) || h.l.Counted
	size := c.Tokens
	if whole {
		size = h.count(v.Content)
	}
	text, tokens := v.Content, size
	if marked {
		// The mark gives the sizes of the texts the model is sent, the
		// result's and the summary's, not of the excerpts a trace shows.
		line := fmt.Sprintf("%s [Original: %s tokens → Compressed: %s tokens]\n", CompressedMark, thousands(b.Tokens), thousands(size))
		text = line + v.Content
		tokens = size + h.count(line)
		if whole {
			tokens = h.count(text)
		}
	}
	before := b.Tokens
	s.orig, s.comp = s.orig+before, s.comp+tokens
	b.Content, b.Tokens, b.Kind, b.Origin = text, tokens, KindSummary, nil
	b.Summary = &SummaryOf{Card: c.ID, Version: s.version, Versions: len(c.Versions), ModelWritten: v.ModelWritten,
		Covers: []string{b.ID}, Provenance: v.Provenance}
	b.Attrs = append(b.Attrs, Attr{"compressed_from", before})
	if whole {
		b.Attrs = append(b.Attrs, Attr{"summary_chars", runeCount(v.Content)})
	}
	s.done[b.ID] = true
	h.event(Event{Type: EventCompressed, Block: b.ID, Tokens: before - tokens, Variant: strategy})
	return true
}

// frame reports the ratio so far and this frame's compressions, and
// badges compressed results.
func (s *summaries) frame(f *Frame) {
	if s.orig > 0 {
		f.Figures = append(f.Figures, tokens("original", s.orig), tokens("compressed", s.comp),
			Figure{Name: "ratio", Value: (s.comp*1000 + s.orig/2) / s.orig, Unit: UnitTenths})
	}
	bs := f.Blocks()
	for i := range bs {
		b := &bs[i]
		from, ok := b.Attr("compressed_from")
		if !ok {
			continue
		}
		b.Badges = append(b.Badges, Badge{Key: "compressed", Args: []Figure{tokens("from", from)}, Tone: "info"})
		if strings.HasPrefix(b.Content, CompressedMark) {
			b.Badges = append(b.Badges, Badge{Key: "compressed-mark", Tone: "warn", Minor: true})
		}
		if s.done[b.ID] {
			b.Touched = true
		}
	}
	clear(s.done)
}

// panel is the mechanism's panel: the strategy, the results and what
// compression made of them.
func (s *summaries) panel(id, strategy string, results, chars int) Panel {
	rows := []Row{{Key: "strategy", Values: []Figure{key("s", "value."+strategy)}, Emph: true},
		{Key: "results", Values: []Figure{count("n", results), {Name: "chars", Value: chars, Unit: UnitChars}}}}
	if s.orig > 0 {
		rows = append(rows, Row{Key: "ratio", Values: []Figure{tokens("from", s.orig), tokens("to", s.comp),
			{Name: "ratio", Value: (s.comp*1000 + s.orig/2) / s.orig, Unit: UnitTenths}}})
	}
	return Panel{ID: id, Tone: "ok", Rows: rows}
}

// CompressedMark opens the text of a result the adaptive strategy
// compressed: a result that starts with it is never compressed again.
const CompressedMark = "[COMPRESSED]"

// batch is the adaptive strategy: results stay whole until a request
// passes the trigger; then every tool result not marked is compressed at
// once and marked, so that none is compressed twice. Compressing in a
// batch near the limit breaks the prompt cache once, not every round.
// summarizing is the summaries a run of cards picks from (the policy's
// rec version) and the batch compressor that fires at trigger percent of
// the window: what the compression and history mechanisms share.
func summarizing(h *harness, cards []Card, trigger int) (*summaries, *batch) {
	sum := newSummaries(cards, max(h.p.Int("rec"), 1))
	return sum, &batch{sum: sum, pct: trigger, trigger: h.limit * trigger / 100}
}

type batch struct {
	sum     *summaries
	pct     int
	trigger int // tokens
	passes  int
	last    int // results compressed by the latest pass
}

// run compresses every unmarked tool result when the request is above the
// trigger, shown as a frame of its own (pass-N).
func (a *batch) run(h *harness) {
	if h.total() <= a.trigger {
		return
	}
	var todo []int
	for i := range h.msgs {
		if h.msgs[i].Role == RoleTool && !strings.HasPrefix(h.msgs[i].Content, CompressedMark) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return
	}
	before := h.total()
	h.showPart()
	h.event(Event{Type: EventTrigger, Tokens: before})
	done := 0
	for _, i := range todo {
		if a.sum.compress(h, &h.msgs[i], StrategyAdaptive, true) {
			done++
		} else {
			h.event(Event{Type: EventCompressionSkipped, Block: h.msgs[i].ID, Reason: "no summary was written for this result under adaptive"})
		}
	}
	a.passes++
	a.last = done
	f := h.emitWith(FramePass, fmt.Sprintf("pass-%d", a.passes), nil, frameCtx{own: true})
	f.Figures = append(f.Figures, tokens("before", before), tokens("after", h.total()))
	f.Decisive = true
}

// frame draws the trigger line and reports the passes.
func (a *batch) frame(f *Frame) {
	f.Line = Line{Tokens: a.trigger, Key: "line.trigger"}
	f.Alert = f.Total > a.trigger
	f.Figures = append(f.Figures, tokens("trigger", a.trigger), percent("trigger-pct", a.pct), count("passes", a.passes))
	if f.Kind == FramePass {
		f.Figures = append(f.Figures, count("pass-count", a.last))
	}
	marked := 0
	for _, b := range f.Blocks() {
		if b.Role == RoleTool && strings.HasPrefix(b.Content, CompressedMark) {
			marked++
		}
	}
	f.Figures = append(f.Figures, count("marked", marked))
}

// cardTexts are the texts of every version of cards.
func cardTexts(cards []Card) []string {
	var out []string
	for _, c := range cards {
		for _, v := range c.Versions {
			out = append(out, v.Content)
		}
	}
	return out
}

// thousands writes n with thousands separators, as the seed's experiment
// writes sizes in its [COMPRESSED] line.
func thousands(n int) string {
	s := itoa(n)
	var out []byte
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// Events of the compression and history mechanisms.
const (
	EventCompressed         = "compressed"          // a result replaced by its summary (Variant: the strategy)
	EventCompressionSkipped = "compression_skipped" // no summary was written for a result under the strategy
	EventTrigger            = "trigger"             // a request passed the adaptive trigger: a batch runs
	EventSlid               = "slid"                // a message slid out of a sliding window
)
