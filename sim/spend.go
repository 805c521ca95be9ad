package sim

import "slices"

// ledger is what a run's model calls have cost so far. The harness keeps
// it for every run; the spend mechanism reports it on frames.
type ledger struct {
	tokens   int // every request as sent, and what the model wrote
	fresh    int // of the requests, what the prompt cache could not reuse (with a prompt cache)
	calls    int // the main agent's model calls, the refused one included
	sub      int // tokens sub-agents spent in their own windows
	subCalls int // model calls sub-agents made
	recalls  int // recoveries: needs the window lacked
}

// SpendMeter is the spend mechanism: every frame reports what the run's
// model calls have cost so far and which iteration (model call of the
// agent) it belongs to. A call costs its request as sent plus what the
// model wrote; a summarizer's calls are not counted (the seed's
// experiment counted the agent's own calls).
type SpendMeter struct{}

// Name is "spend".
func (SpendMeter) Name() string { return "spend" }

// Params: none.
func (SpendMeter) Params() []Param { return nil }

func (SpendMeter) start(*harness) hooks { return &spendRun{} }

type spendRun struct{ base }

// frame sets the frame's Spend, its figures, a panel and, when no other
// mechanism gave one, the legend under the meter.
func (spendRun) frame(h *harness, f *Frame, _ frameCtx) {
	l := h.spent
	f.Spend = &Spend{Tokens: l.tokens, Iteration: l.calls, Sub: l.sub}
	f.Figures = append(f.Figures, count("spent", l.tokens), count("iteration", l.calls), count("recalls", l.recalls))
	rows := []Row{
		{Key: "iteration", Values: []Figure{count("n", l.calls)}},
		{Key: "spent", Values: []Figure{count("n", l.tokens)}, Emph: true},
	}
	if h.cache != nil {
		f.Figures = append(f.Figures, count("spent-fresh", l.fresh))
		rows = append(rows, Row{Key: "fresh", Values: []Figure{count("n", l.fresh)}})
	}
	if l.sub > 0 {
		f.Figures = append(f.Figures, count("sub-spent", l.sub), count("main-spent", l.tokens-l.sub))
		rows = append(rows, Row{Key: "sub", Values: []Figure{count("n", l.sub), count("calls", l.subCalls)}})
	}
	if l.recalls > 0 {
		rows = append(rows, Row{Key: "recalls", Values: []Figure{count("n", l.recalls)}})
	}
	f.Panels = append(f.Panels, Panel{ID: "spend", Tone: "info", Rows: rows})
	if f.Legend == "" {
		f.Legend = "legend.spend"
	}
}

// sent charges a request the provider accepted: its tokens and, with a
// prompt cache, what of it the provider had to compute anew.
func (h *harness) sent() {
	total := h.total()
	h.spent.tokens += total
	if h.cache == nil {
		return
	}
	reused := h.cache.reused(h)
	h.spent.fresh += total - reused
}

// recall looks up each fact a step needs before its first model call. For
// one the window lacks, the agent first makes the need's calls (the same
// tool call again, or a refined one), shown as a frame of their own. It
// reports false when the session stopped.
func (h *harness) recall(needs []Need) bool {
	for i := range needs {
		n := &needs[i]
		if h.lookup(n.Fact) {
			continue
		}
		h.spent.recalls++
		if !h.messages(n.Recover) {
			return false
		}
		f := h.emitWith(FrameStep, n.Step, nil, frameCtx{})
		f.Decisive = true
		if !slices.Contains(h.variants, "after-recall") {
			h.variants = append(h.variants, "after-recall")
		}
	}
	return true
}

// delegated reports whether a mechanism ran the step in a window of its
// own (a sub-agent's).
func (h *harness) delegated(st Step) bool {
	for _, m := range h.mechs {
		if m.runStep(h, st) {
			return true
		}
	}
	return false
}
