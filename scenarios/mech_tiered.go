package scenarios

import (
	"strings"

	"ctxsim/sim"
)

// tiered checks the tiered compressor, whose configuration the file gives
// as sim.Tiered is.
func (b *builder) tiered(r *sim.Tiered, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.tiered"
	rr := r.Rules
	switch {
	case r.Pressure <= 0:
		b.fail(p+".pressure", "must be a positive number of tokens")
	case !inEvery(r.SummaryProvenance):
		b.fail(p+".summary_provenance", "needs %s: say who wrote the Tier 2 summaries, and that they are not model output if they are not", everyLanguage())
	case rr.KeepRecent <= 0:
		b.fail(p+".rules.keep_recent", "must be a positive number of results")
	case rr.Tier1Distance <= rr.KeepRecent:
		b.fail(p+".rules.tier1_distance", "must be above keep_recent (%d)", rr.KeepRecent)
	case rr.SemanticMinChars <= 0 || rr.ExcerptChars <= 0 || rr.ArgsChars <= 0:
		b.fail(p+".rules", "semantic_min_chars, excerpt_chars and args_chars must be positive")
	case rr.HeadPercent < 1 || rr.HeadPercent > 99:
		b.fail(p+".rules.head_percent", "must be from 1 to 99, got %d", rr.HeadPercent)
	case rr.MaxSemanticPerPass < 0:
		b.fail(p+".rules.max_semantic_per_pass", "must not be negative")
	case len(rr.FloorTools) == 0:
		b.fail(p+".rules.floor_tools", "is required")
	}
	if b.err == nil && !r.Optional {
		b.checkSummaries(rr, l)
	}
	return *r
}

// checkSummaries requires a Tier 2 summary exactly for the results a pass
// may ask a model to summarize, tagged and within the Tier 2 cap.
func (b *builder) checkSummaries(rules sim.TierRules, l *sim.Lesson) {
	texts, _, _ := b.ws().Results(b.ops)
	opText := map[*sim.FileOp]string{}
	for i, op := range b.ops {
		if i < len(texts) {
			opText[op] = texts[i]
		}
	}
	for _, st := range l.Trace {
		for _, m := range st.Messages {
			if m.Role != sim.RoleTool || m.Tool == "" {
				continue
			}
			text := m.Content
			if m.Op != nil {
				text = opText[m.Op]
			}
			p := b.paths[m.ID] + ".summary"
			n := runes(text)
			eligible := n > rules.SemanticMinChars && rules.Summarizable(m.Tool)
			switch {
			case eligible && m.Summary == "":
				b.fail(p, "is required: the result has %d characters (over %d) and %s may be summarized by a model, so a Tier 2 pass can ask for its summary",
					n, rules.SemanticMinChars, m.Tool)
			case !eligible && m.Summary != "":
				b.fail(p, "is never used: only results over %d characters of a tool a model may summarize get one (this one has %d)", rules.SemanticMinChars, n)
			case m.Summary != "" && !strings.HasPrefix(m.Summary, "[micro-compact]"):
				b.fail(p, "must start with the tag [micro-compact]")
			case m.Summary != "" && runes(m.Summary) > rules.ExcerptChars:
				b.fail(p, "has %d characters; Tier 2 output is capped at %d", runes(m.Summary), rules.ExcerptChars)
			}
		}
	}
}
