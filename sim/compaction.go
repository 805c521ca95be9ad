package sim

import (
	"fmt"
	"slices"
	"strings"

	"ctxsim/internal/textcut"
)

// Compaction is the compaction mechanism: before each model call, when the
// window is above the threshold, the messages between the header (system
// prompt, injected copies) and the recent tail are replaced by one summary.
// The summary is the text of the card that covers exactly that range, or a
// labelled mechanical excerpt when no card does.
type Compaction struct {
	Threshold int   // default threshold, percent of the window
	Presets   []int // thresholds offered as buttons
	Tail      int   // recent messages kept verbatim (more when a pair needs it)
	Cards     []Card
	Versions  int // versions of each card's text (the rec parameter); 0 when no cards
	// AsRecorded: the trace marks where an imported session compacted
	// (StepCompact). The "compaction" parameter then offers "recorded",
	// the default: compact there, with the recorded summary, as the
	// session did; "on" compacts at the threshold instead.
	AsRecorded bool
	// Loss: a compaction's summary frames list what of its range the
	// summary keeps (files, commands, errors, user instructions).
	Loss bool
	// Own is a recorded session's own threshold in percent (its recorded
	// size before compacting over the window), one of Presets, which the
	// page names for the session; 0 for none.
	Own int
}

// Card is a summary card: the texts a summarizer returned (or the lesson's
// authors wrote) for one exact compaction range.
type Card struct {
	ID       string
	Covers   []string // ids of the blocks in the range, in order
	Tokens   int      // trace size of the summary (0 in a counted lesson)
	Versions []CardText
	// Strategy is the compression strategy a card of the compression or
	// history mechanism serves ("" for a compaction card).
	Strategy string
	// Prompt is what a summarizer is asked with the range (ctxsim record);
	// "" for the recorder's default.
	Prompt string
	// CountFrom is the first version (1-based) sized by its own o200k_base
	// count rather than Tokens: the summaries ctxsim record added. 0: none.
	CountFrom int
	// Opaque: the file does not hold the recorded summary's text (the
	// provider encrypted it, or the file records none); the card's text
	// only says so. A recorded session's usage sizes it (see
	// ProviderUsage).
	Opaque bool
}

// counted reports whether version v (1-based) of the card is sized by its
// own count.
func (c *Card) counted(v int) bool { return c.CountFrom > 0 && v >= c.CountFrom }

// CardText is one version of a card's text, with where it came from.
type CardText struct {
	Content      string
	Provenance   Text
	ModelWritten bool // a model's output (else written for the lesson)
}

// texts are the texts of every card's versions.
func (c Compaction) texts() []string {
	var out []string
	for _, card := range c.Cards {
		for _, v := range card.Versions {
			out = append(out, v.Content)
		}
	}
	return out
}

// Name is "compaction".
func (Compaction) Name() string { return "compaction" }

// Params are compaction on/off, the threshold and, with cards, the version
// of their text.
func (c Compaction) Params() []Param {
	mode := onOff("compaction", "on")
	if c.AsRecorded {
		mode = Param{Name: "compaction", Choices: []string{"recorded", "on", "off"}, Default: "recorded"}
	}
	th := intParam("threshold", 1, 100, c.Threshold, c.Presets, false)
	if c.Own > 0 {
		th.Labels = map[string]string{itoa(c.Own): "value.threshold-own"}
	}
	ps := []Param{mode, th}
	if c.Versions > 1 {
		var vs []int
		for v := 1; v <= c.Versions; v++ {
			vs = append(vs, v)
		}
		ps = append(ps, intParam("rec", 1, c.Versions, 1, vs, true))
	}
	return ps
}

func (c Compaction) start(h *harness) hooks {
	pct := h.p.Int("threshold")
	mode := h.p.Get("compaction")
	return &compactionRun{cfg: c, on: mode == "on", asRecorded: mode == "recorded", pct: pct, threshold: h.limit * pct / 100,
		version: max(h.p.Int("rec"), 1)}
}

type compactionRun struct {
	base
	cfg        Compaction
	on         bool // at the threshold
	asRecorded bool // where the recorded session did
	pct        int
	threshold  int
	version    int

	breaker     bool // auto-compaction stopped for this session (heavy tail)
	compactions int
	mechanical  int
	summaries   []string         // ids of the summaries this mechanism made
	last        *compactionState // the compaction the current frames belong to
}

// compactionState is one compaction, as its frames report it.
type compactionState struct {
	number             int
	before, after      int
	count, rangeTokens int
	summary            int
	summaryID          string
	rangeIDs           []string
	resummarize        bool
	stillAbove         bool
	mechanical         bool
	emergency          bool
	tail               string // id of the largest block of the kept tail
	kept               []string
	card               string
	opaque             bool   // the card's text is not the summary's (the file does not hold it)
	loss               *Panel // what the summary keeps of the range (Compaction.Loss)
}

func (r *compactionRun) sessionStart(*harness) { r.breaker = false }

// beforeCall compacts when the window is above the threshold. After a
// compaction that left the window above it (a heavy tail), routine
// compaction stops for the session (a circuit breaker); a request that
// would then exceed the window is compacted once more, reactively.
func (r *compactionRun) beforeCall(h *harness) {
	if !r.on {
		return
	}
	if !r.breaker && h.total() > r.threshold {
		r.compact(h, false)
	}
	if r.breaker && h.total() > h.limit {
		r.compact(h, true)
	}
}

// compactMark compacts where the recorded session did, in the recorded
// mode: the whole conversation becomes the summary the session went on
// with (the recording keeps no recent messages).
func (r *compactionRun) compactMark(h *harness, st Step) {
	if !r.asRecorded || len(h.msgs) == 0 {
		return
	}
	r.compactRange(h, len(h.msgs), false, []string{"recorded"})
}

// compact replaces everything between the header and the kept tail with
// one summary, shown as four frames: crossed, selected, summary, replaced.
func (r *compactionRun) compact(h *harness, emergency bool) {
	r.compactRange(h, h.keptFrom(h.msgs, len(h.msgs)-r.cfg.Tail), emergency, nil)
}

// compactRange replaces h.msgs[:n] with one summary. A recorded
// compaction (mode "recorded") has no crossing: the session compacted
// there, so its frames are the range, the summary and the result.
func (r *compactionRun) compactRange(h *harness, n int, emergency bool, mode []string) {
	if n <= 0 {
		h.event(Event{Type: EventCompactionSkipped, Tokens: h.total(), Variant: "empty-range",
			Reason: "no messages between the header and the recent tail"})
		return
	}
	rng := h.msgs[:n]
	if n == 1 && rng[0].Kind == KindSummary {
		h.event(Event{Type: EventCompactionSkipped, Tokens: h.total(), Variant: "only-summary",
			Reason: "the range holds only the previous summary"})
		return
	}
	h.showPart()
	r.compactions++
	c := &compactionState{number: r.compactions, before: h.total(), count: n, emergency: emergency}
	for _, b := range rng {
		c.rangeTokens += b.Tokens
		c.rangeIDs = append(c.rangeIDs, b.ID)
		c.resummarize = c.resummarize || b.Kind == KindSummary
	}
	for _, b := range h.msgs[n:] {
		c.kept = append(c.kept, b.ID)
	}
	c.tail = largest(h.msgs[n:])
	// Whether a card covers the range is known now: the frames before the
	// summary say what will happen, a summary or a mechanical excerpt.
	c.mechanical = r.cardFor(c.rangeIDs) == nil
	r.last = c
	var vs []string
	if c.resummarize {
		vs = append(vs, "resummarize")
	}
	vs = append(mode, vs...)
	mvs := vs // the variants of the frames that show the range's fate
	if c.mechanical {
		mvs = append([]string{"mechanical"}, vs...)
	}
	if len(mode) == 0 {
		crossed := Event{Type: EventThresholdCrossed, Tokens: c.before}
		var cvs []string
		if emergency {
			crossed.Reason, crossed.Variant = "the request would exceed the window", "emergency"
			cvs = []string{"emergency"}
		}
		h.event(crossed)
		r.show(h, FrameCrossed, cvs, nil)
	}

	h.event(Event{Type: EventRangeSelected, Tokens: c.rangeTokens})
	r.show(h, FrameSelected, mvs, c.rangeIDs)

	sum := r.summarize(h, rng)
	c.summary, c.summaryID, c.card = sum.Tokens, sum.ID, sum.Summary.Card
	if cd := r.cardFor(c.rangeIDs); cd != nil {
		c.opaque = cd.Opaque
	}
	if r.cfg.Loss {
		p := lossPanel(lossFacts(h.l, rng), sum.Content)
		c.loss = &p
	}
	h.event(Event{Type: EventSummary, Tokens: sum.Tokens, Block: sum.ID, Variant: summaryVariant(sum.Summary)})
	r.summaries = append(r.summaries, sum.ID)
	f := r.show(h, FrameSummary, mvs, c.rangeIDs)
	pending := sum
	pending.Spotlight = true
	f.Pending = &pending

	h.msgs = append([]Block{sum}, h.msgs[n:]...)
	for _, m := range h.mechs {
		m.afterCompaction(h)
	}
	c.after = h.total()
	c.stillAbove = r.on && c.after > r.threshold
	ce := Event{Type: EventCompaction, Tokens: c.before - c.after}
	if c.mechanical {
		ce.Variant = "mechanical"
	}
	h.event(ce)
	rvs := mvs
	if c.stillAbove {
		// Compacting again would only re-summarize the summary and the tail
		// just kept verbatim, so this harness stops auto-compacting for the
		// session (a circuit breaker) and reports the heavy tail.
		r.breaker = true
		h.event(Event{Type: EventHeavyTail, Tokens: c.after})
		rvs = append([]string{"heavy-tail"}, rvs...)
	}
	r.show(h, FrameReplaced, rvs, nil)
}

// summaryVariant names where a summary's text came from.
func summaryVariant(s *SummaryOf) string {
	switch {
	case s.Mechanical:
		return "mechanical"
	case s.ModelWritten:
		return "recorded"
	}
	return "authored"
}

// largest is the id of the largest block of bs ("" when empty).
func largest(bs []Block) string {
	id, most := "", -1
	for _, b := range bs {
		if b.Tokens > most {
			id, most = b.ID, b.Tokens
		}
	}
	return id
}

// show emits one of a compaction's frames.
func (r *compactionRun) show(h *harness, kind FrameKind, variants []string, selected []string) *Frame {
	f := h.emitWith(kind, string(kind), variants, frameCtx{own: true})
	in := make(map[string]bool, len(selected))
	for _, id := range selected {
		in[id] = true
	}
	for i := range f.req.count() {
		f.req.setFlag(i, flagSelected, in[f.req.view(i).ID])
	}
	f.Decisive = true
	return f
}

// summarize returns the summary block for rng: the chosen version of the
// card that covers exactly rng, or a labelled mechanical excerpt when no
// card does. It never makes up model text.
func (r *compactionRun) summarize(h *harness, rng []Block) Block {
	ids := make([]string, len(rng))
	for i, b := range rng {
		ids[i] = b.ID
	}
	if card := r.cardFor(ids); card != nil {
		v := card.Versions[r.version-1]
		b := Block{ID: card.ID, Role: RoleUser, Kind: KindSummary, Tokens: card.Tokens, Content: v.Content,
			LabelKey: "block.summary",
			Summary: &SummaryOf{Card: card.ID, Version: r.version, Versions: len(card.Versions), ModelWritten: v.ModelWritten,
				Covers: ids, Provenance: v.Provenance}}
		if h.l.Counted || b.Tokens == 0 || card.counted(r.version) {
			b.Tokens = h.count(b.Content)
		}
		if h.calib != nil && r.version == 1 {
			h.calib.size(&b)
		}
		return b
	}
	r.mechanical++
	text, left := mechanicalExcerpt(rng)
	origin := &Msg{Key: "mechanical"}
	if left > 0 {
		origin = &Msg{Key: "mechanical-cut", Args: []Figure{count("lines", left)}}
	}
	return Block{
		ID: fmt.Sprintf("excerpt-%d", r.mechanical), Role: RoleUser, Kind: KindSummary,
		Tokens: h.count(text), Content: text, LabelKey: "block.excerpt", Origin: origin,
		Summary: &SummaryOf{Mechanical: true, Covers: ids},
	}
}

// cardFor is the card that covers exactly the blocks ids, or nil.
func (r *compactionRun) cardFor(ids []string) *Card {
	for i := range r.cfg.Cards {
		if slices.Equal(r.cfg.Cards[i].Covers, ids) {
			return &r.cfg.Cards[i]
		}
	}
	return nil
}

// excerptMax bounds a mechanical excerpt in bytes: a long session's
// excerpt of excerpts would otherwise grow with every compaction.
const excerptMax = 8000

// excerptHeader opens every mechanical excerpt.
const excerptHeader = "[mechanical excerpt: no summary card covers this range]\n"

// mechanicalExcerpt stands in for a summary no card holds: earlier
// summaries are carried over whole, and every other message is cut to its
// first line (100 bytes at most). Past excerptMax bytes the first and last
// lines are kept around a marker; left is how many lines it leaves out.
func mechanicalExcerpt(rng []Block) (text string, left int) {
	var lines []string
	size := 0
	for _, b := range rng {
		if b.Kind == KindSummary {
			body := strings.TrimPrefix(strings.TrimSpace(b.Content), excerptHeader)
			for _, l := range strings.Split(body, "\n") {
				lines, size = append(lines, l), size+len(l)+1
			}
			continue
		}
		line, _, _ := strings.Cut(strings.TrimSpace(b.Content), "\n")
		name := b.Label.In("en")
		if name == "" {
			name = string(b.Kind)
		}
		l := fmt.Sprintf("- %s %s: %s", b.Role, name, cut(line, 100))
		lines, size = append(lines, l), size+len(l)+1
	}
	if size > excerptMax {
		lines, left = trimMiddle(lines, excerptMax/2)
	}
	return excerptHeader + strings.Join(lines, "\n") + "\n", left
}

// trimMiddle keeps the first and the last lines of ls, each end within
// half bytes, around a marker line; it returns the lines and how many it
// left out.
func trimMiddle(ls []string, half int) ([]string, int) {
	head, n := 0, 0
	for head < len(ls) && n+len(ls[head])+1 <= half {
		n += len(ls[head]) + 1
		head++
	}
	tail, n := len(ls), 0
	for tail > head && n+len(ls[tail-1])+1 <= half {
		n += len(ls[tail-1]) + 1
		tail--
	}
	left := tail - head
	if left == 0 {
		return ls, 0
	}
	out := append(slices.Clip(ls[:head]), fmt.Sprintf("[… %d lines left out: the excerpt keeps its first and last %d bytes …]", left, half))
	return append(out, ls[tail:]...), left
}

// cut keeps the first n bytes of s on a rune boundary, marking the cut.
func cut(s string, n int) string { return textcut.Mark(s, n, "…") }

// frame reports the threshold line, the compaction figures on its four
// frames, and tags the frames that finish a step "no-compaction" when it
// is off.
func (r *compactionRun) frame(h *harness, f *Frame, fc frameCtx) {
	f.Figures = append(f.Figures, tokens("threshold", r.threshold), percent("pct", r.pct), count("tail", r.cfg.Tail),
		count("compactions", r.compactions))
	if r.breaker {
		f.Figures = append(f.Figures, count("breaker", 1))
	}
	if f.Total > r.threshold {
		f.Figures = append(f.Figures, count("over-threshold", 1))
	}
	if r.on {
		f.Line = Line{Tokens: r.threshold, Key: "line.threshold"}
		f.Alert = f.Total > r.threshold
	}
	if fc.finish && !r.on {
		*fc.tags = append(*fc.tags, "no-compaction")
	}
	if len(r.summaries) > 0 {
		for i := range f.req.count() {
			if slices.Contains(r.summaries, f.req.view(i).ID) {
				f.req.setFlag(i, flagSpotlight, true)
			}
		}
	}
	if !fc.own || r.last == nil {
		return
	}
	c := r.last
	f.Figures = append(f.Figures,
		count("compaction", c.number), tokens("before", c.before), count("count", c.count),
		tokens("range", c.rangeTokens), count("kept", len(c.kept)))
	if len(c.kept) > r.cfg.Tail {
		f.Figures = append(f.Figures, count("tail-grew", 1)) // a kept tool result brought its call
	}
	if c.tail != "" {
		f.Figures = append(f.Figures, blockRef("tail-block", c.tail))
	}
	if c.resummarize {
		f.Figures = append(f.Figures, count("resummarize", 1))
	}
	if c.emergency {
		f.Figures = append(f.Figures, count("emergency", 1))
	}
	// The range's fate is a figure of the frames that show the range (not
	// of the crossing before it is chosen, nor of a refusal after it).
	if c.mechanical && (f.Kind == FrameSelected || f.Kind == FrameSummary || f.Kind == FrameReplaced) {
		f.Figures = append(f.Figures, count("mechanical", 1))
	}
	// The header (system prompt, memory copy) stays through every
	// compaction: above the line on its own, nothing can bring the window
	// under it.
	hdr := h.headerTokens()
	f.Figures = append(f.Figures, tokens("header", hdr))
	if hdr > r.threshold {
		f.Figures = append(f.Figures, count("header-above", 1))
	} else if f.Kind == FrameReplaced && hdr+c.summary > r.threshold {
		f.Figures = append(f.Figures, count("header-summary-above", 1)) // the tail is not what keeps it above
	}
	if f.Kind == FrameSummary || f.Kind == FrameReplaced {
		f.Figures = append(f.Figures, tokens("summary", c.summary), blockRef("summary-block", c.summaryID))
		if c.opaque {
			f.Figures = append(f.Figures, count("opaque", 1))
		}
		if c.loss != nil {
			f.Panels = append(f.Panels, *c.loss)
		}
	}
	if f.Kind == FrameReplaced {
		f.Figures = append(f.Figures, tokens("after", c.after))
		if c.stillAbove {
			f.Figures = append(f.Figures, count("heavy-tail", 1))
		}
	}
}

// finish reports the threshold in tokens for the frames API.
func (r *compactionRun) finish(h *harness, rp *Replay) {
	rp.Fields = append(rp.Fields, Field{Name: "threshold_tokens", Value: r.threshold})
}
