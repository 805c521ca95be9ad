package sim

import (
	"fmt"
	"slices"
	"strings"
)

// Layers is the layers mechanism: the five layers of a production
// harness's context management, after the seed's section
// 生産級の階層的圧縮メカニズム, switched on cumulatively by the layers
// parameter (0 to 5), with the breaker parameter for the last one.
//
//  1. Tool-result budget: a result above Budget tokens is saved to disk as
//     it arrives; the window gets a preview (its first lines and the
//     file's name). The replacement is decided once, at first use, and
//     never redone, so the bytes the cache holds stay the same.
//  2. Noise: the results of the Noise tools (and their calls) are deleted
//     outright, not summarized, once NoiseAge rounds old.
//  3. Micro-compaction: the provider is asked to remove tool results from
//     the request (context editing), all but the KeepResults most recent;
//     the harness's own copy keeps them. The cache is invalid from the
//     first removed result on.
//  4. Archival summaries: every round older than the KeepRounds most
//     recent becomes its own record (a card written for that round), one
//     summarizer call each: a log of rounds, not one squashed summary.
//  5. Full compaction: first the session memory (notes kept in the
//     background) replaces everything before the MemoryRounds most recent
//     rounds; when that does not bring the request under the line, a
//     summarizer is asked for one summary of the whole conversation. Its
//     request is the conversation plus Prompt tokens; when that does not
//     fit the window the attempt fails. With the breaker on, after
//     Failures consecutive failures the harness stops trying.
//
// Layer 1 acts on every result; layers 2 to 5 act, cheapest first, before
// a model call whose request is above Line percent of the window, each
// only while the request is still above it.
type Layers struct {
	Budget       int      // 1: tokens
	Preview      int      // 1: trace size of a preview (0: counted)
	PreviewLines int      // 1: lines of the result a preview keeps
	Noise        []string // 2: tools whose results are noise
	NoiseAge     int      // 2: rounds
	KeepResults  int      // 3: tool results left whole
	MinFree      int      // 3, 4: a result is cleared, a round archived, only when that frees more than this (less is not worth the cache)
	KeepRounds   int      // 4: rounds left whole
	MemoryRounds int      // 5: rounds the session memory compaction keeps
	Line         int      // percent of the window
	Memory       Message  // 5: the session memory notes
	Cards        []Card   // 4: a record per round; 5: the full summary
	Versions     int      // versions of each card's text (the rec parameter when over 1)
	Failures     int      // 5: consecutive failures that open the breaker
	Prompt       int      // 4, 5: what a summarizer's instructions (and room for its answer) add to its request
}

// Name is "layers".
func (Layers) Name() string { return "layers" }

// Params are layers (0 to 5), breaker (on, off) and, with several versions
// of the cards' texts (recorded ones), rec.
func (c Layers) Params() []Param {
	ps := []Param{intParam("layers", 0, 5, 5, []int{0, 1, 2, 3, 4, 5}, false), onOff("breaker", "on")}
	return append(ps, strategyParams("", nil, c.Versions)...)
}

// texts are the texts the mechanism carries.
func (c Layers) texts() []string { return append([]string{c.Memory.Content}, cardTexts(c.Cards)...) }

func (c Layers) summaryCards() []Card { return c.Cards }

func (c Layers) start(h *harness) hooks {
	r := &layersRun{cfg: c, on: h.p.Int("layers"), breaker: h.p.On("breaker"), line: h.limit * c.Line / 100,
		round: map[string]int{}, stepOf: map[int]string{}, freed: make([]int, 6), offloaded: map[string]int{}}
	h.declare("summarizer-calls", "failed-attempts")
	return r
}

type layersRun struct {
	base
	cfg     Layers
	on      int // layers switched on
	breaker bool
	line    int

	round     map[string]int // the round (model call) each block entered in; 0 before the first call
	stepOf    map[int]string // the trace step of each round
	calls     int
	offloaded map[string]int // results saved to disk: their whole size
	freed     []int          // tokens each layer removed so far
	records   int            // rounds archived
	failures  int            // consecutive failed full compactions
	attempts  int            // full compaction attempts
	wasted    int            // tokens the failed attempts sent
	open      bool           // the breaker stopped the attempts
	summaries int            // summarizer calls
	last      layerPass      // what the frame being emitted reports
}

// layerPass is what one layer did before a request.
type layerPass struct {
	layer          int
	before, after  int
	removed, count int
	failed         bool
	request        int // a full compaction's own request
	memory         bool
}

// Narration keys of the layers' own frames.
const (
	layerNoise   = "layer-2"
	layerMicro   = "layer-3"
	layerArchive = "layer-4"
	layerMemory  = "layer-5-memory"
	layerFull    = "layer-5-full"
	layerFailed  = "layer-5-failed"
)

// entered notes the round a block entered in.
func (r *layersRun) entered(_ *harness, b *Block) { r.round[b.ID] = r.calls }

// result saves a result above the budget to disk and puts a preview in
// its place (layer 1).
func (r *layersRun) result(h *harness, b *Block, _ *Message) {
	if r.on < 1 || b.Tokens <= r.cfg.Budget {
		return
	}
	whole := b.Tokens
	path := "tool-results/" + b.ID + ".txt"
	lines := strings.Split(b.Content, "\n")
	lines = lines[:min(len(lines), r.cfg.PreviewLines)]
	b.Content = fmt.Sprintf("[Output too large (%s tokens): saved to %s. Preview, the first %d lines:]\n%s",
		thousands(whole), path, len(lines), strings.Join(lines, "\n"))
	b.Tokens = r.cfg.Preview
	if h.l.Counted || b.Tokens == 0 {
		b.Tokens = h.count(b.Content)
	}
	b.Kind = KindExcerpt
	b.Attrs = append(b.Attrs, Attr{"offloaded_from", whole})
	r.offloaded[b.ID] = whole
	r.freed[1] += whole - b.Tokens
	h.event(Event{Type: EventOffloaded, Block: b.ID, Tokens: whole - b.Tokens})
}

// beforeCall runs layers 2 to 5, cheapest first, while the request is
// above the line.
func (r *layersRun) beforeCall(h *harness) {
	steps := []func(*harness) bool{r.noise, r.micro, r.archive, r.compact}
	for i, step := range steps {
		if r.on < i+2 || h.total() <= r.line {
			break
		}
		step(h)
	}
	r.calls++
	r.stepOf[r.calls] = h.cur.ID
}

// show emits a layer's frame, decisive.
func (r *layersRun) show(h *harness, key string, p layerPass) {
	p.after = h.total()
	r.last = p
	f := h.emitWith(FramePass, key, nil, frameCtx{own: true})
	f.Decisive = true
	r.last = layerPass{}
}

// recentRounds are the n most recent rounds that have blocks in the window.
func (r *layersRun) recentRounds(h *harness, n int) map[int]bool {
	var rounds []int
	for _, b := range h.msgs {
		if k := r.round[b.ID]; k > 0 && !slices.Contains(rounds, k) {
			rounds = append(rounds, k)
		}
	}
	out := map[int]bool{}
	for _, k := range rounds[max(len(rounds)-n, 0):] {
		out[k] = true
	}
	return out
}

// noise deletes the noise tools' calls and results old enough (layer 2).
func (r *layersRun) noise(h *harness) bool {
	p := layerPass{layer: 2, before: h.total()}
	done := r.calls
	h.msgs = slices.DeleteFunc(h.msgs, func(b Block) bool {
		if !slices.Contains(r.cfg.Noise, b.Tool) || (b.Kind != KindToolCall && b.Role != RoleTool) || done-r.round[b.ID] < r.cfg.NoiseAge {
			return false
		}
		p.removed += b.Tokens
		if b.Role == RoleTool {
			p.count++
			h.event(Event{Type: EventNoiseDeleted, Block: b.ID, Tokens: b.Tokens})
		}
		return true
	})
	return r.done(h, key2(p.count > 0, layerNoise), p)
}

// key2 is key when the layer did something, "" otherwise.
func key2(did bool, key string) string {
	if did {
		return key
	}
	return ""
}

// done records what a layer freed and shows it, when it did anything.
func (r *layersRun) done(h *harness, key string, p layerPass) bool {
	if key == "" {
		return false
	}
	r.freed[p.layer] += p.removed
	h.showPart()
	r.show(h, key, p)
	return true
}

// micro removes all but the most recent tool results from the request
// (layer 3): each becomes a short placeholder.
func (r *layersRun) micro(h *harness) bool {
	p := layerPass{layer: 3, before: h.total()}
	var results []int
	for i, b := range h.msgs {
		if b.Role == RoleTool {
			results = append(results, i)
		}
	}
	for _, i := range results[:max(len(results)-r.cfg.KeepResults, 0)] {
		b := &h.msgs[i]
		if _, done := b.Attr("cleared_from"); done {
			continue
		}
		text := fmt.Sprintf("[%s result removed from the request by context editing: %s tokens]", b.Tool, thousands(b.Tokens))
		n := h.count(text)
		if b.Tokens-n <= r.cfg.MinFree {
			continue // it would free too little
		}
		p.removed += b.Tokens - n
		p.count++
		b.Attrs = append(b.Attrs, Attr{"cleared_from", b.Tokens})
		b.Content, b.Tokens, b.Kind = text, n, KindStub
		h.event(Event{Type: EventCleared, Block: b.ID, Tokens: b.Tokens})
	}
	return r.done(h, key2(p.count > 0, layerMicro), p)
}

// archive replaces every round older than the most recent ones with its
// own record (layer 4), one summarizer call each.
func (r *layersRun) archive(h *harness) bool {
	p := layerPass{layer: 4, before: h.total()}
	keep := r.recentRounds(h, r.cfg.KeepRounds)
	var out []Block
	for i := 0; i < len(h.msgs); {
		b := h.msgs[i]
		k := r.round[b.ID]
		if k == 0 || keep[k] || b.Kind == KindSummary {
			out = append(out, b)
			i++
			continue
		}
		j := i
		for j < len(h.msgs) && r.round[h.msgs[j].ID] == k && h.msgs[j].Kind != KindSummary {
			j++
		}
		rng := h.msgs[i:j]
		rec := summaryOf(h, r.cfg.Cards, rng, fmt.Sprintf("record-%d-excerpt", k))
		rec.Label, rec.LabelKey = Text{"en": r.stepOf[k]}, "block.record"
		whole := 0
		for _, x := range rng {
			whole += x.Tokens
		}
		if whole-rec.Tokens <= r.cfg.MinFree { // it would free too little
			out = append(out, rng...)
			i = j
			continue
		}
		r.round[rec.ID] = k
		p.removed += whole - rec.Tokens
		p.count++
		r.summaries++
		h.bump("summarizer-calls", 1)
		h.event(Event{Type: EventArchived, Block: rec.ID, Tokens: rec.Tokens})
		out = append(out, rec)
		i = j
	}
	h.msgs = out
	r.records += p.count
	return r.done(h, key2(p.count > 0, layerArchive), p)
}

// compact is layer 5: the session memory first, then a full compaction,
// unless the breaker has stopped the full compaction's attempts.
func (r *layersRun) compact(h *harness) bool {
	if r.sessionMemory(h) {
		return true
	}
	if r.breaker && r.failures >= r.cfg.Failures {
		if !r.open {
			r.open = true
			h.event(Event{Type: EventBreakerOpen, Tokens: h.total()})
		}
		return false
	}
	p := layerPass{layer: 5, before: h.total(), request: h.total() + r.cfg.Prompt}
	r.attempts++
	r.summaries++
	h.bump("summarizer-calls", 1)
	if p.request > h.limit {
		r.failures++
		r.wasted += p.request
		h.bump("failed-attempts", 1)
		p.failed = true
		h.event(Event{Type: EventCompactFailed, Tokens: p.request})
		h.showPart()
		r.show(h, layerFailed, p)
		return false
	}
	r.succeeded()
	sum := summaryOf(h, r.cfg.Cards, h.msgs, fmt.Sprintf("full-%d-excerpt", r.attempts))
	p.removed, p.count = p.before-h.headerTokens()-sum.Tokens, len(h.msgs)
	h.msgs = []Block{sum}
	h.event(Event{Type: EventCompaction, Tokens: p.removed})
	return r.done(h, layerFull, p)
}

// succeeded closes the breaker: a compaction worked.
func (r *layersRun) succeeded() { r.failures, r.open = 0, false }

// sessionMemory replaces everything before the most recent rounds with
// the session memory notes, when that brings the request under the line.
func (r *layersRun) sessionMemory(h *harness) bool {
	keep := r.recentRounds(h, r.cfg.MemoryRounds)
	cut := slices.IndexFunc(h.msgs, func(b Block) bool { return keep[r.round[b.ID]] && r.round[b.ID] > 0 })
	if cut <= 0 || (cut == 1 && h.msgs[0].ID == r.cfg.Memory.ID) {
		return false
	}
	notes := h.blockOf(r.cfg.Memory)
	notes.Role, notes.Kind, notes.LabelKey = RoleUser, KindSummary, "block.session-memory"
	after := h.total()
	for _, b := range h.msgs[:cut] {
		after -= b.Tokens
	}
	after += notes.Tokens
	if after > r.line {
		return false
	}
	p := layerPass{layer: 5, before: h.total(), memory: true, count: cut}
	p.removed = p.before - after
	h.msgs = append([]Block{notes}, h.msgs[cut:]...)
	r.succeeded()
	h.event(Event{Type: EventSessionMemory, Block: notes.ID, Tokens: p.removed})
	return r.done(h, layerMemory, p)
}

// frame reports the layers, the line, and what a layer's own frame did.
func (r *layersRun) frame(h *harness, f *Frame, fc frameCtx) {
	if !fc.own {
		*fc.tags = append(*fc.tags, fmt.Sprintf("layers-%d", r.on))
	}
	if modelWrittenPick(h, r.cfg.Cards) {
		f.Figures = append(f.Figures, count("recorded", 1))
	}
	if r.on >= 2 {
		f.Line = Line{Tokens: r.line, Key: "line.layers"}
		f.Alert = f.Total > r.line
	}
	f.Figures = append(f.Figures, count("layers", r.on), tokens("line", r.line), percent("line-pct", r.cfg.Line),
		tokens("budget", r.cfg.Budget), count("offloaded", len(r.offloaded)), count("records", r.records),
		count("attempts", r.attempts), count("failures", r.failures), count("failure-limit", r.cfg.Failures),
		tokens("prompt", r.cfg.Prompt), count("summarizer-calls", r.summaries), tokens("min-free", r.cfg.MinFree))
	for k := 1; k <= 5; k++ {
		if r.freed[k] > 0 {
			f.Figures = append(f.Figures, tokens(fmt.Sprintf("freed-%d", k), r.freed[k]))
		}
	}
	if r.wasted > 0 {
		f.Figures = append(f.Figures, tokens("wasted", r.wasted))
	}
	if r.open {
		f.Figures = append(f.Figures, count("breaker-open", 1))
	}
	if f.Total > r.line {
		f.Figures = append(f.Figures, count("over-line", 1))
	}
	if f.Total > h.limit {
		f.Figures = append(f.Figures, count("over-window", 1))
	}
	bs := f.Blocks()
	for i := range bs {
		b := &bs[i]
		if n, ok := b.Attr("offloaded_from"); ok {
			b.Badges = append(b.Badges, Badge{Key: "offloaded", Args: []Figure{tokens("from", n)}, Tone: "info"})
		}
		if _, ok := b.Attr("cleared_from"); ok {
			b.Badges = append(b.Badges, Badge{Key: "cleared", Tone: "warn", Minor: true})
		}
	}
	r.panel(f)
	p := r.last
	if p.layer == 0 {
		return
	}
	f.Figures = append(f.Figures, count("layer", p.layer), tokens("before", p.before), tokens("after", p.after),
		tokens("removed", p.removed), count("count", p.count))
	if p.request > 0 {
		f.Figures = append(f.Figures, tokens("request", p.request))
	}
	if p.after > r.line {
		f.Figures = append(f.Figures, count("still-over", 1))
	}
}

// panel lists each layer: off, or what it removed so far.
func (r *layersRun) panel(f *Frame) {
	var rows []Row
	for k := 1; k <= 5; k++ {
		row := Row{Key: fmt.Sprintf("l%d", k), Values: []Figure{tokens("freed", r.freed[k])}, Emph: r.last.layer == k}
		if k > r.on {
			row.Values = []Figure{key("off", "value.off")}
		}
		rows = append(rows, row)
	}
	if r.on >= 4 {
		rows = append(rows, Row{Key: "summarizer", Values: []Figure{count("n", r.summaries)}})
	}
	if r.on >= 5 {
		rows = append(rows, Row{Key: "failures", Values: []Figure{count("n", r.failures), count("limit", r.cfg.Failures)}})
		if r.open {
			rows = append(rows, Row{Key: "breaker-open"})
		}
	}
	f.Panels = append(f.Panels, Panel{ID: "layers", Tone: "info", Rows: rows})
}

// Events of the layers mechanism.
const (
	EventOffloaded     = "offloaded"      // layer 1: a result saved to disk, a preview in its place
	EventNoiseDeleted  = "noise_deleted"  // layer 2
	EventCleared       = "cleared"        // layer 3: a result removed from the request
	EventArchived      = "archived"       // layer 4: a round became its record
	EventSessionMemory = "session_memory" // layer 5: the session memory replaced the older rounds
	EventCompactFailed = "compact_failed" // layer 5: the full compaction's request did not fit
	EventBreakerOpen   = "breaker_open"   // layer 5: the breaker stopped the attempts
)
