package web

import (
	"fmt"
	"strconv"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// aboutKeys are the lesson-level narration sections, in display order.
var aboutKeys = []string{"intro", "tokens-note", "boundaries", "lifetimes", "kinds", "why-tail", "why-code",
	"raw-context", "replace-vs-append", "cache-story", "outcomes", "mistakes", "simplifications", "recordings"}

// pageInput is what lessonPage needs to build one state's view model.
type pageInput struct {
	lesson *scenarios.Lesson
	state  State
	frames []sim.Frame
}

// lessonPage builds the view model of one lesson state.
func (s *Server) lessonPage(in pageInput) (views.LessonPage, error) {
	p := s.statePage(in)
	modes, err := s.modes(in)
	if err != nil {
		return views.LessonPage{}, err
	}
	nav, err := s.navOf(in.lesson, in.state, in.frames, in.state.Step-1)
	if err != nil {
		return views.LessonPage{}, err
	}
	p.Modes, p.Nav = modes, nav
	return p, nil
}

// statePage builds what one state shows, without the controls that lead to
// other states (modes, view links): the window, memory, panels, narration
// and steps. Comparisons and handouts need only this.
func (s *Server) statePage(in pageInput) views.LessonPage {
	l, st := in.lesson, in.state
	f := in.frames[st.Step-1]
	ui := views.UIFor(st.Lang)
	ph := phrasesFor(st.Lang)
	alt := st
	alt.Lang = otherLang(st.Lang)
	p := views.LessonPage{
		Lang: st.Lang, UI: ui, Assets: s.assets.urls, Title: l.Title.In(st.Lang), LessonID: l.ID,
		IndexURL: "/" + st.Lang + "/", URL: LessonURL(l.Lesson, st),
		AltLang: views.Link{Label: ui.OtherLang, URL: LessonURL(l.Lesson, alt)},
		Window:  s.windowView(l, st, f, ui, ph),
		Steps:   stepBar(l, st, in.frames, ui),
		Source:  l.Source.In(st.Lang),
	}
	switch l.Engine {
	case sim.EngineContext:
		p.Memory = memoryView(l, f, ui, ph)
	case sim.EngineStatus:
		s.statusExtras(in, &p)
	case sim.EngineTiered:
		s.tieredExtras(in, &p)
	}
	p.Narration = narrationView(l, st, in.frames, ui, ph)
	p.Blocks = append(p.Blocks, p.Window.Blocks...)
	if p.Window.Pending != nil {
		p.Blocks = append(p.Blocks, *p.Window.Pending)
	}
	for _, k := range aboutKeys {
		if sec, ok := l.Section(st.Lang, k); ok {
			p.About = append(p.About, views.AboutSection{Key: k, Headline: sec.Headline, Body: sec.Body})
		}
	}
	return p
}

func otherLang(lang string) string {
	if lang == "ja" {
		return "en"
	}
	return "ja"
}

func (s *Server) windowView(l *scenarios.Lesson, st State, f sim.Frame, ui views.UI, ph phrases) views.Window {
	threshold := l.ThresholdTokens(st.Policy.ThresholdPercent)
	lo := layoutOf(f.Blocks, l.Window, threshold)
	w := views.Window{
		BoxU: lo.box, StackU: lo.stackU, ThresholdU: lo.threshold, EdgeU: lo.edge, OverflowU: lo.overflow,
		ShowThreshold:  l.Engine == sim.EngineContext && st.Policy.Compaction,
		ThresholdLabel: fmt.Sprintf("%d%% · %s", st.Policy.ThresholdPercent, kTokens(threshold)),
		Meter:          sizeOf(l.Lesson, f.Total) + " / " + limitOf(l.Lesson),
		MeterExact:     exact(f.Total) + " / " + exact(l.Window),
		MeterPercent:   f.Total * 100 / l.Window,
		MeterState:     "ok",
		Error:          f.Error,
		Compacting:     f.Kind == sim.FrameSelected || f.Kind == sim.FrameSummary,
		BracketTopU:    lo.selTop, BracketU: lo.selU,
		FitU: s.fit[l.ID],
	}
	switch {
	case f.Total > l.Window || f.Error != "":
		w.MeterState = "error"
	case l.Engine == sim.EngineContext && st.Policy.Compaction && f.Total > threshold:
		w.MeterState = "warn"
	}
	if len(f.Blocks) == 0 {
		w.Empty = ui.Empty
	}
	if l.Engine == sim.EngineStatus {
		// The window is only a drawing scale here: the figure is the request.
		w.Meter, w.MeterExact, w.MeterLabel = exact(f.Total), exact(f.Total), ui.MeterRequest
	}
	for i, b := range f.Blocks {
		w.Blocks = append(w.Blocks, s.blockView(l.Lesson, b, lo.heights[i], st.Lang, ui, ph))
	}
	if f.Pending != nil {
		pv := s.blockView(l.Lesson, *f.Pending, 0, st.Lang, ui, ph)
		pv.Anchor = "sheet-pending-" + pv.ID
		w.Pending = &pv
	}
	return w
}

func (s *Server) blockView(l *sim.Lesson, b sim.Block, heightU int, lang string, ui views.UI, ph phrases) views.BlockView {
	label := b.Label.In(lang)
	if label == "" {
		label = ui.Kinds[string(b.Kind)]
	}
	v := views.BlockView{
		ID: b.ID, Anchor: "sheet-" + b.ID, Role: string(b.Role), Kind: string(b.Kind),
		RoleLabel: ui.Roles[string(b.Role)], KindLabel: ui.Kinds[string(b.Kind)],
		Label: label, Size: sizeOf(l, b.Tokens), Exact: exact(b.Tokens), HeightU: heightU,
		Small: heightU < 2*minBlockU, Roomy: heightU >= 3*minBlockU, Thin: heightU < minBlockU, Hair: heightU < minBlockU*2/3,
		New: b.New, Selected: b.Selected,
		Cached: b.Cached, FirstChanged: b.FirstChanged, SizeNote: ui.TokensNote,
		Content: strings.TrimRight(b.Content, "\n"), Transition: b.ID,
	}
	if b.Content != "" {
		n := exact(s.tok.Count(b.Content))
		v.Excerpt = fmt.Sprintf("%s (%s)", n, ui.ExcerptCount)
		v.ExcerptShort = fmt.Sprintf(ui.ExcerptShort, n)
	}
	switch {
	case b.Summary != nil:
		v.Summary, v.Mechanical = true, b.Summary.Mechanical
		v.Provenance = b.Summary.Provenance.In(lang)
	case b.Kind == sim.KindMemory:
		v.Provenance = ""
	case l.Engine == sim.EngineContext:
		v.Provenance = fmt.Sprintf(ph.authored, kTokens(b.Tokens))
	default:
		v.Provenance = ph.authoredCounted
	}
	if l.Engine != sim.EngineContext {
		v.SizeNote = ui.TokensNoteCounted
	}
	v.Description = fmt.Sprintf("%s · %s · %s · %s", v.RoleLabel, v.KindLabel, label, v.Size)
	if v.ExcerptShort != "" {
		v.Description += " · " + v.ExcerptShort
	}
	return v
}

func memoryView(l *scenarios.Lesson, f sim.Frame, ui views.UI, ph phrases) views.MemoryPanel {
	m := views.MemoryPanel{
		Enabled: f.MemoryEnabled, Path: l.Memory.Path,
		HasCopy:   f.MemoryInjected != nil,
		Changed:   len(f.MemoryNew) > 0 && f.MemoryInjected != nil,
		FileBadge: ui.Changed, CopyBadge: ui.Snapshot,
	}
	for _, line := range f.MemoryFile {
		m.Lines = append(m.Lines, views.MemoryLine{Text: line, New: m.Changed && contains(f.MemoryNew, line)})
	}
	for _, b := range f.Blocks {
		if b.Kind == sim.KindMemory {
			m.Note = fmt.Sprintf(ph.memoryCopy, kTokens(b.Tokens), len(f.MemoryInjected))
		}
	}
	if f.Session > 0 && f.MemoryInjected == nil && f.MemoryEnabled && len(f.Blocks) == 0 {
		// Between sessions the file is what the next session's copy is made
		// from: give it the next copy's transition name so it slides in.
		m.Transition = fmt.Sprintf("memory-%d", f.Session+1)
	}
	return m
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func narrationView(l *scenarios.Lesson, st State, frames []sim.Frame, ui views.UI, ph phrases) views.Narration {
	f := frames[st.Step-1]
	sec, _ := l.Section(st.Lang, f.Narration...)
	n := views.Narration{
		Headline: fillHeadline(sec.Headline, l, st.Policy, f),
		Body:     sec.Body,
		Kicker:   fmt.Sprintf(ph.kicker, st.Step, len(frames)),
	}
	if f.Session > 0 && len(f.Blocks) > 0 {
		n.Kicker += " · " + fmt.Sprintf(ph.session, f.Session)
	} else if len(f.Blocks) == 0 {
		n.Kicker += " · " + ph.between
	}
	n.Changes = changesOf(l, st, f, ph)
	return n
}

// fillHeadline replaces the {placeholders} of a narration headline with the
// frame's figures, computing only those the headline uses.
func fillHeadline(h string, l *scenarios.Lesson, p sim.Policy, f sim.Frame) string {
	if !strings.Contains(h, "{") {
		return h
	}
	c := f.Compaction
	values := []struct {
		key   string
		value func() string
	}{
		{"{total}", func() string { return sizeOf(l.Lesson, f.Total) }},
		{"{window}", func() string { return limitOf(l.Lesson) }},
		{"{threshold}", func() string { return sizeOf(l.Lesson, l.ThresholdTokens(p.ThresholdPercent)) }},
		{"{pct}", func() string { return strconv.Itoa(p.ThresholdPercent) + "%" }},
		{"{before}", func() string { return sizeOf(l.Lesson, c.Before) }},
		{"{after}", func() string { return sizeOf(l.Lesson, c.After) }},
		{"{count}", func() string { return strconv.Itoa(c.Count) }},
		{"{summary}", func() string { return sizeOf(l.Lesson, c.Summary) }},
	}
	for i, v := range values {
		if i >= 4 && c == nil {
			break
		}
		if strings.Contains(h, v.key) {
			h = strings.ReplaceAll(h, v.key, v.value())
		}
	}
	return h
}

// changesOf lists what changed in f, computed from its events and blocks.
func changesOf(l *scenarios.Lesson, st State, f sim.Frame, ph phrases) []string {
	var out []string
	threshold := l.ThresholdTokens(st.Policy.ThresholdPercent)
	for _, e := range f.Events {
		switch e.Type {
		case sim.EventSessionStart:
			var parts []string
			for _, b := range f.Blocks {
				parts = append(parts, b.Label.In(st.Lang)+" "+kTokens(b.Tokens))
			}
			out = append(out, fmt.Sprintf(ph.sessionStart, f.Session, strings.Join(parts, " + ")))
		case sim.EventMessage:
			for _, b := range f.Blocks {
				if b.ID == e.Block {
					out = append(out, fmt.Sprintf(ph.added, sizeOf(l.Lesson, b.Tokens), b.Label.In(st.Lang)))
				}
			}
		case sim.EventMemoryWrite:
			out = append(out, fmt.Sprintf(ph.memWrite, strings.TrimPrefix(e.Line, "- "), kTokens(f.Total)))
		case sim.EventMemoryOff:
			out = append(out, fmt.Sprintf(ph.memOff, strings.TrimPrefix(e.Line, "- ")))
		case sim.EventThresholdCrossed:
			out = append(out, fmt.Sprintf(ph.crossed, kTokens(e.Tokens), kTokens(threshold), fmt.Sprintf("%d%%", st.Policy.ThresholdPercent)))
		case sim.EventRangeSelected:
			if f.Compaction != nil {
				out = append(out, fmt.Sprintf(ph.selected, f.Compaction.Count, kTokens(e.Tokens)))
			}
		case sim.EventSummary:
			if f.Compaction == nil {
				continue
			}
			if f.Compaction.Mechanical {
				out = append(out, fmt.Sprintf(ph.mechanical, kTokens(e.Tokens)))
			} else {
				out = append(out, fmt.Sprintf(ph.summary, kTokens(e.Tokens), st.Policy.Recording))
			}
		case sim.EventCompaction:
			if c := f.Compaction; c != nil {
				out = append(out, fmt.Sprintf(ph.replaced, c.Count, kTokens(c.Summary), kTokens(c.Before), kTokens(c.After)))
			}
		case sim.EventHeavyTail:
			out = append(out, fmt.Sprintf(ph.heavyTail, kTokens(e.Tokens), kTokens(threshold)))
		case sim.EventOverflow:
			out = append(out, fmt.Sprintf(ph.overflow, e.Reason, kTokens(e.Tokens), kLimit(l.Window)))
		case sim.EventSessionEnd:
			out = append(out, fmt.Sprintf(ph.sessionEnd, kTokens(e.Tokens)))
		case sim.EventLookup:
			label := factLabel(l, e.Fact, st.Lang)
			if e.Found != nil && *e.Found {
				out = append(out, fmt.Sprintf(ph.found, label))
			} else {
				out = append(out, fmt.Sprintf(ph.missing, label))
			}
		case sim.EventCompactionSkipped:
			out = append(out, fmt.Sprintf(ph.skipped, e.Reason))
		case sim.EventStatusRemoved:
			out = append(out, ph.statusOut)
		case sim.EventStatusInjected:
			out = append(out, fmt.Sprintf(ph.statusIn, sizeOf(l.Lesson, e.Tokens)))
		case sim.EventToolCall:
			for _, b := range f.Blocks {
				if b.ID == e.Block {
					out = append(out, fmt.Sprintf(ph.toolCall, sizeOf(l.Lesson, e.Tokens), b.Tool))
				}
			}
		case sim.EventDecision:
			out = append(out, ph.decision)
		}
	}
	if c := f.Cache; c != nil {
		out = append(out, cacheLine(l.Lesson, c, ph))
	}
	return out
}

func factLabel(l *scenarios.Lesson, id, lang string) string {
	for _, f := range l.Facts {
		if f.ID == id {
			return f.Label.In(lang)
		}
	}
	return id
}

func cacheLine(l *sim.Lesson, c *sim.Cache, ph phrases) string {
	reused, recomputed := sizeOf(l, c.ReusedTokens), sizeOf(l, c.RecomputedTokens)
	switch c.Reason {
	case sim.CacheCold:
		return fmt.Sprintf(ph.cacheCold, recomputed)
	case sim.CacheSystemChanged:
		return fmt.Sprintf(ph.cacheSystem, recomputed)
	case sim.CacheStatusReplaced:
		return fmt.Sprintf(ph.cacheReplaced, reused, recomputed)
	case sim.CacheRewritten:
		return fmt.Sprintf(ph.cacheRewrite, reused, recomputed)
	}
	return fmt.Sprintf(ph.cacheAppend, reused, recomputed)
}
