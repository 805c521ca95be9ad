package web

import (
	"fmt"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// quickPolicies are the modes a presenter reaches with digit keys: the
// default, then each parameter's other presets one at a time (recordings
// and prices are left to the mode controls).
func quickPolicies(l *sim.Lesson) []sim.Policy {
	def := l.DefaultPolicy()
	out := []sim.Policy{def}
	for _, pr := range sim.ParamsOf(l) {
		if pr.Name == "rec" || pr.Name == "alpha" {
			continue
		}
		for _, v := range pr.Presets(l) {
			p := def
			pr.Set(&p, v)
			if p != def && len(out) < 9 {
				out = append(out, p)
			}
		}
	}
	return out
}

// quickLabel names a quick mode by what differs from the default.
func quickLabel(l *sim.Lesson, p sim.Policy, ui views.UI) string {
	def := l.DefaultPolicy()
	for _, pr := range sim.ParamsOf(l) {
		if v := pr.Get(p); v != pr.Get(def) {
			return ui.ParamLabel(pr.Name) + " " + ui.ValueLabel(pr.Name, v)
		}
	}
	return ui.DefaultMode
}

// navOf builds the links between views of st and the quick modes. cur is
// the frame index (0-based) of the left/only side.
func (s *Server) navOf(l *scenarios.Lesson, st State, frames []sim.Frame, cur int) (views.Nav, error) {
	ui := views.UIFor(st.Lang)
	with := func(f func(*State)) string { x := st; f(&x); return LessonURL(l.Lesson, x) }
	n := views.Nav{Compare: st.Compare != nil, Decisive: frames[cur].Decisive}
	n.NormalURL = with(func(x *State) { x.View = "" })
	if st.View != ViewPresent {
		n.PresentURL = with(func(x *State) { x.View = ViewPresent })
	}
	if st.View == ViewPresent && st.Compare == nil {
		n.NotesURL = with(func(x *State) { x.View = ViewNotes })
	}
	if st.View == "" && st.Compare == nil {
		n.HandoutURL = handoutURL(l.Lesson, st)
	}
	quick := quickPolicies(l.Lesson)
	if st.Compare != nil {
		n.CompareURL = with(func(x *State) { x.Compare, x.Step = nil, cur+1 })
	} else {
		other := quick[0]
		if other == st.Policy && len(quick) > 1 {
			other = quick[1]
		}
		fb, err := s.run(l, other)
		if err != nil {
			return n, err
		}
		pos := timelineAt(alignRuns(frames, fb), cur)
		n.CompareURL = with(func(x *State) { x.Compare, x.Step = &other, pos+1 })
	}
	for i, q := range quick {
		target := st
		var active bool
		if st.Compare != nil { // digits change the right-hand side
			fb, err := s.run(l, q)
			if err != nil {
				return n, err
			}
			target.Compare = &q
			target.Step = timelineAt(alignRuns(frames, fb), cur) + 1
			active = q == *st.Compare
		} else {
			fq, err := s.run(l, q)
			if err != nil {
				return n, err
			}
			target.Policy = q
			target.Step = alignStep(frames, frames[cur], fq)
			active = q == st.Policy
		}
		n.QuickModes = append(n.QuickModes, views.QuickMode{Key: i + 1, Label: quickLabel(l.Lesson, q, ui), URL: LessonURL(l.Lesson, target), Active: active})
	}
	return n, nil
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
func (s *Server) presentPage(in pageInput) (views.PresentPage, error) {
	lp, err := s.lessonPage(in)
	if err != nil {
		return views.PresentPage{}, err
	}
	normal := in.state
	normal.View = ""
	return views.PresentPage{
		Lang: lp.Lang, UI: lp.UI, Assets: lp.Assets, Title: lp.Title, LessonID: lp.LessonID, URL: lp.URL,
		StateURL: LessonURL(in.lesson.Lesson, normal), Window: lp.Window, Kicker: lp.Narration.Kicker,
		Headline: lp.Narration.Headline, Changes: lp.Narration.Changes, Steps: lp.Steps, Nav: lp.Nav,
	}, nil
}

// notesPage builds the speaker notes of a state.
func (s *Server) notesPage(in pageInput) (views.NotesPage, error) {
	lp, err := s.lessonPage(in)
	if err != nil {
		return views.NotesPage{}, err
	}
	np := views.NotesPage{
		Lang: lp.Lang, UI: lp.UI, Assets: lp.Assets, Title: lp.Title, URL: lp.URL, Kicker: lp.Narration.Kicker,
		Headline: lp.Narration.Headline, Body: lp.Narration.Body, Changes: lp.Narration.Changes, Steps: lp.Steps, Nav: lp.Nav,
	}
	if next := in.state.Step; next < len(in.frames) {
		f := in.frames[next]
		sec, _ := in.lesson.Section(in.state.Lang, f.Narration...)
		np.NextHeadline = fillHeadline(sec.Headline, in.lesson, in.state.Policy, f)
	}
	return np, nil
}

// comparePage builds the side-by-side view of two policies at one position.
func (s *Server) comparePage(l *scenarios.Lesson, st State, fa, fb []sim.Frame, tl []pair) (views.ComparePage, *views.PresentPage, error) {
	ui := views.UIFor(st.Lang)
	ph := phrasesFor(st.Lang)
	pos := tl[st.Step-1]
	left := s.statePage(pageInput{lesson: l, state: State{Lang: st.Lang, Lesson: st.Lesson, Policy: st.Policy, Step: pos.a + 1}, frames: fa})
	right := s.statePage(pageInput{lesson: l, state: State{Lang: st.Lang, Lesson: st.Lesson, Policy: *st.Compare, Step: pos.b + 1}, frames: fb})
	fit := max(left.Window.FitU, right.Window.FitU)
	left.Window.FitU, right.Window.FitU = fit, fit
	prev := pair{-1, -1}
	if st.Step > 1 {
		prev = tl[st.Step-2]
	}
	view := views.CompareView{
		Left:  views.ComparePane{Title: policyTitle(l.Lesson, st.Policy, *st.Compare, ui), Window: left.Window, Diff: diffLine(l, st, fa, pos.a, prev.a, ph), Headline: left.Narration.Headline},
		Right: views.ComparePane{Title: policyTitle(l.Lesson, *st.Compare, st.Policy, ui), Window: right.Window, Diff: diffLine(l, State{Lang: st.Lang, Policy: *st.Compare}, fb, pos.b, prev.b, ph), Headline: right.Narration.Headline},
	}
	ta, tb := fa[pos.a].Total, fb[pos.b].Total
	view.Delta = fmt.Sprintf(ph.delta, signed(l.Lesson, tb-ta), sizeOf(l.Lesson, tb), sizeOf(l.Lesson, ta))
	nav, err := s.navOf(l, st, fa, pos.a)
	if err != nil {
		return views.ComparePage{}, nil, err
	}
	nav.Decisive = fa[pos.a].Decisive || fb[pos.b].Decisive
	steps := compareSteps(l, st, fa, fb, tl, ui)
	alt := st
	alt.Lang = otherLang(st.Lang)
	cp := views.ComparePage{
		Lang: st.Lang, UI: ui, Assets: s.assets.urls, Title: l.Title.In(st.Lang), LessonID: l.ID,
		URL: LessonURL(l.Lesson, st), IndexURL: "/" + st.Lang + "/", AltLang: views.Link{Label: ui.OtherLang, URL: LessonURL(l.Lesson, alt)},
		Modes: s.compareModes(l, st, fa, tl, false), ModesB: s.compareModes(l, st, fa, tl, true),
		View: view, Steps: steps, Nav: nav,
	}
	if st.View != ViewPresent {
		return cp, nil, nil
	}
	normal := st
	normal.View = ""
	pp := &views.PresentPage{
		Lang: st.Lang, UI: ui, Assets: s.assets.urls, Title: cp.Title, LessonID: l.ID, URL: cp.URL,
		StateURL: LessonURL(l.Lesson, normal), Window: left.Window, Compare: &view,
		Kicker: fmt.Sprintf(ph.kicker, st.Step, len(tl)), Headline: left.Narration.Headline, Steps: steps, Nav: nav,
	}
	return cp, pp, nil
}

// compareModes builds the mode controls of one side of a comparison.
func (s *Server) compareModes(l *scenarios.Lesson, st State, fa []sim.Frame, tl []pair, right bool) []views.ModeGroup {
	ui := views.UIFor(st.Lang)
	cur := st.Policy
	if right {
		cur = *st.Compare
	}
	var out []views.ModeGroup
	for _, pr := range sim.ParamsOf(l.Lesson) {
		mg := views.ModeGroup{Name: pr.Name, Label: ui.ParamLabel(pr.Name)}
		for _, v := range pr.Presets(l.Lesson) {
			p := cur
			pr.Set(&p, v)
			target := st
			if right {
				target.Compare = &p
				if fb, err := s.run(l, p); err == nil {
					target.Step = timelineAt(alignRuns(fa, fb), tl[st.Step-1].a) + 1
				}
			} else {
				target.Policy = p
				if fa2, err := s.run(l, p); err == nil {
					if fb, err := s.run(l, *st.Compare); err == nil {
						target.Step = min(st.Step, len(alignRuns(fa2, fb)))
					}
				}
			}
			mg.Options = append(mg.Options, views.ModeOption{Value: v, Label: ui.ValueLabel(pr.Name, v), URL: LessonURL(l.Lesson, target), Active: p == cur})
		}
		out = append(out, mg)
	}
	return out
}

func compareSteps(l *scenarios.Lesson, st State, fa, fb []sim.Frame, tl []pair, ui views.UI) views.StepBar {
	return stepsOver(l, st, len(tl), ui, func(i int) (sim.Frame, bool) {
		a, b := fa[tl[i].a], fb[tl[i].b]
		return a, a.Decisive || b.Decisive
	})
}

// diffLine says in one line what happened on one side at this position.
func diffLine(l *scenarios.Lesson, st State, frames []sim.Frame, cur, prev int, ph phrases) string {
	f := frames[cur]
	if cur == prev {
		return fmt.Sprintf(ph.holding, sizeOf(l.Lesson, f.Total))
	}
	switch {
	case f.Kind == sim.FrameReplaced && f.Compaction != nil:
		return fmt.Sprintf(ph.compactedHere, sizeOf(l.Lesson, f.Compaction.Before), sizeOf(l.Lesson, f.Compaction.After))
	case f.Error != "":
		return fmt.Sprintf(ph.refusedHere, f.Error, sizeOf(l.Lesson, f.Total))
	case f.Kind == sim.FrameCrossed && f.Compaction != nil:
		return fmt.Sprintf(ph.crossedHere, sizeOf(l.Lesson, f.Total), sizeOf(l.Lesson, f.Compaction.Threshold))
	case f.Kind == sim.FrameSelected && f.Compaction != nil:
		return fmt.Sprintf(ph.selected, f.Compaction.Count, sizeOf(l.Lesson, f.Compaction.RangeTokens))
	case f.Kind == sim.FrameSummary && f.Compaction != nil:
		return fmt.Sprintf(ph.summaryHere, sizeOf(l.Lesson, f.Compaction.Summary))
	}
	before := 0
	if cur > 0 {
		before = frames[cur-1].Total
	}
	line := fmt.Sprintf(ph.nowAt, sizeOf(l.Lesson, f.Total), signed(l.Lesson, f.Total-before))
	if f.Cache != nil {
		line += " · " + cacheLine(l.Lesson, f.Cache, ph)
	}
	return line
}

func signed(l *sim.Lesson, n int) string {
	if n >= 0 {
		return "+" + sizeOf(l, n)
	}
	return "−" + sizeOf(l, -n)
}

// policyTitle names a side of a comparison by what differs from the other
// side ("Compaction off"); identical policies read as the whole policy.
func policyTitle(l *sim.Lesson, p, other sim.Policy, ui views.UI) string {
	var parts, all []string
	for _, pr := range sim.ParamsOf(l) {
		s := ui.ParamLabel(pr.Name) + " " + ui.ValueLabel(pr.Name, pr.Get(p))
		all = append(all, s)
		if pr.Get(p) != pr.Get(other) {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		parts = all
	}
	return strings.Join(parts, " · ")
}

func handoutURL(l *sim.Lesson, st State) string {
	return "/" + st.Lang + "/" + st.Lesson + "/" + PolicySegment(l, st.Policy) + "/handout"
}

// handoutPage builds the printable handout: the first frame, every
// decisive frame and the last frame, with their narration.
func (s *Server) handoutPage(l *scenarios.Lesson, st State, frames []sim.Frame) views.HandoutPage {
	ui := views.UIFor(st.Lang)
	intro, _ := l.Section(st.Lang, "intro")
	st.Step = 1
	hp := views.HandoutPage{
		Lang: st.Lang, UI: ui, Assets: s.assets.urls, Title: l.Title.In(st.Lang),
		Policy: policyTitle(l.Lesson, st.Policy, st.Policy, ui), Intro: intro.Body,
		BackURL: LessonURL(l.Lesson, st), Source: l.Source.In(st.Lang), FitU: s.fit[l.ID],
	}
	for i, f := range frames {
		if i != 0 && i != len(frames)-1 && !f.Decisive {
			continue
		}
		x := st
		x.Step = i + 1
		lp := s.statePage(pageInput{lesson: l, state: x, frames: frames})
		hp.Frames = append(hp.Frames, views.HandoutFrame{Step: i + 1, Kicker: lp.Narration.Kicker,
			Headline: lp.Narration.Headline, Changes: lp.Narration.Changes, Body: lp.Narration.Body, Window: lp.Window})
	}
	return hp
}
