package page

import (
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/views/draw"
)

// One frame of any lesson as a view model (the page builder's core). It
// knows no lesson and no mechanism: it lays out blocks (or call + result rows),
// turns badges, panels, events and figures into words through the
// catalog, and renders the narration the lesson gives for the frame.

// lessonPage builds the view model of one lesson state.
func (b *Builder) lessonPage(in input) (views.LessonPage, error) {
	p, err := b.statePage(in)
	if err != nil {
		return p, err
	}
	if p.Modes, err = b.modes(in); err != nil {
		return p, err
	}
	p.ServerOnly = b.serverOnly(in.lesson, p.UI)
	p.Nav, err = b.navOf(in, in.state.Step-1)
	return p, err
}

// statePage builds what one state shows, without the controls that lead to
// other states (modes, view links): the window, memory, panels, narration
// and steps. Handouts need only this.
func (b *Builder) statePage(in input) (views.LessonPage, error) {
	l, st := in.lesson, in.state
	v := newFrameView(l, st.Policy, in.run, st.Step-1, b.cat.For(st.Lang))
	v.style = styleOf(st)
	alt := st
	alt.Lang = otherLang(st.Lang)
	p := views.LessonPage{
		LessonHead: views.LessonHead{Lang: st.Lang, UI: v.ui, Assets: b.assets, Title: l.Title.In(st.Lang), LessonID: l.ID,
			IndexURL: "/" + st.Lang + "/", URL: LessonURL(st),
			AltLang: views.Link{Label: v.ui.T("ui.other-lang"), URL: LessonURL(alt)}},
		Window: b.windowView(v),
		Steps:  b.stepBar(in),
		Source: l.Source.In(st.Lang),
		Pair:   b.drawsPair(l),
	}
	for _, pn := range b.panels(v) {
		if len(pn.Rows) == 0 && pn.Body != "" {
			p.Notes = append(p.Notes, pn) // prose: read with the narration
		} else {
			p.Panels = append(p.Panels, pn)
		}
	}
	var err error
	if p.Narration, err = b.narrationView(v); err != nil {
		return p, err
	}
	for _, r := range p.Window.Rows {
		p.Blocks = append(p.Blocks, r.BlockView)
	}
	for _, pl := range payloads {
		if pl.page != nil {
			pl.page(b, v, &p)
		}
	}
	if p.Window.Pending != nil {
		p.Blocks = append(p.Blocks, *p.Window.Pending)
	}
	b.linkTexts(l, v.ui, p.Blocks)
	for _, k := range l.About {
		p.About = append(p.About, b.aboutOf(l, v, k))
	}
	return p, nil
}

// aboutOf renders one about section for a frame.
func (b *Builder) aboutOf(l *scenarios.Lesson, v *frameView, key string) views.AboutSection {
	sec, _ := l.Section(v.ui.Lang, key)
	h, body, err := sec.Render(v)
	if err != nil {
		b.log.Error("render about section", "lesson", l.ID, "key", key, "err", err)
	}
	return views.AboutSection{Key: strings.TrimPrefix(key, "about:"), Headline: h, Body: body}
}

// about renders one about section for the first frame of a state's run.
func (b *Builder) about(l *scenarios.Lesson, st State, r *sim.Replay, key string) views.AboutSection {
	return b.aboutOf(l, newFrameView(l, st.Policy, r, 0, b.cat.For(st.Lang)), key)
}

// styleOf is how a state's window is drawn: for a projector in the
// presenter view, for a page everywhere else.
func styleOf(st State) draw.Style {
	if st.View == ViewPresent {
		return draw.Projector
	}
	return draw.Page
}

// drawFrame draws a frame's window to scale.
func (b *Builder) drawFrame(v *frameView) views.Window {
	l, f := v.l, v.f
	w := views.Window{
		Meter:      sizeOf(l.Lesson, f.Total) + " / " + limitOf(l.Lesson, v.run.Window),
		MeterExact: exact(f.Total) + " / " + exact(v.run.Window),
		MeterState: "ok",
		Total:      f.Total,
		Error:      f.Error,
	}
	switch {
	case f.Total > v.run.Window || f.Error != "":
		w.MeterState = "error"
	case f.Alert:
		w.MeterState = "warn"
	}
	if f.Line.Key != "" {
		w.ThresholdLabel = v.ui.F(f.Line.Key, v.frameArgs())
	}
	if f.Legend != "" {
		w.Legend = v.ui.F(f.Legend, v.frameArgs())
	}
	for _, e := range f.Events {
		if e.Type == sim.EventRefused && e.Index != nil {
			w.Error = "400 invalid_request_error · messages." + itoa(*e.Index)
		}
	}
	if len(v.blocks()) == 0 {
		w.Empty = v.ui.T("ui.empty")
	}
	w.O200k = l.Sizes == scenarios.SizesProvider
	rows := rowsOf(l, v.blocks())
	for _, r := range rows {
		w.Rows = append(w.Rows, b.rowView(v, r))
		w.Compacting = w.Compacting || r.main.Selected || (f.Decisive && r.main.Touched)
	}
	markStale(w.Rows)
	b.drawWindow(v, &w, rows)
	if f.Pending != nil {
		pv := b.blockView(v, f.Pending)
		pv.Anchor = "sheet-pending-" + pv.ID
		w.Pending = &pv
	}
	return w
}

// markStale marks every status but the newest: only the last one is
// current, the others are history the model must ignore.
func markStale(rows []views.RowView) {
	last := -1
	for i, r := range rows {
		if r.Kind == string(sim.KindStatus) {
			if last >= 0 {
				rows[last].Stale = true
			}
			last = i
		}
	}
}

// rowView is one row as drawn: a block, or a call and its result named and
// sized as one (the call's tool and arguments, the result's state).
func (b *Builder) rowView(v *frameView, r row) views.RowView {
	rv := views.RowView{BlockView: b.blockView(v, r.main)}
	if r.call == nil {
		rv.Blocks = []views.BlockView{rv.BlockView}
		if r.main.Kind == sim.KindToolCall && v.l.Draw == scenarios.DrawPairs {
			rv.Badges = append(rv.Badges, views.Badge{Text: v.ui.T("badge.no-result"), Tone: "warn"}, views.Badge{Text: r.main.ToolUseID, Tone: "info"})
		}
		return rv
	}
	call := b.blockView(v, r.call)
	rv.Blocks = []views.BlockView{call, rv.BlockView}
	rv.Tokens, rv.Size, rv.Exact = r.tokens, sizeOf(v.l.Lesson, r.tokens), exact(r.tokens)
	rv.Label = shortLabel(rv.Label)
	rv.New = r.call.New || r.main.New
	rv.Cached = r.call.Cached && r.main.Cached
	rv.FirstChanged = r.call.FirstChanged || r.main.FirstChanged
	rv.Content = sheetText(v, r.call, r.main)
	if v.l.Sizes == scenarios.SizesProvider {
		rv.O200k = exact(b.tok.Count(r.call.Content) + b.tok.Count(r.main.Content))
	}
	rv.Description = rv.Label + " · " + strings.Join(append([]string{rv.KindLabel, rv.Exact}, badgeTexts(rv.Badges)...), " · ")
	return rv
}

// sheetText is what a row's sheet shows: the call, then the result as the
// model sees it now.
func sheetText(v *frameView, call, result *sim.Block) string {
	chars, _ := result.Attr("chars")
	return "tool_use " + call.ToolUseID + "\n" + call.Content + "\n\ntool_result (" + v.ui.T("kind."+string(result.Kind)) +
		" · " + exact(chars) + ")\n" + strings.TrimRight(result.Content, "\n")
}

// blockView is one block as drawn, with its sheet.
func (b *Builder) blockView(v *frameView, blk *sim.Block) views.BlockView {
	ui := v.ui
	label := v.label(blk)
	bv := views.BlockView{
		ID: blk.ID, Anchor: "sheet-" + blk.ID, Role: string(blk.Role), Kind: string(blk.Kind),
		RoleLabel: ui.T("role." + string(blk.Role)), KindLabel: ui.T("kind." + string(blk.Kind)),
		Label: label, Size: sizeOf(v.l.Lesson, blk.Tokens), Exact: exact(blk.Tokens), Tokens: blk.Tokens,
		New: blk.New, Selected: blk.Selected, Touched: blk.Touched, Cached: blk.Cached, FirstChanged: blk.FirstChanged,
		Summary: blk.Spotlight, Mechanical: blk.Summary != nil && blk.Summary.Mechanical,
		Content: strings.TrimRight(blk.Content, "\n"), Provenance: v.provenance(blk),
		SizeNote: ui.T("ui.tokens-note." + sizing(v.l)),
	}
	for _, bd := range blk.Badges {
		bv.Badges = append(bv.Badges, views.Badge{Text: v.msg(sim.Msg{Key: "badge." + bd.Key, Args: bd.Args}), Tone: bd.Tone, Minor: bd.Minor})
	}
	if blk.Content != "" {
		bv.Excerpt = exact(b.tok.Count(blk.Content))
		if v.l.Sizes == scenarios.SizesProvider {
			bv.O200k = bv.Excerpt
		}
	}
	if blk.Summary != nil {
		bv.Covers = strings.Join(blk.Summary.Covers, " ")
	}
	bv.Description = strings.Join([]string{bv.RoleLabel, bv.KindLabel, label, bv.Size}, " · ")
	return bv
}

func sizing(l *scenarios.Lesson) string {
	switch {
	case l.Sizes != "":
		return l.Sizes
	case l.Counted:
		return scenarios.SizesCounted
	}
	return scenarios.SizesTrace
}

// provenance says where a block's text comes from.
func (v *frameView) provenance(b *sim.Block) string {
	switch {
	case b.Summary != nil && !b.Summary.Mechanical:
		return b.Summary.Provenance.In(v.ui.Lang)
	case b.Origin == nil:
		return ""
	case b.Origin.Key == sim.OriginAuthored:
		return v.ui.F("origin.authored."+sizing(v.l), map[string]string{"size": sizeOf(v.l.Lesson, b.Tokens)})
	case b.Origin.Key == sim.OriginImported && v.l.Sizes == scenarios.SizesProvider:
		if estimated(b) {
			return v.ui.T("origin.recorded.estimate")
		}
		return v.ui.T("origin.recorded.provider")
	}
	return v.msg(sim.Msg{Key: "origin." + b.Origin.Key, Args: b.Origin.Args})
}

func badgeTexts(bs []views.Badge) []string {
	out := make([]string, len(bs))
	for i, b := range bs {
		out[i] = b.Text
	}
	return out
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

// panels are the frame's panels and the run's, in words. A run's panel
// weighs the whole run (what a status bar costs over all its calls): it
// stands where the run's outcome is seen, at its decisive steps and its
// last, not on a first step where nothing it weighs has happened yet.
func (b *Builder) panels(v *frameView) []views.Panel {
	all := append([]sim.Panel{}, v.f.Panels...)
	if v.f.Decisive || v.i == len(v.frames)-1 {
		all = append(all, v.run.Panels...)
	}
	if v.f.Error != "" {
		all = append([]sim.Panel{{ID: "refusal", Tone: "warn"}}, all...)
	}
	var out []views.Panel
	for _, pn := range all {
		vp := views.Panel{ID: pn.ID + "-panel", Title: v.ui.T("panel." + pn.ID + ".title"), Tone: pn.Tone}
		if pn.ID == "refusal" {
			vp.Note = v.f.Error
		}
		for _, r := range pn.Rows {
			vp.Rows = append(vp.Rows, v.row(pn.ID, r))
		}
		var notes []string
		for _, n := range pn.Notes {
			notes = append(notes, v.msg(n))
		}
		if len(notes) > 0 {
			vp.Note = strings.Join(notes, " ")
		}
		if pn.Section != "" {
			sec, ok := v.l.Section(v.ui.Lang, pn.Section)
			if !ok && len(pn.Rows) == 0 {
				continue // prose the lesson does not give
			}
			if ok {
				_, vp.Body, _ = sec.Render(v)
			}
		}
		if pn.ID == "decision" {
			out = append([]views.Panel{vp}, out...)
			continue
		}
		out = append(out, vp)
	}
	return out
}

// row words one row of a panel.
func (v *frameView) row(panel string, r sim.Row) views.PanelRow {
	key := "panel." + panel + "." + r.Key
	args := v.args(r.Values)
	pr := views.PanelRow{Label: v.ui.F(key, args), Emph: r.Emph}
	if v.ui.Has(key + ".value") {
		pr.Value = v.ui.F(key+".value", args)
	} else {
		var parts []string
		for _, g := range r.Values {
			parts = append(parts, v.format(g))
		}
		pr.Value = strings.Join(parts, " · ")
	}
	if r.Note != nil {
		pr.Note = v.msg(*r.Note)
	}
	return pr
}

// narrationView is the narration column of a frame.
func (b *Builder) narrationView(v *frameView) (views.Narration, error) {
	_, h, body, err := v.narration()
	if err != nil {
		return views.Narration{}, err
	}
	return views.Narration{Headline: h, Body: body, Kicker: v.kicker(), Changes: v.changes()}, nil
}

// kicker is the line above the headline: the step, and the session when the
// lesson has several.
func (v *frameView) kicker() string {
	k := v.ui.F("ui.step-of", map[string]string{"step": itoa(v.i + 1), "total": itoa(len(v.frames))})
	switch {
	case v.f.BlockCount() == 0:
		k += " · " + v.ui.T("ui.between")
	case v.l.Sessions() > 1:
		k += " · " + v.ui.F("ui.session", map[string]string{"n": itoa(v.f.Session)})
	}
	return k
}

// headline is a frame's narration headline alone (for tick titles and
// speaker notes).
func (v *frameView) headline() string {
	sec, ok := v.l.Section(v.ui.Lang, append(append([]string{}, v.f.Narration...), "@"+string(v.f.Kind))...)
	if !ok {
		return ""
	}
	h, _ := sec.RenderHeadline(v)
	return h
}

// changes lists what changed in the frame, one catalog sentence per event
// (a call and its result are one), then the payloads' lines (the cache
// reading).
func (v *frameView) changes() []string {
	f := v.f
	var out []string
	pair := map[string]bool{}
	for _, e := range f.Events {
		if e.Type == sim.EventToolCall {
			pair[e.Block] = true
			if b, ok := f.Block(e.Block); ok {
				for _, x := range v.blocks() {
					if x.Role == sim.RoleTool && x.ToolUseID == b.ToolUseID {
						pair[x.ID] = true
					}
				}
			}
		}
	}
	for _, e := range f.Events {
		if e.Type == sim.EventMessage && pair[e.Block] {
			continue
		}
		key := "event." + e.Type
		switch {
		case e.Found != nil && *e.Found:
			key += ".found"
		case e.Found != nil:
			key += ".missing"
		case e.Variant != "":
			key += "." + e.Variant
		}
		if !v.ui.Has(key) {
			continue
		}
		out = append(out, v.ui.F(key, v.eventArgs(e)))
	}
	for _, pl := range payloads {
		if pl.line == nil {
			continue
		}
		if line, ok := pl.line(v); ok {
			out = append(out, line)
		}
	}
	return out
}

// eventArgs are the values an event's sentence may use: the event's own,
// its block's and the frame's figures.
func (v *frameView) eventArgs(e sim.Event) map[string]string {
	args := v.frameArgs()
	args["tokens"] = sizeOf(v.l.Lesson, e.Tokens)
	args["reason"] = e.Reason
	args["line"] = strings.TrimPrefix(e.Line, "- ")
	args["session"] = itoa(v.f.Session)
	args["tier"] = itoa(e.Tier)
	if e.Index != nil {
		args["index"] = itoa(*e.Index)
	}
	for _, fct := range v.l.Facts {
		if fct.ID == e.Fact {
			args["fact"] = fct.Label.In(v.ui.Lang)
		}
	}
	b, ok := v.f.Block(e.Block)
	if !ok && e.Block != "" {
		b, ok = v.seen(e.Block) // a block that left the window is named as it was
	}
	if ok {
		args["label"] = v.label(b)
		args["tool"] = b.Tool
		if sum := b.Summary; sum != nil {
			args["version"], args["versions"] = itoa(sum.Version), itoa(sum.Versions)
		}
	}
	if e.Type == sim.EventSessionStart {
		var parts []string
		bs := v.blocks()
		for i := range bs {
			parts = append(parts, v.label(&bs[i])+" "+sizeOf(v.l.Lesson, bs[i].Tokens))
		}
		args["blocks"] = strings.Join(parts, " + ")
	}
	return args
}

// estimated reports whether a block's size is an estimate: a block of a
// session sized by the provider's counts that no recorded request counted.
func estimated(b *sim.Block) bool {
	for _, bd := range b.Badges {
		if bd.Key == "estimate" {
			return true
		}
	}
	return false
}
