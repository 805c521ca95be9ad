package web

import (
	"fmt"
	"slices"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// modes builds the segmented controls, one per parameter of the lesson's
// engine. Each option links to the state with that one parameter changed,
// at the same point of the trace.
func (s *Server) modes(in pageInput) ([]views.ModeGroup, error) {
	l, st := in.lesson, in.state
	ui := views.UIFor(st.Lang)
	cur := in.frames[st.Step-1]
	var out []views.ModeGroup
	for _, pr := range sim.ParamsOf(l.Lesson) {
		values := pr.Presets(l.Lesson)
		if v := pr.Get(st.Policy); !slices.Contains(values, v) {
			values = append(values, v) // a value typed into the URL
		}
		mg := views.ModeGroup{Name: pr.Name, Label: ui.ParamLabel(pr.Name)}
		for _, v := range values {
			p := st.Policy
			pr.Set(&p, v)
			frames, err := s.run(l, p)
			if err != nil {
				return nil, err
			}
			to := st
			to.Policy, to.Step = p, alignStep(in.frames, cur, frames)
			mg.Options = append(mg.Options, views.ModeOption{
				Value: v, Label: ui.ValueLabel(pr.Name, v), URL: LessonURL(l.Lesson, to), Active: p == st.Policy,
			})
		}
		out = append(out, mg)
	}
	return out, nil
}

// alignStep returns the step of to that shows the same point of the trace as
// cur: the same trace step and kind of frame (the same occurrence of it), else
// the same trace step, else the last frame at or before cur's point of the
// trace (a step the other policy skipped, like those after a refusal).
func alignStep(from []sim.Frame, cur sim.Frame, to []sim.Frame) int {
	same := func(f sim.Frame) bool { return f.TraceStep == cur.TraceStep && f.Kind == cur.Kind }
	k := 0
	for _, f := range from[:cur.Step-1] {
		if same(f) {
			k++
		}
	}
	var matches []int
	for _, f := range to {
		if same(f) {
			matches = append(matches, f.Step)
		}
	}
	if len(matches) > 0 {
		return matches[min(k, len(matches)-1)]
	}
	for _, f := range to {
		if f.TraceStep == cur.TraceStep {
			return f.Step
		}
	}
	order := mergeOrder(stepOrder(from), stepOrder(to))
	at := slices.Index(order, cur.TraceStep)
	best := 1
	for _, f := range to {
		if slices.Index(order, f.TraceStep) <= at {
			best = f.Step
		}
	}
	return best
}

func stepBar(l *scenarios.Lesson, st State, frames []sim.Frame, ui views.UI) views.StepBar {
	return stepsOver(l, st, len(frames), ui, func(i int) (sim.Frame, bool) { return frames[i], frames[i].Decisive })
}

// stepsOver builds the step bar over n positions; at(i) gives the frame whose
// headline titles position i and whether the position is decisive.
func stepsOver(l *scenarios.Lesson, st State, n int, ui views.UI, at func(i int) (sim.Frame, bool)) views.StepBar {
	url := func(i int) string { s := st; s.Step = i; return LessonURL(l.Lesson, s) }
	b := views.StepBar{Current: st.Step, Total: n, Progress: st.Step * 100 / n, Label: fmt.Sprintf(ui.StepOf, st.Step, n)}
	if st.Step > 1 {
		b.First, b.Prev = url(1), url(st.Step-1)
	}
	if st.Step < n {
		b.Next, b.Last = url(st.Step+1), url(n)
	}
	for i := range n {
		f, decisive := at(i)
		sec, _ := l.Section(st.Lang, f.Narration...)
		b.Ticks = append(b.Ticks, views.Tick{
			Step: i + 1, URL: url(i + 1), Current: i+1 == st.Step, Done: i+1 < st.Step, Decisive: decisive,
			Title: fmt.Sprintf("%d · %s", i+1, fillHeadline(sec.Headline, l, st.Policy, f)),
		})
	}
	return b
}
