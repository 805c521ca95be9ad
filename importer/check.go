package importer

import (
	"context"
	"fmt"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// check replays the lesson under every preset policy: no request may break
// a tool pair (a bug of the import, not of the session), and the ranges
// left to mechanical excerpts are counted for the report.
func (im *imp) check(l *scenarios.Lesson) error {
	ranges, err := im.mechanical(l)
	if err != nil {
		return err
	}
	im.rep.Mechanical = len(ranges)
	return nil
}

// span is a range some preset compacts without a summary.
type span struct {
	covers []string
	blocks []sim.Block
}

// mechanical replays every preset policy and returns, once each, the ranges
// compacted to a mechanical excerpt.
func (im *imp) mechanical(l *scenarios.Lesson) ([]span, error) {
	var out []span
	seen := map[string]bool{}
	presets := l.PresetPolicies()
	im.rep.Policies = len(presets)
	for _, p := range presets {
		r, err := sim.Run(l.Lesson, p, im.opt.Tokens)
		if err != nil {
			return nil, fmt.Errorf("replay %s under %s: %w", im.id, p, err)
		}
		for _, f := range r.Frames {
			if strings.Contains(f.Error, "tool_use") {
				return nil, fmt.Errorf("replay %s under %s, step %d: the request breaks a tool pair (a bug in ctxsim import; please report it): %s", im.id, p, f.Step, f.Error)
			}
			b := f.Pending
			if b == nil || b.Summary == nil || !b.Summary.Mechanical {
				continue
			}
			key := strings.Join(b.Summary.Covers, " ")
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, span{covers: b.Summary.Covers, blocks: selected(f.Blocks, b.Summary.Covers)})
		}
	}
	return out, nil
}

// selected is the blocks of a frame a range covers, in order.
func selected(bs []sim.Block, ids []string) []sim.Block {
	in := map[string]bool{}
	for _, id := range ids {
		in[id] = true
	}
	var out []sim.Block
	for _, b := range bs {
		if in[b.ID] {
			out = append(out, b)
		}
	}
	return out
}

// Bounds of what is sent to the summarizer for one range.
const (
	blockChars = 6000   // of one block's text
	rangeChars = 300000 // of the whole range
)

// summarize asks the summarizer for every range a preset compacts to a
// mechanical excerpt, adds the summaries as cards and rebuilds, until no
// new range appears (summaries change later sizes) or maxRounds.
func (im *imp) summarize(ctx context.Context, l *scenarios.Lesson) (*scenarios.Lesson, error) {
	for round := 1; round <= maxRounds; round++ {
		ranges, err := im.mechanical(l)
		if err != nil {
			return nil, err
		}
		added := 0
		for _, sp := range ranges {
			if !summarizable(sp.covers) {
				continue // covers an excerpt of an earlier range: the next round sees it summarized
			}
			im.logf("summarizing %d messages (%s … %s), round %d", len(sp.covers), sp.covers[0], sp.covers[len(sp.covers)-1], round)
			sum, err := im.opt.Summarizer.Summarize(ctx, conversation(sp.blocks))
			if err != nil {
				return nil, fmt.Errorf("summarize %s … %s: %w", sp.covers[0], sp.covers[len(sp.covers)-1], err)
			}
			id := fmt.Sprintf("g%d", len(im.generated)+1)
			im.generated = append(im.generated, card{ID: id, Covers: sp.covers, Versions: []version{{
				Content: sum.Text, Recorded: true,
				Provenance: map[string]string{
					"en": fmt.Sprintf("Written at import by %s (%s, %s API) on %s, asked with ctxsim's summarizer prompt: not a summary the session itself recorded.", sum.Model, sum.Endpoint, sum.API, sum.Date.UTC().Format("2006-01-02")),
					"ja": fmt.Sprintf("取り込み時に %s（%s、%s API）が %s に書いた要約です（ctxsim の要約プロンプトによる）。セッション自身が記録した要約ではありません。", sum.Model, sum.Endpoint, sum.API, sum.Date.UTC().Format("2006-01-02")),
				}}}})
			im.rep.Summarized++
			added++
		}
		if added == 0 {
			return l, nil
		}
		if l, err = im.build(); err != nil {
			return nil, err
		}
	}
	im.rep.Warnings = append(im.rep.Warnings, fmt.Sprintf("the summarizer loop stopped after %d rounds; some ranges stay mechanical excerpts", maxRounds))
	return l, nil
}

// summarizable reports whether a range names only trace blocks and cards
// (not a mechanical excerpt of the same replay).
func summarizable(covers []string) bool {
	for _, id := range covers {
		if strings.HasPrefix(id, "excerpt-") {
			return false
		}
	}
	return true
}

// conversation renders a range for the summarizer: one paragraph per
// message, each and the whole bounded.
func conversation(bs []sim.Block) string {
	var b strings.Builder
	for _, bl := range bs {
		who := string(bl.Role)
		if bl.Tool != "" {
			who += " " + bl.Tool
		}
		text := bl.Content
		if bl.Kind == sim.KindToolCall && bl.Args != "" {
			text = bl.Args
		}
		fmt.Fprintf(&b, "[%s] %s\n\n", who, cut(strings.TrimSpace(text), blockChars))
		if b.Len() > rangeChars {
			b.WriteString("[… the rest of the range is left out]\n")
			break
		}
	}
	return b.String()
}

// cut keeps the first n bytes of s on a rune boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + " […]"
}
