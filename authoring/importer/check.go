package importer

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"ctxsim/authoring/summarizer"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// replay replays the lesson: under its default policy (the session as it
// happened), and under every preset policy when a summarizer is to write
// the summaries the presets lack. Serving checks every preset again.
func (im *imp) replay(l *scenarios.Lesson) error {
	ps := []sim.Policy{l.DefaultPolicy()}
	if im.opt.Summarizer != nil || im.opt.AllPresets {
		ps = l.PresetPolicies()
	}
	if c, ok := im.opt.Tokens.(interface{ CountAll([]string) }); ok {
		c.CountAll(l.Texts()) // the replays then only look counts up
	}
	im.seen = &replays{byPreset: make([][]span, len(ps)), peaks: map[string]int{}}
	if err := sim.RunEach(l.Lesson, ps, im.opt.Tokens, im.seen.visit); err != nil {
		return fmt.Errorf("replay %s: %w", im.id, err)
	}
	return nil
}

// replays is what the importer learns from its replays (replay): the
// ranges compacted to a mechanical excerpt, and each run's largest
// request.
type replays struct {
	mu       sync.Mutex
	byPreset [][]span       // mechanical ranges, by index of the replayed policy
	peaks    map[string]int // largest request, by policy
}

// visit checks one replay: no request may break a tool pair (a bug of the
// import, not of the session); it keeps the replay's mechanical ranges.
// sim.RunEach calls it from several goroutines.
func (rs *replays) visit(i int, p sim.Policy, r *sim.Replay) error {
	var spans []span
	peak := 0
	for _, f := range r.Frames {
		if strings.Contains(f.Error, "tool_use") {
			return fmt.Errorf("replay under %s, step %d: the request breaks a tool pair (a bug in ctxsim import; please report it): %s", p, f.Step, f.Error)
		}
		peak = max(peak, f.Total)
		if b := f.Pending; b != nil && b.Summary != nil && b.Summary.Mechanical {
			spans = append(spans, span{covers: b.Summary.Covers, blocks: selected(f.Blocks(), b.Summary.Covers)})
		}
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.byPreset[i] = spans
	rs.peaks[p.String()] = peak
	return nil
}

// mechanical is every range some preset compacts to a mechanical excerpt,
// once each, in preset order.
func (rs *replays) mechanical() []span {
	var out []span
	seen := map[string]bool{}
	for _, spans := range rs.byPreset {
		for _, sp := range spans {
			key := strings.Join(sp.covers, " ")
			if !seen[key] {
				seen[key] = true
				out = append(out, sp)
			}
		}
	}
	return out
}

// span is a range some preset compacts without a summary.
type span struct {
	covers []string
	blocks []sim.Block
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

// summarize asks the summarizer for every range a preset compacts to a
// mechanical excerpt, adds the summaries as cards and rebuilds, until no
// new range appears (summaries change later sizes) or maxRounds.
func (im *imp) summarize(ctx context.Context, l *scenarios.Lesson) (*scenarios.Lesson, error) {
	for round := 1; round <= maxRounds; round++ {
		ranges := im.seen.mechanical()
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
			im.generated = append(im.generated, lessonfile.Card{ID: id, Covers: sp.covers,
				Versions: []lessonfile.Version{{Content: sum.Text, ModelWritten: true, Provenance: im.w.summarizer(sum)}}})
			im.rep.Summarized++
			added++
		}
		if added == 0 {
			return l, nil
		}
		var err error
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
	var t summarizer.Transcript
	for _, bl := range bs {
		who := string(bl.Role)
		if bl.Tool != "" {
			who += " " + bl.Tool
		}
		text := bl.Content
		if bl.Kind == sim.KindToolCall && bl.Args != "" {
			text = bl.Args
		}
		if !t.Add(who, text) {
			break
		}
	}
	return t.String()
}
