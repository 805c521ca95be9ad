package sim

import (
	"slices"
	"strconv"
)

// PromptCache is the prompt_cache mechanism: the provider caches each
// request and what the model generated, and reuses the longest unchanged
// prefix of the next request. The harness meters every frame's request
// against it. Pricing adds the alpha parameter: the cached-input price as
// a percent of the normal input price.
type PromptCache struct {
	Pricing bool
	Alpha   int   // default alpha, percent
	Presets []int // alpha values offered as buttons
	Panel   bool  // show the cache panel beside the window
}

// Name is "prompt_cache".
func (PromptCache) Name() string { return "prompt_cache" }

// Params is alpha when the lesson prices the cache.
func (c PromptCache) Params() []Param {
	if !c.Pricing {
		return nil
	}
	return []Param{intParam("alpha", 1, 100, c.Alpha, c.Presets, true)}
}

func (c PromptCache) start(h *harness) hooks {
	h.cache = &cacheMeter{}
	return &cacheRun{cfg: c}
}

type cacheRun struct {
	base
	cfg PromptCache
}

// frame adds the cache panel and the legend.
func (r *cacheRun) frame(h *harness, f *Frame, fc frameCtx) {
	c := f.Cache
	if c == nil {
		return
	}
	f.Legend = "legend.cache"
	f.Figures = append(f.Figures, tokens("reused", c.ReusedTokens), tokens("recomputed", c.RecomputedTokens))
	if !r.cfg.Panel {
		return
	}
	first := text("first", "—")
	if c.FirstChanged != "" {
		first = blockRef("first", c.FirstChanged)
	}
	f.Panels = append(f.Panels, Panel{ID: "cache", Tone: "info", Section: "panel:cache", Rows: []Row{
		{Key: "reused", Values: []Figure{tokens("tokens", c.ReusedTokens), count("blocks", c.ReusedBlocks)}, Emph: true},
		{Key: "recomputed", Values: []Figure{tokens("tokens", c.RecomputedTokens)}},
		{Key: "first", Values: []Figure{first}, Note: &Msg{Key: "cache.reason." + c.Reason}},
	}})
}

// cacheMeter holds what the provider cached after the last model call:
// the request as sent, then what the model wrote in answer to it. A model
// call that writes several blocks (parallel tool calls, whose results the
// harness puts between them) adds each of them after the request; the
// results were never sent, so they are not cached.
type cacheMeter struct {
	cached []cachedBlock
	warm   bool // a request was sent
}

// cachedBlock is what the prompt cache compares of a block.
type cachedBlock struct {
	id, content string
	kind        Kind
}

// request records the request of h, which the provider accepted: the
// provider caches it in place of the previous one.
func (m *cacheMeter) request(h *harness) {
	m.cached = m.cached[:0]
	h.each(func(b *Block) bool {
		m.cached = append(m.cached, cachedBlock{b.ID, b.Content, b.Kind})
		return true
	})
	m.warm = true
}

// wrote records a block the model wrote in answer to the last request:
// the provider caches it after that request.
func (m *cacheMeter) wrote(out *Block) {
	m.cached = append(m.cached, cachedBlock{out.ID, out.Content, out.Kind})
}

// reused is the tokens of the longest prefix of h's request that the
// provider cached (same block, same text).
func (m *cacheMeter) reused(h *harness) int {
	n, i := 0, 0
	h.each(func(b *Block) bool {
		if i >= len(m.cached) || b.ID != m.cached[i].id || b.Content != m.cached[i].content {
			return false
		}
		n += b.Tokens
		i++
		return true
	})
	return n
}

// compare finds the longest prefix of req that the provider cached (same
// block, same text), marks it on the blocks, and says what is left to
// recompute.
func (m *cacheMeter) compare(req []Block) Cache {
	cached := m.cached
	var c Cache
	n := 0
	for n < len(req) && n < len(cached) && req[n].ID == cached[n].id && req[n].Content == cached[n].content {
		c.ReusedTokens += req[n].Tokens
		n++
	}
	c.ReusedBlocks = n
	inCache := map[string]string{}
	for _, b := range cached[n:] {
		inCache[b.id] = b.content
	}
	for _, b := range req[n:] {
		c.RecomputedTokens += b.Tokens
		if text, ok := inCache[b.ID]; ok && text == b.Content {
			c.InvalidatedTokens += b.Tokens
		}
	}
	for _, b := range req[:max(len(req)-1, 0)] {
		if b.Kind == KindStatus {
			c.OldStatusTokens += b.Tokens
		}
	}
	if n < len(req) {
		c.FirstChanged = req[n].ID
	}
	switch {
	case !m.warm:
		c.Reason = CacheCold
	case n == 0 && len(req) > 0 && req[0].Role == RoleSystem:
		c.Reason = CacheSystemChanged
	case n < len(cached) && cached[n].kind == KindStatus:
		c.Reason = CacheStatusReplaced
	case parallel(req, cached, n):
		c.Reason = CacheParallel
	case n < len(cached):
		c.Reason = CacheRewritten
	default:
		c.Reason = CacheAppend
	}
	for i := range req {
		req[i].Cached = i < n
		req[i].FirstChanged = req[i].ID == c.FirstChanged
	}
	return c
}

// CacheParallel is the prompt cache's reason when the model wrote several
// tool calls in one response: the first call's result, new, goes before the
// next call, so the reused prefix ends at that result.
const CacheParallel = "parallel"

// parallel reports whether the request req leaves the cache at n because a
// new tool result answers the call before it while the cache goes on with
// the next call the same response wrote.
func parallel(req []Block, cached []cachedBlock, n int) bool {
	if n == 0 || n >= len(req) || n >= len(cached) || cached[n].kind != KindToolCall {
		return false
	}
	r := req[n]
	return r.Role == RoleTool && req[n-1].Kind == KindToolCall && req[n-1].ToolUseID == r.ToolUseID &&
		!slices.ContainsFunc(cached[n:], func(c cachedBlock) bool { return c.id == r.ID })
}

// percent writes a percent figure.
func percent(name string, v int) Figure { return Figure{Name: name, Value: v, Unit: UnitPercent} }

// itoa is strconv.Itoa.
func itoa(n int) string { return strconv.Itoa(n) }
