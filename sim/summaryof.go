package sim

import "slices"

// summaryOf is the summary block that replaces rng: the first version of
// the card among cards that covers exactly rng's blocks, or, when none
// does, a labelled mechanical excerpt with id excerptID. No model text is
// made up. (The instructions and layers mechanisms use it; compaction
// picks a version of its cards by the rec parameter.)
func summaryOf(h *harness, cards []Card, rng []Block, excerptID string) Block {
	ids := make([]string, len(rng))
	for i, b := range rng {
		ids[i] = b.ID
	}
	for _, card := range cards {
		if !slices.Equal(card.Covers, ids) {
			continue
		}
		v := card.Versions[0]
		b := Block{ID: card.ID, Role: RoleUser, Kind: KindSummary, Tokens: card.Tokens, Content: v.Content, LabelKey: "block.summary",
			Summary: &SummaryOf{Card: card.ID, Version: 1, Versions: len(card.Versions), Recorded: v.Recorded, Covers: ids, Provenance: v.Provenance}}
		if h.l.Counted || b.Tokens == 0 {
			b.Tokens = h.count(b.Content)
		}
		return b
	}
	text, _ := mechanicalExcerpt(rng)
	return Block{ID: excerptID, Role: RoleUser, Kind: KindSummary, Tokens: h.count(text), Content: text,
		LabelKey: "block.excerpt", Origin: &Msg{Key: "mechanical"}, Summary: &SummaryOf{Mechanical: true, Covers: ids}}
}
