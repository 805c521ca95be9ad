package sim_test

import (
	"os"
	"slices"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// prefixModel is the provider's prompt cache as this test models it, from
// the requests as sent and apart from the engine's cache code: the cache
// holds the last request the provider accepted, followed by every block
// the model wrote in answer to it.
type prefixModel struct {
	cached []sim.Block
	warm   bool // a request was accepted
	fresh  int  // tokens of every request so far that the cache could not reuse
}

// reuse is the longest prefix of req the model's cache holds, same block
// and same text: its blocks and tokens.
func (m *prefixModel) reuse(req []sim.Block) (blocks, tokens int) {
	for blocks < len(req) && blocks < len(m.cached) && req[blocks].ID == m.cached[blocks].ID && req[blocks].Content == m.cached[blocks].Content {
		tokens += req[blocks].Tokens
		blocks++
	}
	return blocks, tokens
}

func (m *prefixModel) request(req []sim.Block) {
	_, reused := m.reuse(req)
	for _, b := range req {
		m.fresh += b.Tokens
	}
	m.fresh -= reused
	m.cached, m.warm = slices.Clone(req), true
}

// TestPromptCacheByPrefixModel: every frame of every lesson, under every
// preset policy and every threshold and alpha from 1 to 100, shows the
// cache the prefix model gives from the requests as sent (reused and
// recomputed tokens, reused blocks, the first changed block, each block's
// cached mark, a cold start), and the spend meter's fresh tokens are the
// model's. Frames of a refused request have no cache.
func TestPromptCacheByPrefixModel(t *testing.T) {
	for id, l := range everyLesson(t) {
		t.Run(id, func(t *testing.T) {
			_, priced := l.Mechanism("prompt_cache")
			tok, _ := loadTok()
			fails := 0
			errorf := func(format string, args ...any) {
				if fails++; fails <= 20 {
					t.Errorf(format, args...)
				}
			}
			for _, p := range sweep(t, l) {
				r, wire, err := sim.RunWire(l, p, tok)
				if err != nil {
					t.Fatal(err)
				}
				m := &prefixModel{}
				for k, e := range wire {
					switch {
					case e.Request != nil:
						m.request(e.Request)
						if e.Frame >= 0 {
							checkFresh(errorf, p, r.Frames[e.Frame], m.fresh)
						}
					case e.Wrote != nil:
						m.cached = append(m.cached, *e.Wrote)
					default:
						f := r.Frames[e.Frame]
						shownNext := k+1 < len(wire) && wire[k+1].Request != nil && wire[k+1].Frame == e.Frame
						if !shownNext {
							checkFresh(errorf, p, f, m.fresh)
						}
						if !priced || f.Error != "" {
							if f.Cache != nil {
								errorf("Run(%s) frame %d: a cache without a prompt cache or on a refused request", p, f.Step)
							}
							continue
						}
						checkFrameCache(errorf, p, f, m)
					}
				}
			}
			if fails > 20 {
				t.Errorf("%d problems in all, 20 shown", fails)
			}
		})
	}
}

// checkFrameCache compares a frame's cache with the model's.
func checkFrameCache(errorf func(string, ...any), p sim.Policy, f sim.Frame, m *prefixModel) {
	c := f.Cache
	if c == nil {
		errorf("Run(%s) frame %d: no cache", p, f.Step)
		return
	}
	n, reused := m.reuse(f.Blocks())
	first := ""
	if n < len(f.Blocks()) {
		first = f.Blocks()[n].ID
	}
	if c.ReusedTokens != reused || c.RecomputedTokens != f.Total-reused || c.ReusedBlocks != n || c.FirstChanged != first {
		errorf("Run(%s) frame %d: cache reused %d (%d blocks), recomputed %d, first %q; the prefix model gives %d (%d blocks), %d, %q",
			p, f.Step, c.ReusedTokens, c.ReusedBlocks, c.RecomputedTokens, c.FirstChanged, reused, n, f.Total-reused, first)
	}
	for i, b := range f.Blocks() {
		if b.Cached != (i < n) {
			errorf("Run(%s) frame %d: block %s cached=%v; the prefix model says %v", p, f.Step, b.ID, b.Cached, i < n)
		}
	}
	if (c.Reason == sim.CacheCold) != !m.warm {
		errorf("Run(%s) frame %d: reason %s, but a request was accepted before: %v", p, f.Step, c.Reason, m.warm)
	}
}

// checkFresh compares the spend meter's tokens computed without the cache
// with the model's, on a frame that reports them.
func checkFresh(errorf func(string, ...any), p sim.Policy, f sim.Frame, fresh int) {
	if g, ok := f.Figure("spent-fresh"); ok && g.Value != fresh {
		errorf("Run(%s) frame %d: spent-fresh %d; the prefix model gives %d", p, f.Step, g.Value, fresh)
	}
}

// everyLesson is every built-in lesson and the combined test lesson
// (tiered compaction with memory).
func everyLesson(t *testing.T) map[string]*sim.Lesson {
	t.Helper()
	ls, err := loadBuiltins()
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := loadTok()
	combined, err := scenarios.LoadDir(os.DirFS("../scenarios/testdata"), "tiered-memory", "testdata", nil, tok)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]*sim.Lesson{combined.ID: combined.Lesson}
	for id, l := range ls {
		all[id] = l
	}
	return all
}
