package sim

import "slices"

// summaryOf is the summary block that replaces rng: the policy's version
// (the rec parameter; the first without it) of the card among cards that
// covers exactly rng's blocks, or, when none does, a labelled mechanical
// excerpt with id excerptID. No model text is made up. (The instructions
// and layers mechanisms use it.)
func summaryOf(h *harness, cards []Card, rng []Block, excerptID string) Block {
	ids := make([]string, len(rng))
	for i, b := range rng {
		ids[i] = b.ID
	}
	for _, card := range cards {
		if !slices.Equal(card.Covers, ids) {
			continue
		}
		n := min(max(h.p.Int("rec"), 1), len(card.Versions))
		v := card.Versions[n-1]
		b := Block{ID: card.ID, Role: RoleUser, Kind: KindSummary, Tokens: card.Tokens, Content: v.Content, LabelKey: "block.summary",
			Summary: &SummaryOf{Card: card.ID, Version: n, Versions: len(card.Versions), ModelWritten: v.ModelWritten, Covers: ids, Provenance: v.Provenance}}
		if h.l.Counted || b.Tokens == 0 || card.counted(n) {
			b.Tokens = h.count(b.Content)
		}
		return b
	}
	text, _ := mechanicalExcerpt(rng)
	return Block{ID: excerptID, Role: RoleUser, Kind: KindSummary, Tokens: h.count(text), Content: text,
		LabelKey: "block.excerpt", Origin: &Msg{Key: "mechanical"}, Summary: &SummaryOf{Mechanical: true, Covers: ids}}
}

// modelWrittenPick reports whether the policy's version of the cards (the rec
// parameter) is a model's output rather than text written for
// the lesson: the figure "recorded" says so on every frame, so that the
// narration can tell the two apart.
func modelWrittenPick(h *harness, cards []Card) bool {
	if len(cards) == 0 {
		return false
	}
	n := min(max(h.p.Int("rec"), 1), len(cards[0].Versions))
	return cards[0].Versions[n-1].ModelWritten
}
