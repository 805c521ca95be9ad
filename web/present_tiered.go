package web

import (
	"fmt"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// tieredExtras draws the tiered-compaction lesson's window as one row per
// iteration (a tool call and its result share a row: 80-odd messages do not
// fit a projector one per row), badges each result with its tier and
// distance, marks where each frame's rewrites invalidate the prompt cache,
// and adds the counters, the pass and the rules panels.
func (s *Server) tieredExtras(in pageInput, p *views.LessonPage) {
	l, st := in.lesson, in.state
	f := in.frames[st.Step-1]
	tw := tieredWordsFor(st.Lang)
	// The compressor has run once a frame before this one crossed the line
	// (the crossing frame itself shows the request before the first pass).
	started := false
	for _, g := range in.frames[:st.Step-1] {
		started = started || len(eventsOfType(g, sim.EventPressure)) > 0
	}
	p.Window = s.tieredWindow(l, st, f, p.Window, tw, started)
	p.Panels = append(p.Panels, countersPanel(l.Lesson, in.frames[:st.Step], tw))
	if pn, ok := passPanel(f, tw); ok {
		p.Panels = append(p.Panels, pn)
	}
	p.Panels = append(p.Panels, rulesPanel(l, st, tw))
}

// tieredRow is one drawn row: a tool call with its result, or a lone block
// (the system prompt, the task, a call whose result was dropped).
type tieredRow struct {
	call, main *sim.Block
	tokens     int
}

func tieredRows(blocks []sim.Block) []tieredRow {
	var rows []tieredRow
	for i := 0; i < len(blocks); i++ {
		b := &blocks[i]
		if b.Kind == sim.KindToolCall && i+1 < len(blocks) && blocks[i+1].Role == sim.RoleTool && blocks[i+1].ToolUseID == b.ToolUseID {
			r := &blocks[i+1]
			rows = append(rows, tieredRow{call: b, main: r, tokens: b.Tokens + r.Tokens})
			i++
			continue
		}
		rows = append(rows, tieredRow{main: b, tokens: b.Tokens})
	}
	return rows
}

// Minimum row heights, in u. Forty-odd iterations do not fit a projector at
// the foundation's minimum, so only the rows a reader needs to read keep it:
// the prompt and task, file reads (the story's file), the Tier 3 window and
// the first call left without its result. Older rows are drawn at their true
// size with a thin minimum: their tier shows as colour and pattern, their
// text in the sheet and the table.
const thinRowU = 22

func fullRow(r tieredRow, keepRecent int, firstOrphan bool) bool {
	switch {
	case r.call == nil && r.main.Kind == sim.KindToolCall:
		return firstOrphan
	case r.call == nil:
		return true // system prompt, task
	}
	return r.main.Tool == "file_read" || r.main.Distance < keepRecent
}

// tieredLayout places rows to scale, with the pressure line where the
// threshold line of the foundation's window goes.
func tieredLayout(rows []tieredRow, window, pressure, keepRecent int) layout {
	var lo layout
	blocks := make([]sim.Block, len(rows))
	lo.heights = make([]int, len(rows))
	orphanSeen := false
	for i, r := range rows {
		blocks[i].Tokens = r.tokens
		orphan := r.call == nil && r.main.Kind == sim.KindToolCall
		minU := thinRowU
		if fullRow(r, keepRecent, orphan && !orphanSeen) {
			minU = minBlockU
		}
		orphanSeen = orphanSeen || orphan
		lo.heights[i] = clampU(max(minU, scaled(r.tokens, window)))
		lo.stackU += lo.heights[i]
	}
	lo.threshold = positionOf(pressure, blocks, lo.heights, window)
	lo.edge = positionOf(window, blocks, lo.heights, window)
	lo.box = clampU(max(lo.edge, lo.stackU))
	if lo.stackU > lo.edge {
		lo.overflow = lo.stackU - lo.edge
	}
	return lo
}

// rewrittenIn lists the results a frame's pass rewrote, and the earliest
// message index it invalidated the cache from.
func rewrittenIn(f sim.Frame) (map[string]sim.Event, int) {
	out := map[string]sim.Event{}
	first := -1
	for _, e := range f.Events {
		if e.Type != sim.EventCacheCompaction || e.Index == nil {
			continue
		}
		out[e.Block] = e
		if first < 0 || *e.Index < first {
			first = *e.Index
		}
	}
	return out, first
}

func (s *Server) tieredWindow(l *scenarios.Lesson, st State, f sim.Frame, w views.Window, tw tieredWords, latched bool) views.Window {
	pressure := l.Tiered.Pressure
	rewritten, firstIdx := rewrittenIn(f)
	rows := tieredRows(f.Blocks)
	lo := tieredLayout(rows, l.Window, pressure, l.Tiered.Rules.KeepRecent)
	ui := views.UIFor(st.Lang)
	ph := phrasesFor(st.Lang)
	w.Blocks = nil
	w.BoxU, w.StackU, w.EdgeU, w.OverflowU = lo.box, lo.stackU, lo.edge, lo.overflow
	w.ShowThreshold, w.ThresholdU = true, lo.threshold
	w.ThresholdLabel = fmt.Sprintf(tw.pressureLine, kTokens(pressure))
	w.FitU = s.fit[l.ID]
	switch {
	case f.Error != "":
		w.MeterState = "error"
		w.Error = shortRefusal(f)
	case f.Total > pressure:
		w.MeterState = "warn"
	default:
		w.MeterState = "ok"
	}
	w.Compacting = f.Kind == sim.FrameTierPass // the first pass: its rewrites stand out, the rest is dimmed
	if c := f.Cache; c != nil {
		w.Legend = fmt.Sprintf(tw.legend, exact(c.ReusedTokens), exact(c.RecomputedTokens))
	}
	switch {
	case len(eventsOfType(f, sim.EventPressure)) > 0:
		w.Legend = fmt.Sprintf(tw.legendCrossed, kTokens(pressure))
	case !latched:
		w.Legend = fmt.Sprintf(tw.legendOff, kTokens(pressure))
	}
	// The row where the cache reuse ends: the earliest message this
	// frame's pass rewrote (messages.N is block N+1).
	firstRow := ""
	if firstIdx >= 0 && firstIdx+1 < len(f.Blocks) {
		firstRow = f.Blocks[firstIdx+1].ID
	}
	for i, r := range rows {
		v := s.blockView(l.Lesson, *r.main, lo.heights[i], st.Lang, ui, ph)
		v.Summary, v.Mechanical = false, false
		v.Small, v.Roomy = lo.heights[i] < 2*minBlockU, lo.heights[i] >= 3*minBlockU
		v.Size, v.Exact = sizeOf(l.Lesson, r.tokens), exact(r.tokens)
		v.Provenance = tw.provenance(r.main, l.Tiered)
		v.FirstChanged = r.main.ID == firstRow || (r.call != nil && r.call.ID == firstRow)
		if r.call != nil || r.main.Kind == sim.KindToolCall {
			v.RoleLabel = "" // every row is a tool call: the badges say more
			v.Label = shortLabel(r.main.Label.In(st.Lang))
		}
		if r.call != nil {
			full := lo.heights[i] >= minBlockU
			_, v.Selected = rewritten[r.main.ID] // every rewrite of this frame is outlined
			v.New = r.call.New || r.main.New
			v.Cached = r.call.Cached && r.main.Cached
			v.Content = tw.sheetText(*r.call, *r.main)
			v.Badges = tw.badges(*r.main, rewritten, l.Tiered.Rules, full, len(rewritten) <= 3, latched)
			if !full {
				v.Size = "" // a thin row has room for its name and tier only; the table has the size
			}
			v.KindLabel = tw.kinds[string(r.main.Kind)]
			if e, ok := rewritten[r.main.ID]; ok && r.main.Kind == sim.KindSummary && e.Reason == string(sim.KindSummary) {
				v.Summary = true // a new semantic summary: shown as a card beside the window
			}
			v.Description = fmt.Sprintf(tw.rowDescription, v.Label, r.main.ToolUseID, exact(r.call.Tokens), exact(r.main.Tokens),
				exact(r.main.Chars), v.KindLabel, strings.Join(badgeTexts(v.Badges), ", "))
		} else if r.main.Kind == sim.KindToolCall {
			v.Badges = []views.Badge{{Text: tw.noResult, Tone: "warn"}, {Text: r.main.ToolUseID, Tone: "info"}}
			v.Description = fmt.Sprintf(tw.orphanDescription, v.Label, r.main.ToolUseID)
		}
		if v.Content != "" {
			n := exact(s.tok.Count(v.Content))
			v.Excerpt = fmt.Sprintf("%s (%s)", n, ui.ExcerptCount)
			v.ExcerptShort = fmt.Sprintf(ui.ExcerptShort, n)
		}
		w.Blocks = append(w.Blocks, v)
	}
	return w
}

// tieredFit is the tallest stack of rows of any preset run of l, in u: the
// drawing scale, the same at every step and in every mode. It is the stack,
// not the box: after a pass most of the window is free, and drawing that
// free space on screen would shrink every row below reading size; the empty
// part of the box runs on below the fold instead. Server.New computes it
// once at start-up.
func (s *Server) tieredFit(l *scenarios.Lesson) int {
	const fitMarginU = 60 // the legend line above the box and a little air below the stack
	fit := 0
	for _, p := range sim.PresetPolicies(l.Lesson) {
		frames, err := s.run(l, p)
		if err != nil {
			continue
		}
		for _, f := range frames {
			fit = max(fit, tieredLayout(tieredRows(f.Blocks), l.Window, l.Tiered.Pressure, l.Tiered.Rules.KeepRecent).stackU)
		}
	}
	return fit + fitMarginU
}

// shortLabel keeps a row's label readable in the narrow window column: the
// tool, then the file name or the first words of the command.
func shortLabel(label string) string {
	tool, arg, ok := strings.Cut(label, " ")
	if !ok {
		return label
	}
	if strings.Contains(arg, "/") && !strings.Contains(arg, " ") {
		arg = arg[strings.LastIndex(arg, "/")+1:]
	}
	if r := []rune(arg); len(r) > 28 {
		arg = string(r[:27]) + "…"
	}
	return tool + " " + arg
}

func eventsOfType(f sim.Frame, typ string) []sim.Event {
	var out []sim.Event
	for _, e := range f.Events {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func badgeTexts(bs []views.Badge) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Text
	}
	return out
}

// shortRefusal is the provider's error as the meter shows it: the type and
// the message index; the full text is in the pass panel.
func shortRefusal(f sim.Frame) string {
	for _, e := range f.Events {
		if e.Type == sim.EventRefused && e.Index != nil {
			return fmt.Sprintf("400 invalid_request_error · messages.%d", *e.Index)
		}
	}
	return f.Error
}

// badges labels a result: its tier and distance (green when the floor
// holds it), the floor on full rows, the cache cut of a rewrite in this
// frame when there are few, a re-read.
func (tw tieredWords) badges(b sim.Block, rewritten map[string]sim.Event, rules sim.TierRules, full, cacheBadges, latched bool) []views.Badge {
	var out []views.Badge
	tone := map[int]string{1: "warn", 2: "info"}[b.Tier]
	if b.Floor {
		tone = "ok"
	}
	switch {
	case b.Tier > 0:
		out = append(out, views.Badge{Text: fmt.Sprintf("T%d·d%d", b.Tier, b.Distance), Tone: tone})
	case b.Distance < rules.KeepRecent:
		out = append(out, views.Badge{Text: fmt.Sprintf("T3·d%d", b.Distance), Tone: "muted"})
	case latched:
		out = append(out, views.Badge{Text: fmt.Sprintf(tw.untouchedOn, b.Distance), Tone: "warn"})
	default:
		out = append(out, views.Badge{Text: fmt.Sprintf(tw.untouched, b.Distance), Tone: "muted"})
	}
	if b.Floor && full {
		out = append(out, views.Badge{Text: tw.floor, Tone: "ok"})
	}
	if e, ok := rewritten[b.ID]; ok && cacheBadges {
		out = append(out, views.Badge{Text: fmt.Sprintf(tw.cacheCut, e.Tier), Tone: "warn"})
	}
	if strings.HasPrefix(b.ToolUseID, "toolu_rr") {
		out = append(out, views.Badge{Text: tw.reread, Tone: "warn"})
	}
	return out
}

// sheetText is what a row's sheet shows: the call, then the result as the
// model sees it now.
func (tw tieredWords) sheetText(call, result sim.Block) string {
	return fmt.Sprintf("tool_use %s\n%s\n\ntool_result (%s · %s %s)\n%s", call.ToolUseID, call.Content,
		tw.kinds[string(result.Kind)], exact(result.Chars), tw.chars, strings.TrimRight(result.Content, "\n"))
}

func (tw tieredWords) provenance(b *sim.Block, tr *sim.TieredTrace) string {
	switch b.Kind {
	case sim.KindSummary:
		return tr.SummaryProvenance.In(tw.lang)
	case sim.KindExcerpt:
		return tw.provExcerpt
	case sim.KindStub:
		return tw.provStub
	case sim.KindPrompt, sim.KindText, sim.KindToolCall:
		return tw.provWritten
	}
	if b.ToolUseID == "toolu_03" || strings.HasPrefix(b.ToolUseID, "toolu_rr") || b.Tool == "think" || b.Tool == "file_write" || b.Tool == "edit" {
		return tw.provWritten
	}
	return tw.provGenerated
}

// countersPanel shows the running counters, with what the events add to
// them: failed calls, the tokens re-reads brought back.
func countersPanel(l *sim.Lesson, frames []sim.Frame, tw tieredWords) views.Panel {
	c := frames[len(frames)-1].Counters
	failed, back := 0, 0
	for _, f := range frames {
		for _, e := range f.Events {
			switch {
			case e.Type == sim.EventSemanticCall && e.Reason == "failed":
				failed++
			case e.Type == sim.EventReread:
				back += e.Tokens
			}
		}
	}
	inv := 0
	for _, n := range c.CacheInvalidations {
		inv += n
	}
	calls := views.PanelRow{Label: tw.calls, Value: exact(c.CompressionCalls)}
	if failed > 0 {
		calls.Note = fmt.Sprintf(tw.callsFailed, failed)
	}
	rereads := views.PanelRow{Label: tw.rereads, Value: exact(c.Rereads)}
	if back > 0 {
		rereads.Note = fmt.Sprintf(tw.back, exact(back))
	}
	return views.Panel{ID: "counters-panel", Title: tw.countersTitle, Tone: "info", Rows: []views.PanelRow{
		{Label: tw.saved, Value: exact(c.TokensSaved), Emph: true},
		calls,
		rereads,
		{Label: tw.roundTrips, Value: exact(c.RoundTrips)},
		{Label: tw.invalidations, Value: exact(inv), Note: fmt.Sprintf(tw.byTier, c.CacheInvalidations[1], c.CacheInvalidations[2])},
	}}
}

// passPanel says what happened before this frame's request: the rewrites
// of the pass and where the cache ends, model calls, a re-read, a refusal.
func passPanel(f sim.Frame, tw tieredWords) (views.Panel, bool) {
	var rows []views.PanelRow
	var rewrites []sim.Event
	ok, failed := 0, 0
	for _, e := range f.Events {
		switch e.Type {
		case sim.EventCacheCompaction:
			rewrites = append(rewrites, e)
		case sim.EventSemanticCall:
			if e.Reason == "ok" {
				ok++
			} else {
				failed++
			}
		case sim.EventReread:
			rows = append(rows, views.PanelRow{Label: tw.rereadRow, Value: "+" + exact(e.Tokens), Note: tw.rereadNote})
		case sim.EventPressure:
			rows = append(rows, views.PanelRow{Label: tw.pressureRow, Value: exact(e.Tokens), Note: tw.pressureNote})
		}
	}
	label := func(id string) string {
		for _, b := range f.Blocks {
			if b.ID == id {
				return b.Tool
			}
		}
		return id
	}
	if len(rewrites) > 0 && len(rewrites) <= 3 {
		for _, e := range rewrites {
			rows = append(rows, views.PanelRow{Label: fmt.Sprintf("messages.%d · %s", *e.Index, label(e.Block)),
				Value: fmt.Sprintf("T%d %s", e.Tier, tw.kinds[e.Reason]), Note: fmt.Sprintf(tw.savedHere, exact(e.Tokens))})
		}
	} else if len(rewrites) > 3 {
		byTier, saved := map[int]int{}, 0
		for _, e := range rewrites {
			byTier[e.Tier]++
			saved += e.Tokens
		}
		rows = append(rows, views.PanelRow{Label: tw.rewrites, Value: exact(len(rewrites)), Note: fmt.Sprintf(tw.byTier, byTier[1], byTier[2])},
			views.PanelRow{Label: tw.saved, Value: exact(saved)})
	}
	if len(rewrites) > 0 {
		first := rewrites[0]
		for _, e := range rewrites {
			if *e.Index < *first.Index {
				first = e
			}
		}
		rows = append(rows, views.PanelRow{Label: tw.cacheFrom, Value: fmt.Sprintf("messages.%d", *first.Index),
			Note: fmt.Sprintf(tw.cacheFromNote, label(first.Block), first.Tier), Emph: true})
	}
	if ok+failed > 0 {
		rows = append(rows, views.PanelRow{Label: tw.calls, Value: exact(ok + failed), Note: fmt.Sprintf(tw.okFailed, ok, failed)})
	}
	pn := views.Panel{ID: "pass-panel", Title: tw.passTitle, Tone: "warn", Rows: rows}
	if f.Error != "" {
		pn.ID, pn.Title, pn.Note = "refusal-panel", tw.refusedTitle, f.Error
	}
	return pn, len(rows) > 0 || f.Error != ""
}

// rulesPanel states the rules in force: the tiers, the budget, the floor,
// and that the constants are one public snapshot.
func rulesPanel(l *scenarios.Lesson, st State, tw tieredWords) views.Panel {
	r := l.Tiered.Rules
	p := st.Policy
	floor := strings.Join(r.FloorTools, ", ")
	for _, pre := range r.FloorPrefixes {
		floor += ", " + pre + "*"
	}
	rows := []views.PanelRow{
		{Label: "Tier 3", Value: fmt.Sprintf("d < %d", r.KeepRecent), Note: tw.tier3Note},
		{Label: "Tier 2", Value: fmt.Sprintf("d %d–%d", r.KeepRecent, r.Tier1Distance-1),
			Note: fmt.Sprintf(tw.tier2Note, exact(r.SemanticMinChars), r.MaxSemanticPerPass, r.ExcerptChars, r.HeadPercent, 100-r.HeadPercent) + " " + tw.budgetNote[p.Budget]},
		{Label: "Tier 1", Value: fmt.Sprintf("d ≥ %d", r.Tier1Distance), Note: tw.tier1Note},
		{Label: tw.floorRow, Value: tw.onOff[p.Floor && p.Strategy != "age"], Note: floor + " · " + tw.floorNote},
	}
	if p.Strategy == "age" {
		rows = []views.PanelRow{
			{Label: "Tier 3", Value: fmt.Sprintf("d < %d", r.KeepRecent), Note: tw.tier3Note},
			{Label: "Tier 1", Value: fmt.Sprintf("d ≥ %d", r.KeepRecent), Note: tw.ageNote, Emph: true},
		}
	}
	return views.Panel{ID: "rules-panel", Title: tw.rulesTitle, Tone: "ok", Rows: rows, Note: tw.snapshot}
}

// tieredWords are the page words of this lesson, per language.
type tieredWords struct {
	lang                                                    string
	pressureLine, legend, legendOff, legendCrossed          string
	untouched, floor, cacheCut, reread, noResult, chars     string
	rowDescription, orphanDescription                       string
	countersTitle, saved, calls, callsFailed, rereads, back string
	roundTrips, invalidations, byTier                       string
	passTitle, refusedTitle, rewrites, cacheFrom            string
	cacheFromNote, savedHere, okFailed                      string
	rereadRow, rereadNote, pressureRow, pressureNote        string
	rulesTitle, tier3Note, tier2Note, tier1Note, floorNote  string
	floorRow, ageNote, snapshot, untouchedOn                string
	provExcerpt, provStub, provWritten, provGenerated       string
	budgetNote                                              map[string]string
	onOff                                                   map[bool]string
	kinds                                                   map[string]string
}

var tieredWordsEN = tieredWords{
	lang:              "en",
	pressureLine:      "pressure · %s",
	legend:            "cache: %s reused · %s recomputed",
	legendOff:         "compressor off until a request passes %s",
	legendCrossed:     "over %s: the compressor runs before the next call",
	untouched:         "d%d",
	floor:             "floor",
	cacheCut:          "cache ✕ T%d",
	reread:            "re-read",
	noResult:          "no tool_result",
	chars:             "chars",
	rowDescription:    "%s · tool_use %s · call %s + result %s tokens · %s chars · %s · %s",
	orphanDescription: "%s · tool_use %s without its tool_result",
	countersTitle:     "Counters so far",
	saved:             "tokens saved",
	calls:             "model calls spent on compression",
	callsFailed:       "%d of them failed",
	rereads:           "re-reads",
	back:              "+%s tokens came back",
	roundTrips:        "extra round trips",
	invalidations:     "cache invalidations",
	byTier:            "Tier 1: %d · Tier 2: %d",
	passTitle:         "Before this request",
	refusedTitle:      "The provider refused the request",
	rewrites:          "results rewritten",
	cacheFrom:         "prompt cache invalid from",
	cacheFromNote:     "the earliest rewrite: %s, Tier %d",
	savedHere:         "%s tokens saved",
	okFailed:          "%d ok · %d failed",
	rereadRow:         "re-read (tokens back)",
	rereadNote:        "the stub named the file, not its text: one more round trip",
	pressureRow:       "request crossed the pressure line",
	pressureNote:      "the compressor runs before the next model call, and every call after it",
	rulesTitle:        "Rules in force",
	floorRow:          "floor",
	floorNote:         "never below Tier 2, never summarized; green badges",
	tier3Note:         "untouched: the working memory",
	tier2Note:         "over %s chars: a model summary, at most %d per pass; else head + tail, %d chars (%d%% / %d%%).",
	tier1Note:         "metadata stub: tool, arguments, size",
	untouchedOn:       "d%d untouched",
	ageNote:           "age: everything older becomes a stub; no floor, no model calls (the naive baseline)",
	snapshot:          "Constants from one public snapshot (Kocoro, internal/agent/loop.go, commit 4ec6772, checked 2026-07-27): a snapshot, not a contract.",
	provExcerpt:       "Cut by the simulated compressor: the first 75% and last 25% of 300 characters, with a marker between. No model wrote it.",
	provStub:          "Metadata written by the simulated compressor from the tool_use_id map: tool, arguments (100 characters), original size. No model wrote it.",
	provWritten:       "Text written for this lesson; its size is its o200k_base token count.",
	provGenerated:     "Generated deterministically for this lesson from a seed, to the stated size; its size is its o200k_base token count.",
	budgetNote: map[string]string{
		"attempts":  "the budget counts attempts: a failed call still uses it",
		"successes": "the budget counts successes: failed calls do not use it",
	},
	onOff: map[bool]string{true: "on", false: "off"},
	kinds: map[string]string{"tool_result": "full result", "summary": "model summary", "excerpt": "head + tail", "stub": "metadata stub",
		"dropped": "dropped", "tool_call": "tool call", "text": "message", "prompt": "system prompt"},
}

var tieredWordsJA = tieredWords{
	lang:              "ja",
	pressureLine:      "逼迫ライン · %s",
	legend:            "キャッシュ：再利用 %s · 再計算 %s",
	legendOff:         "要求が %s を超えるまで圧縮器は動きません",
	legendCrossed:     "%s 超：次の呼び出しの前に圧縮器が動きます",
	untouched:         "d%d",
	floor:             "下限",
	cacheCut:          "キャッシュ ✕ T%d",
	reread:            "再読込",
	noResult:          "tool_result なし",
	chars:             "文字",
	rowDescription:    "%s · tool_use %s · 呼び出し %s + 結果 %s token · %s 文字 · %s · %s",
	orphanDescription: "%s · tool_result のない tool_use %s",
	countersTitle:     "ここまでのカウンター",
	saved:             "節約した token",
	calls:             "圧縮に使ったモデル呼び出し",
	callsFailed:       "うち %d 回は失敗",
	rereads:           "再読込",
	back:              "+%s token が戻った",
	roundTrips:        "追加の往復",
	invalidations:     "キャッシュ無効化",
	byTier:            "Tier 1：%d · Tier 2：%d",
	passTitle:         "この要求の前に",
	refusedTitle:      "Provider が要求を拒否しました",
	rewrites:          "書き換えた結果",
	cacheFrom:         "プロンプトキャッシュの無効化位置",
	cacheFromNote:     "最も前の書き換え：%s、Tier %d",
	savedHere:         "%s token 節約",
	okFailed:          "成功 %d · 失敗 %d",
	rereadRow:         "再読込（戻った token）",
	rereadNote:        "スタブにはファイル名しかなく本文がない：往復が 1 回増える",
	pressureRow:       "要求が逼迫ラインを超えた",
	pressureNote:      "次のモデル呼び出しの前から、毎回の呼び出しの前に圧縮器が動く",
	rulesTitle:        "適用中の規則",
	floorRow:          "下限",
	floorNote:         "Tier 2 より下げず、モデルで要約しない。緑のバッジ",
	tier3Note:         "手つかず：ワーキングメモリ",
	tier2Note:         "%s 文字超はモデル要約（1 パス最大 %d 回）、それ以外は先頭＋末尾 %d 文字（%d%% / %d%%）。",
	tier1Note:         "メタデータのスタブ：ツール、引数、サイズ",
	untouchedOn:       "d%d 未処理",
	ageNote:           "経過：それより古いものはすべてスタブ。下限もモデル呼び出しもない素朴な基準",
	snapshot:          "定数は公開スナップショット 1 点（Kocoro、internal/agent/loop.go、コミット 4ec6772、2026-07-27 確認）によるもので、契約ではありません。",
	provExcerpt:       "シミュレーションの圧縮器が切り出したものです。300 文字のうち先頭 75%・末尾 25% を残し、間に印を入れています。モデルは書いていません。",
	provStub:          "シミュレーションの圧縮器が tool_use_id マップから書いたメタデータです（ツール、引数 100 文字、元のサイズ）。モデルは書いていません。",
	provWritten:       "この教材のために書いた文です。サイズは o200k_base の token 数です。",
	provGenerated:     "この教材のためにシードから決定的に生成した、記載どおりのサイズの文です。サイズは o200k_base の token 数です。",
	budgetNote: map[string]string{
		"attempts":  "予算は試行で数える：失敗した呼び出しも予算を使う",
		"successes": "予算は成功で数える：失敗した呼び出しは予算を使わない",
	},
	onOff: map[bool]string{true: "オン", false: "オフ"},
	kinds: map[string]string{"tool_result": "結果そのまま", "summary": "モデル要約", "excerpt": "先頭＋末尾", "stub": "メタデータのスタブ",
		"dropped": "削除", "tool_call": "ツール呼び出し", "text": "メッセージ", "prompt": "システムプロンプト"},
}

func tieredWordsFor(lang string) tieredWords {
	if lang == "ja" {
		return tieredWordsJA
	}
	return tieredWordsEN
}
