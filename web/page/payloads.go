package page

import (
	"cmp"
	"slices"

	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/views/draw"
)

// What a mechanism adds to a frame beyond its request and events is a
// typed payload of sim.Frame: the memory file, the spend, a sub-agent's
// second window, the cache reading, the counters. Each is rendered from
// its one entry in payloads: its fields in the frames API and everything
// the page shows of it. A new payload is a field of sim.Frame, an entry
// here, and its view in package views; nothing else in web changes.

// payload is how one typed payload of a frame is rendered. Every hook but
// json may be nil; each does nothing for a frame without the payload.
type payload struct {
	// field is the sim.Frame field the payload is.
	field string
	// json writes the payload's fields of f into the frames API. The
	// fields are a contract: extend, never rename.
	json func(w *jsonw, f *sim.Frame, mechanical string)
	// early writes json before the frame's events, narration and session
	// (the memory fields have stood there since the first lesson); the
	// others follow them, in the order of payloads.
	early bool
	// page puts the payload on a state page (the page, the presenter
	// view, the handout). It runs once the window and its blocks are on
	// the page; the pending summary's block follows.
	page func(b *Builder, v *frameView, p *views.LessonPage)
	// line is the payload's sentence in what changed at the step and in a
	// comparison's one-line diff, if it has one.
	line func(v *frameView) (string, bool)
	// marks are what the payload marks on the window's drawing.
	marks func(v *frameView) []draw.Mark
}

// payloads are the typed payloads of a frame, in the frames API's order.
// The spend and the counters are shown on the page through the figures,
// panels and legends their mechanisms give the frame. (Set in init: the
// second window is drawn by the code that draws payloads' marks.)
var payloads []payload

func init() {
	payloads = []payload{
		{field: "Memory", json: memoryJSON, early: true, page: memoryPage},
		{field: "Spend", json: spendJSON},
		{field: "Second", json: secondJSON, page: secondPage},
		{field: "Cache", json: cacheJSON, line: cacheLine, marks: cacheMarks},
		{field: "Counters", json: countersJSON},
		{field: "Categories", json: categoriesJSON, page: categoriesPage},
		{field: "Provider", json: providerJSON, line: providerLine, marks: providerMarks},
	}
}

// ---- memory: the memory file beside the window

// memoryJSON writes the memory file and the copy injected at session
// start; every frame has both fields, empty without memory.
func memoryJSON(w *jsonw, f *sim.Frame, _ string) {
	file, injected := []string{}, []string{}
	if m := f.Memory; m != nil {
		file, injected = nonNil(m.File), nonNil(m.Injected)
	}
	w.strs("memory_file", file)
	w.strs("memory_injected", injected)
}

// memoryPage shows the memory file beside the window.
func memoryPage(_ *Builder, v *frameView, p *views.LessonPage) {
	f, mem := v.f, v.f.Memory
	if mem == nil {
		return
	}
	m := views.MemoryPanel{
		Enabled: mem.Enabled, Path: mem.Path,
		HasCopy:   mem.Injected != nil,
		Changed:   len(mem.New) > 0 && mem.Injected != nil,
		FileBadge: v.ui.T("ui.changed"), CopyBadge: v.ui.T("ui.snapshot"),
	}
	for _, line := range mem.File {
		m.Lines = append(m.Lines, views.MemoryLine{Text: line, New: m.Changed && slices.Contains(mem.New, line)})
	}
	for _, b := range v.blocks() {
		if b.Kind == sim.KindMemory {
			m.Note = v.ui.F("ui.copy-note", map[string]string{"size": sizeOf(v.l.Lesson, b.Tokens), "lines": itoa(len(mem.Injected))})
		}
	}
	if f.Session > 0 && mem.Injected == nil && mem.Enabled && f.BlockCount() == 0 {
		// Between sessions the file is what the next session's copy is made
		// from: give it the next copy's transition name so it slides in.
		m.Transition = "memory-" + itoa(f.Session+1)
	}
	p.Memory = m
}

// ---- spend: what the run has spent on model calls so far

func spendJSON(w *jsonw, f *sim.Frame, _ string) {
	sp := f.Spend
	if sp == nil {
		return
	}
	w.int("spent_tokens", sp.Tokens)
	w.int("iteration", sp.Iteration)
	if sp.Sub > 0 {
		w.int("sub_spent_tokens", sp.Sub)
	}
}

// ---- second window: a sub-agent's own context beside the request

func secondJSON(w *jsonw, f *sim.Frame, mechanical string) {
	sw := f.Second
	if sw == nil {
		return
	}
	w.key("second_window")
	w.open()
	w.str("name", sw.LabelKey)
	w.int("total_tokens", sw.Total)
	w.list("blocks", len(sw.Blocks), func(i int) { w.block(&sw.Blocks[i], mechanical) })
	w.close()
}

// secondPage draws the second window a frame carries (a sub-agent's)
// beside the first, with its own sheets; on a step of such a run that
// carries none, an empty one keeps its place.
func secondPage(b *Builder, v *frameView, p *views.LessonPage) {
	var label, idle string
	for _, f := range v.frames {
		if f.Second != nil {
			label, idle = f.Second.LabelKey, cmp.Or(f.Second.IdleKey, "ui.second-idle")
			break
		}
	}
	if label == "" {
		return
	}
	if sw := v.f.Second; sw != nil {
		label = sw.LabelKey // the window this frame carries (a run may carry several kinds)
	}
	p.TwoWindows = true
	p.Window.Title = v.ui.T("ui.main-window")
	sf := sim.Frame{Step: v.f.Step, Kind: v.f.Kind, TraceStep: v.f.TraceStep, Session: v.f.Session}
	if sw := v.f.Second; sw != nil {
		sf.SetBlocks(sw.Blocks)
		sf.Total = sw.Total
	}
	sv := *v
	sv.f, sv.second = &sf, true
	w := b.drawFrame(&sv) // drawn anew: a static copy keeps each frame's first window only
	w.Title = v.ui.T(label)
	if sw := v.f.Second; sw == nil {
		w.Empty = v.ui.T(idle)
	} else if sw.LegendKey != "" {
		w.Legend = v.ui.F(sw.LegendKey, v.frameArgs())
	}
	for i := range w.Rows {
		w.Rows[i].Anchor = "sheet-second-" + w.Rows[i].ID
		p.Blocks = append(p.Blocks, w.Rows[i].BlockView)
	}
	p.Second = &w
}

// ---- cache: what the provider's prompt cache reused of the request

func cacheJSON(w *jsonw, f *sim.Frame, _ string) {
	c := f.Cache
	if c == nil {
		return
	}
	w.key("cache")
	w.open()
	w.int("reused_tokens", c.ReusedTokens)
	w.int("recomputed_tokens", c.RecomputedTokens)
	w.int("reused_blocks", c.ReusedBlocks)
	if c.FirstChanged != "" {
		w.str("first_changed", c.FirstChanged)
	}
	w.str("reason", c.Reason)
	w.close()
}

// cacheLine is the cache reading of a request the provider answered.
func cacheLine(v *frameView) (string, bool) {
	if v.f.Cache == nil || v.f.Error != "" {
		return "", false
	}
	return v.ui.F("cache.line."+v.f.Cache.Reason, v.frameArgs()), true
}

// cacheMarks marks where the prompt cache stops reusing the request (none
// on the first request, when nothing was cached).
func cacheMarks(v *frameView) []draw.Mark {
	f := v.f
	if f.Cache == nil || f.Cache.Reason == sim.CacheCold {
		return nil
	}
	at, ok := firstChanged(v.blocks())
	if !ok {
		return nil
	}
	return []draw.Mark{{Tokens: at, Text: v.ui.T("ui.cache-miss"), Kind: "cache"}}
}

// firstChanged is where the prompt cache stops reusing: the top of the
// first block it cannot reuse, in tokens.
func firstChanged(blocks []sim.Block) (int, bool) {
	at := 0
	for _, b := range blocks {
		if b.FirstChanged {
			return at, true
		}
		at += b.Tokens
	}
	return 0, false
}

// ---- counters: the mechanisms' running counters

func countersJSON(w *jsonw, f *sim.Frame, _ string) {
	if len(f.Counters) == 0 {
		return
	}
	w.key("counters")
	w.open()
	for _, c := range f.Counters {
		w.int(c.Name, c.Value)
		if c.ByName != "" {
			w.value(c.ByName, c.By)
		}
	}
	w.close()
}

// ---- categories: what the request holds, by category

// categoriesJSON writes every frame's categories: a list of {name,
// tokens} that sums to total_tokens.
func categoriesJSON(w *jsonw, f *sim.Frame, _ string) {
	w.list("categories", len(f.Categories), func(i int) {
		w.open()
		w.str("name", f.Categories[i].Name)
		w.int("tokens", f.Categories[i].Tokens)
		w.close()
	})
}

// categoriesPage draws the categories as one bar beside the meter, with
// the free space and, where compaction is on, the room above the
// threshold.
func categoriesPage(_ *Builder, v *frameView, p *views.LessonPage) {
	f := v.f
	if f.BlockCount() == 0 {
		return
	}
	limit := v.run.Window
	bar := &views.CategoryBar{Title: v.ui.T("ui.categories"), Note: v.ui.T("ui.categories-note")}
	free, reserved := max(limit-f.Total, 0), 0
	if slices.Contains(compactionLines, f.Line.Key) && f.Line.Tokens < limit {
		reserved = limit - max(f.Line.Tokens, f.Total)
		free = max(f.Line.Tokens-f.Total, 0)
	}
	scale, x := views.CategoryBarWidth/float64(max(limit, f.Total)), 0.0
	part := func(name string, n int) {
		if n > 0 {
			w := float64(n) * scale
			bar.Parts = append(bar.Parts, views.CategoryPart{Name: name, Label: v.ui.T("category." + name), Tokens: n,
				Size: sizeOf(v.l.Lesson, n), Exact: exact(n), X: x, W: w})
			x += w
		}
	}
	for _, c := range f.Categories {
		part(c.Name, c.Tokens)
	}
	part("free", free)
	part("reserved", max(reserved, 0))
	p.Window.Categories = bar
}

// compactionLines are the catalog keys of the lines above which a
// mechanism makes room (compaction's threshold, a compressor's trigger,
// the tiered compressor's pressure, the production layers' line): the
// categories bar shows the room above one apart from the free space.
var compactionLines = []string{"line.threshold", "line.trigger", "line.pressure", "line.layers"}

// ---- provider: what the provider recorded of the request a frame shows

// providerJSON writes the provider's recorded count of the request and its
// prompt-cache split: tokens read from the cache and written to it (the
// rest was computed anew and not cached).
func providerJSON(w *jsonw, f *sim.Frame, _ string) {
	pc := f.Provider
	if pc == nil {
		return
	}
	w.int("provider_tokens", pc.Tokens)
	w.int("provider_cache_read", pc.CacheRead)
	w.int("provider_cache_written", pc.CacheWritten)
}

// providerLine is the recorded cache reading of the request.
func providerLine(v *frameView) (string, bool) {
	pc := v.f.Provider
	if pc == nil {
		return "", false
	}
	return v.ui.F("provider.line", map[string]string{"tokens": sizeOf(v.l.Lesson, pc.Tokens), "read": sizeOf(v.l.Lesson, pc.CacheRead),
		"written": sizeOf(v.l.Lesson, pc.CacheWritten), "new": sizeOf(v.l.Lesson, pc.Input)}), true
}

// providerMarks marks, on a request that is the recorded one, where what
// the provider read from its cache ends.
func providerMarks(v *frameView) []draw.Mark {
	pc := v.f.Provider
	if pc == nil || !pc.Matches || pc.CacheRead == 0 || pc.CacheRead >= pc.Tokens {
		return nil
	}
	return []draw.Mark{{Tokens: pc.CacheRead, Kind: "cache", Text: v.ui.F("ui.provider-cache", map[string]string{
		"read": sizeOf(v.l.Lesson, pc.CacheRead), "written": sizeOf(v.l.Lesson, pc.CacheWritten)})}}
}
