package page

import (
	"strings"

	"ctxsim/sim"
	"ctxsim/views"
)

// QuickPolicies are the modes a presenter reaches with digit keys: the
// default, then each parameter's other offered values one at a time (fine
// parameters, such as a summary version or a price, are left to the mode
// controls).
func QuickPolicies(l *sim.Lesson) []sim.Policy {
	def := l.DefaultPolicy()
	out := []sim.Policy{def}
	for _, pr := range l.Params() {
		if pr.Fine {
			continue
		}
		for _, v := range pr.Offered() {
			p, err := l.With(def, pr.Name, v)
			if err == nil && p != def && len(out) < 9 {
				out = append(out, p)
			}
		}
	}
	return out
}

// policyWords names a policy by what differs from other ("Compaction
// off"); identical policies read as the whole policy, and the default as
// "default" when asked.
func policyWords(ui views.UI, l *sim.Lesson, p, other sim.Policy, def bool) string {
	var parts, all []string
	for _, pr := range l.Params() {
		w := ui.T("param."+pr.Name) + " " + valueLabel(ui, pr, p.Get(pr.Name))
		all = append(all, w)
		if p.Get(pr.Name) != other.Get(pr.Name) {
			parts = append(parts, w)
		}
	}
	switch {
	case len(parts) > 0:
		return strings.Join(parts, " · ")
	case def:
		return ui.T("ui.default-mode")
	}
	return strings.Join(all, " · ")
}

// navOf builds the links between views of a state and the quick modes.
// cur is the frame index (0-based) of the left/only side.
func (b *Builder) navOf(in input, cur int) (views.Nav, error) {
	l, st, frames := in.lesson, in.state, in.run.Frames
	ui := b.cat.For(st.Lang)
	with := func(f func(*State)) string { x := st; f(&x); return LessonURL(x) }
	n := views.Nav{Compare: st.Compare != nil, Decisive: frames[cur].Decisive, Motion: motionOf(frames[cur]),
		ShowQuick: st.View == ViewPresent}
	n.NormalURL = with(func(x *State) { x.View = "" })
	if st.View != ViewPresent {
		n.PresentURL = with(func(x *State) { x.View = ViewPresent })
	}
	if st.View == ViewPresent && st.Compare == nil {
		n.NotesURL = with(func(x *State) { x.View = ViewNotes })
	}
	if st.View == "" && st.Compare == nil {
		n.HandoutURL = HandoutURL(st)
	}
	quick := QuickPolicies(l.Lesson)
	if st.Compare != nil {
		n.CompareURL = with(func(x *State) { x.Compare, x.Step = nil, cur+1 })
	} else {
		other := quick[0]
		if other == st.Policy && len(quick) > 1 {
			other = quick[1]
		}
		if to := st; b.linkable(l, withCompare(to, other)) {
			rb, err := b.runs.Run(l, other)
			if err != nil {
				return n, err
			}
			to.Compare, to.Step = &other, timelineAt(b.timeline(in.run, rb), cur)+1
			n.CompareURL = LessonURL(to)
		}
	}
	def := l.DefaultPolicy()
	for i, q := range quick {
		target := st
		if st.Compare != nil {
			target.Compare = &q
		} else {
			target.Policy = q
		}
		if !b.linkable(l, target) { // a static copy does not hold it: no need of its run
			n.QuickModes = append(n.QuickModes, views.QuickMode{Key: i + 1, Label: policyWords(ui, l.Lesson, q, def, true)})
			continue
		}
		if st.Compare == nil && b.onDemand(l, st, q) {
			n.QuickModes = append(n.QuickModes, views.QuickMode{Key: i + 1, Label: policyWords(ui, l.Lesson, q, def, true), URL: LessonURL(st) + "?" + queryOf(q)})
			continue
		}
		rq, err := b.runs.Outline(l, q)
		if err != nil {
			return n, err
		}
		var active bool
		if st.Compare != nil { // digits change the right-hand side
			target.Compare = &q
			if rr, ok := b.runs.Kept(l, q); ok {
				target.Step = timelineAt(b.timeline(in.run, rr), cur) + 1
			} else {
				target.Step = timelineAt(alignRuns(frames, rq), cur) + 1
			}
			active = q == *st.Compare
		} else {
			target.Policy = q
			target.Step = alignStep(frames, frames[cur], rq)
			active = q == st.Policy
		}
		n.QuickModes = append(n.QuickModes, views.QuickMode{Key: i + 1, Label: policyWords(ui, l.Lesson, q, def, true), URL: LessonURL(target), Active: active})
	}
	return n, nil
}

// motionOf is how a step animates: slowly where a range collapses into a
// summary or a pass rewrites results, so the change can be followed from
// the back of a room.
func motionOf(f sim.Frame) string {
	if f.Kind == sim.FrameReplaced || f.Kind == sim.FramePass {
		return "slow"
	}
	return ""
}

// spotlight is the summary a state is about: the summarizer's output
// before it replaces its range, else a summary the step put in the window.
func spotlight(w views.Window) (*views.BlockView, bool) {
	if w.Pending != nil {
		return w.Pending, true
	}
	for i := range w.Rows {
		if w.Rows[i].Summary {
			return &w.Rows[i].BlockView, false
		}
	}
	return nil, false
}

// timelineAt is the first position of a timeline where the left side shows
// frame cur.
func timelineAt(tl []pair, cur int) int {
	for i, p := range tl {
		if p.a >= cur {
			return i
		}
	}
	return len(tl) - 1
}

// presentPage builds the projector view of a single state.
func (b *Builder) presentPage(in input) (views.PresentPage, error) {
	lp, err := b.lessonPage(in)
	if err != nil {
		return views.PresentPage{}, err
	}
	normal := in.state
	normal.View = ""
	pp := views.PresentPage{
		LessonHead: lp.LessonHead, StateURL: LessonURL(normal), Window: lp.Window, Second: lp.Second, Pair: lp.Pair, Kicker: lp.Narration.Kicker, Memory: lp.Memory,
		Headline: lp.Narration.Headline, Changes: lp.Narration.Changes, Steps: lp.Steps, Nav: lp.Nav,
	}
	pp.Assets.WithRoom = !b.static
	pp.Summary, pp.SummaryPending = spotlight(lp.Window)
	return pp, nil
}

// notesPage builds the speaker notes of a state: its narration, steps and
// view links (no window).
func (b *Builder) notesPage(in input) (views.NotesPage, error) {
	l, st := in.lesson, in.state
	v := newFrameView(l, st.Policy, in.run, st.Step-1, b.cat.For(st.Lang))
	nr, err := b.narrationView(v)
	if err != nil {
		return views.NotesPage{}, err
	}
	nav, err := b.navOf(in, st.Step-1)
	if err != nil {
		return views.NotesPage{}, err
	}
	np := views.NotesPage{
		Lang: st.Lang, UI: v.ui, Assets: b.assets, Title: l.Title.In(st.Lang), URL: LessonURL(st), Kicker: nr.Kicker,
		Headline: nr.Headline, Body: nr.Body, Changes: nr.Changes, Steps: b.stepBar(in), Nav: nav,
	}
	if next := st.Step; next < len(in.run.Frames) {
		np.NextHeadline = newFrameView(l, st.Policy, in.run, next, v.ui).headline()
	}
	return np, nil
}

// comparePage builds the side-by-side view of two policies at one position.
func (b *Builder) comparePage(in input, rb *sim.Replay) (views.ComparePage, *views.PresentPage, error) {
	l, st, ra := in.lesson, in.state, in.run
	ui := b.cat.For(st.Lang)
	tl := b.timeline(ra, rb)
	pos := tl[st.Step-1]
	prev := pair{-1, -1}
	if st.Step > 1 {
		prev = tl[st.Step-2]
	}
	va := newFrameView(l, st.Policy, ra, pos.a, ui)
	vb := newFrameView(l, *st.Compare, rb, pos.b, ui)
	va.style, vb.style = styleOf(st), styleOf(st)
	left, err := b.comparePane(va, prev.a, policyWords(ui, l.Lesson, st.Policy, *st.Compare, false))
	if err != nil {
		return views.ComparePage{}, nil, err
	}
	right, err := b.comparePane(vb, prev.b, policyWords(ui, l.Lesson, *st.Compare, st.Policy, false))
	if err != nil {
		return views.ComparePage{}, nil, err
	}
	view := views.CompareView{Left: left, Right: right}
	ta, tb := ra.Frames[pos.a].Total, rb.Frames[pos.b].Total
	view.Delta = ui.F("diff.delta", map[string]string{"delta": signed(l.Lesson, tb-ta), "right": sizeOf(l.Lesson, tb), "left": sizeOf(l.Lesson, ta)})
	nav, err := b.navOf(in, pos.a)
	if err != nil {
		return views.ComparePage{}, nil, err
	}
	nav.Decisive = ra.Frames[pos.a].Decisive || rb.Frames[pos.b].Decisive
	steps := b.stepsOver(in, len(tl), func(i int) (*frameView, bool) {
		return newFrameView(l, st.Policy, ra, tl[i].a, ui), ra.Frames[tl[i].a].Decisive || rb.Frames[tl[i].b].Decisive
	})
	alt := st
	alt.Lang = otherLang(st.Lang)
	cp := views.ComparePage{
		LessonHead: views.LessonHead{Lang: st.Lang, UI: ui, Assets: b.assets, Title: l.Title.In(st.Lang), LessonID: l.ID,
			URL: LessonURL(st), IndexURL: "/" + st.Lang + "/", AltLang: views.Link{Label: ui.T("ui.other-lang"), URL: LessonURL(alt)}},
		Modes: b.compareModes(in, tl, false), ModesB: b.compareModes(in, tl, true),
		View: view, Steps: steps, Nav: nav, Pair: b.drawsPair(l),
	}
	if b.static {
		cp.ServerOnly = ui.T("ui.server-only.compare")
	}
	if st.View != ViewPresent {
		return cp, nil, nil
	}
	normal := st
	normal.View = ""
	pp := &views.PresentPage{
		LessonHead: cp.LessonHead, StateURL: LessonURL(normal), Window: left.Window, Compare: &view, Pair: cp.Pair,
		Kicker: steps.Label, Headline: left.Headline, Steps: steps, Nav: nav,
	}
	pp.Assets.WithRoom = !b.static
	return cp, pp, nil
}

// comparePane is one side of a comparison: its frame's window and
// headline, and what happened there since the side's frame at prev.
func (b *Builder) comparePane(v *frameView, prev int, title string) (views.ComparePane, error) {
	_, h, _, err := v.narration()
	if err != nil {
		return views.ComparePane{}, err
	}
	return views.ComparePane{Title: title, Window: b.windowView(v), Diff: v.diffLine(prev), Headline: h}, nil
}

// compareModes builds the mode controls of one side of a comparison.
func (b *Builder) compareModes(in input, tl []pair, right bool) []views.ModeGroup {
	l, st := in.lesson, in.state
	ui := b.cat.For(st.Lang)
	cur := st.Policy
	if right {
		cur = *st.Compare
	}
	var out []views.ModeGroup
	for _, pr := range l.Params() {
		mg := views.ModeGroup{Name: pr.Name, Label: ui.T("param." + pr.Name)}
		for _, v := range pr.Offered() {
			p, err := l.With(cur, pr.Name, v)
			if err != nil {
				continue
			}
			target := st
			if right {
				target.Compare = &p
				if rb, err := b.runs.Run(l, p); err == nil {
					target.Step = timelineAt(b.timeline(in.run, rb), tl[st.Step-1].a) + 1
				}
			} else {
				target.Policy = p
				if ra, err := b.runs.Run(l, p); err == nil {
					if rb, err := b.runs.Run(l, *st.Compare); err == nil {
						target.Step = min(st.Step, len(b.timeline(ra, rb)))
					}
				}
			}
			o := views.ModeOption{Value: v, Label: valueLabel(ui, pr, v), URL: LessonURL(target), Active: p == cur}
			if !b.linkable(l, target) {
				o.URL = ""
			}
			mg.Options = append(mg.Options, o)
		}
		out = append(out, mg)
	}
	return out
}

// diffLine says in one line what happened on one side at this position.
func (v *frameView) diffLine(prev int) string {
	f := v.f
	args := v.frameArgs()
	key := "diff." + string(f.Kind)
	switch {
	case v.i == prev:
		key = "diff.holding"
	case f.Error != "":
		key = "diff.refused"
		args["error"] = f.Error
	case f.Kind == sim.FrameStep || !v.ui.Has(key):
		before := 0
		if v.i > 0 {
			before = v.frames[v.i-1].Total
		}
		args["delta"] = signed(v.l.Lesson, f.Total-before)
		line := v.ui.F("diff.now", args)
		for _, pl := range payloads {
			if pl.line == nil {
				continue
			}
			if l, ok := pl.line(v); ok {
				line += " · " + l
			}
		}
		return line
	}
	return v.ui.F(key, args)
}

func signed(l *sim.Lesson, n int) string {
	if n >= 0 {
		return "+" + sizeOf(l, n)
	}
	return "−" + sizeOf(l, -n)
}

// handoutPage builds the printable handout: every step, or for a long
// lesson the first, the decisive and the last ones, each with its
// narration, memory file and the summary it is about.
func (b *Builder) handoutPage(in input) views.HandoutPage {
	l, st, frames := in.lesson, in.state, in.run.Frames
	ui := b.cat.For(st.Lang)
	hp := views.HandoutPage{
		Lang: st.Lang, UI: ui, Assets: b.assets, Title: l.Title.In(st.Lang),
		Policy: policyWords(ui, l.Lesson, st.Policy, st.Policy, false), Intro: b.about(l, st, in.run, "about:intro").Body,
		BackURL: LessonURL(st), Source: l.Source.In(st.Lang),
	}
	shownSummary := ""
	for i, f := range frames {
		if len(frames) > handoutAll && i != 0 && i != len(frames)-1 && !f.Decisive {
			continue
		}
		x := st
		x.Step = i + 1
		lp, err := b.statePage(input{lesson: l, state: x, run: in.run})
		if err != nil {
			b.log.Error("handout frame", "lesson", l.ID, "step", i+1, "err", err)
			continue
		}
		hf := views.HandoutFrame{Kicker: lp.Narration.Kicker, Headline: lp.Narration.Headline,
			Changes: lp.Narration.Changes, Body: lp.Narration.Body, Window: lp.Window, Memory: lp.Memory}
		hf.Summary, hf.SummaryPending = spotlight(lp.Window)
		if hf.Summary != nil && hf.Summary.ID == shownSummary {
			hf.Summary = nil // its text is on the step before, where it came back
		} else if hf.Summary != nil {
			shownSummary = hf.Summary.ID
		}
		hp.Frames = append(hp.Frames, hf)
	}
	return hp
}

// handoutAll is the longest lesson whose handout prints every step.
const handoutAll = 40
