package sim

import "slices"

// CacheSlid is the prompt cache's reason when the request starts
// differently because the oldest messages slid out of a sliding window.
const CacheSlid = "slid"

// History policies: what history each request carries.
const (
	HistorySliding = "sliding" // the most recent messages only
	HistoryFull    = "full"    // every message, whole
)

// Histories lists the history mechanism's policies in order (adaptive is
// the compression strategy of that name).
var Histories = []string{HistorySliding, HistoryFull, StrategyAdaptive}

// History is the history mechanism: what history each request carries
// (the history parameter). sliding keeps the Keep first messages (the
// task) and the Messages most recent ones: when one more enters, the
// oldest slides out (with its tool call or result, so that no pair is
// broken). full keeps everything. adaptive keeps everything until a
// request passes Trigger percent of the window, then compresses every tool
// result not yet marked, at once (the compression strategy of that name).
type History struct {
	Choices  []string // offered, the default first; one means no parameter
	Messages int      // sliding: the most recent messages kept
	Keep     int      // sliding: first messages of the conversation that never slide out
	Trigger  int      // adaptive: percent of the window
	Cards    []Card   // adaptive: one per result (Card.Strategy adaptive)
	Versions int
}

// texts are the texts of every card's versions.
func (c History) texts() []string { return cardTexts(c.Cards) }

// Name is "history".
func (History) Name() string { return "history" }

// Params are history and, with several versions of the cards' texts, rec.
func (c History) Params() []Param { return strategyParams("history", c.Choices, c.Versions) }

func (c History) start(h *harness) hooks {
	r := &historyRun{cfg: c, mode: chosen(h, "history", c.Choices)}
	r.sum, r.batch = summarizing(h, c.Cards, c.Trigger)
	return r
}

type historyRun struct {
	base
	cfg   History
	mode  string
	sum   *summaries
	batch *batch
	slid  int // messages that slid out so far
	step  int // in this frame
}

// result notes every result's whole characters, when they are known.
func (*historyRun) result(h *harness, b *Block, m *Message) { noteChars(h, b, m) }

// entered slides the window when a message enters it.
func (r *historyRun) entered(h *harness, _ *Block) {
	if r.mode != HistorySliding {
		return
	}
	for len(h.msgs)-r.cfg.Keep > r.cfg.Messages {
		i := r.cfg.Keep
		n := h.slideSpan(h.msgs, i) // a call leaves with its result
		for _, b := range h.msgs[i : i+n] {
			h.event(Event{Type: EventSlid, Block: b.ID, Tokens: b.Tokens})
		}
		r.slid, r.step = r.slid+n, r.step+n
		h.msgs = slices.Delete(h.msgs, i, i+n)
	}
}

// beforeCall runs the adaptive batch.
func (r *historyRun) beforeCall(h *harness) {
	if r.mode == StrategyAdaptive {
		r.batch.run(h)
	}
}

// frame tags frames with the history policy and reports what slid out or
// was compressed.
func (r *historyRun) frame(_ *harness, f *Frame, fc frameCtx) {
	if !fc.own && len(r.cfg.Choices) > 1 {
		*fc.tags = append(*fc.tags, r.mode)
	}
	if r.mode == HistorySliding {
		f.Figures = append(f.Figures, count("slid", r.slid), count("slid-now", r.step), count("window-messages", r.cfg.Messages))
		r.step = 0
		if c := f.Cache; c != nil && c.Reason == CacheRewritten {
			c.Reason = CacheSlid // what changed is the first message: it slid out
		}
	}
	r.sum.frame(f)
	if r.mode == StrategyAdaptive {
		r.batch.frame(f)
	}
}
