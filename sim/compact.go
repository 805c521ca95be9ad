package sim

import (
	"fmt"
	"slices"
	"strings"
)

// compact replaces everything between the header and the recent tail with one
// summary, showing it as four frames: crossed, selected, summary, replaced.
// emergency marks a compaction forced by the window, not the threshold.
func (r *run) compact(emergency bool) {
	n := len(r.msgs) - r.l.TailMessages
	if n <= 0 {
		r.event(Event{Type: EventCompactionSkipped, Tokens: r.total(), Reason: "no messages between the header and the recent tail"})
		return
	}
	rng := r.msgs[:n]
	if n == 1 && rng[0].Kind == KindSummary {
		r.event(Event{Type: EventCompactionSkipped, Tokens: r.total(), Reason: "the range holds only the previous summary"})
		return
	}
	r.flushPart()
	r.compactions++
	c := Compaction{Number: r.compactions, Before: r.total(), Threshold: r.threshold, Count: n}
	for _, b := range rng {
		c.RangeTokens += b.Tokens
		c.RangeIDs = append(c.RangeIDs, b.ID)
		c.Resummarize = c.Resummarize || b.Kind == KindSummary
	}
	c.Emergency = emergency
	var vs []string
	if c.Resummarize {
		vs = append(vs, "resummarize")
	}
	crossed := Event{Type: EventThresholdCrossed, Tokens: c.Before}
	var cvs []string
	if emergency {
		crossed.Reason = "the request would exceed the window"
		cvs = []string{"emergency"}
	}
	r.event(crossed)
	r.compactionFrame(FrameCrossed, "crossed", cvs, c, nil)

	r.event(Event{Type: EventRangeSelected, Tokens: c.RangeTokens})
	r.compactionFrame(FrameSelected, "selected", vs, c, c.RangeIDs)

	sum := r.summarize(rng)
	c.Summary, c.SummaryBlock = sum.Tokens, sum.ID
	c.Mechanical = sum.Summary.Mechanical
	svs := vs
	if c.Mechanical {
		svs = append([]string{"mechanical"}, vs...)
	}
	r.event(Event{Type: EventSummary, Tokens: sum.Tokens, Block: sum.ID})
	f := r.compactionFrame(FrameSummary, "summary", svs, c, c.RangeIDs)
	f.Pending = &sum

	r.msgs = append([]Block{sum}, r.msgs[n:]...)
	c.After = r.total()
	c.StillAbove = c.After > r.threshold
	r.event(Event{Type: EventCompaction, Tokens: c.Before - c.After})
	rvs := vs
	if c.StillAbove {
		// Compacting again would only re-summarize the summary and the tail
		// just kept verbatim, so this harness stops auto-compacting for the
		// session (a circuit breaker) and reports the heavy tail.
		r.breaker = true
		r.event(Event{Type: EventHeavyTail, Tokens: c.After})
		rvs = append([]string{"heavy-tail"}, vs...)
	}
	r.compactionFrame(FrameReplaced, "replaced", rvs, c, nil)
}

func (r *run) compactionFrame(kind FrameKind, key string, variants []string, c Compaction, selected []string) *Frame {
	keys := make([]string, 0, len(variants)+1)
	for _, v := range variants {
		keys = append(keys, key+"@"+v)
	}
	f := r.emitKind(kind, append(keys, key))
	for i := range f.Blocks {
		f.Blocks[i].Selected = slices.Contains(selected, f.Blocks[i].ID)
	}
	c.RangeIDs = slices.Clone(c.RangeIDs)
	f.Compaction = &c
	f.Decisive = true
	return f
}

// summarize returns the summary block for rng: the chosen recording of the
// card that covers exactly rng, or a labelled mechanical excerpt when no card
// does. It never makes up model text.
func (r *run) summarize(rng []Block) Block {
	ids := make([]string, len(rng))
	for i, b := range rng {
		ids[i] = b.ID
	}
	for _, card := range r.l.Cards {
		if !slices.Equal(card.Covers, ids) {
			continue
		}
		rec := card.Recordings[r.p.Recording-1]
		prov := rec.Provenance
		if len(prov) == 0 {
			prov = r.l.Provenance
		}
		return Block{
			ID: card.ID, Role: RoleUser, Kind: KindSummary, Tokens: card.Tokens, Content: rec.Content,
			Label:   Text{"en": "summary", "ja": "要約"},
			Summary: &SummaryOf{Card: card.ID, Recording: r.p.Recording, Covers: ids, Provenance: prov},
		}
	}
	r.mechanical++
	text := mechanicalExcerpt(rng)
	return Block{
		ID: fmt.Sprintf("excerpt-%d", r.mechanical), Role: RoleUser, Kind: KindSummary,
		Tokens: r.tok.Count(text), Content: text,
		Label: Text{"en": "mechanical excerpt", "ja": "機械的な抜粋"},
		Summary: &SummaryOf{Mechanical: true, Covers: ids, Provenance: Text{
			"en": "No recorded summary exists for this compaction range. The simulator cut the first line of each replaced message; no model wrote this text. Its size is its o200k_base token count.",
			"ja": "この圧縮範囲の録画された要約はありません。シミュレーターが置き換えた各メッセージの先頭行を切り出したもので、モデルが書いた文ではありません。サイズは o200k_base の token 数です。",
		}},
	}
}

// mechanicalExcerpt keeps the first line of each block, cut to 100 bytes
// on a rune boundary.
func mechanicalExcerpt(rng []Block) string {
	var sb strings.Builder
	sb.WriteString("[mechanical excerpt: no recorded summary exists for this range]\n")
	for _, b := range rng {
		line, _, _ := strings.Cut(strings.TrimSpace(b.Content), "\n")
		fmt.Fprintf(&sb, "- %s %s: %s\n", b.Role, b.Label.In("en"), cut(line, 100))
	}
	return sb.String()
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
