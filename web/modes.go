package web

import (
	"fmt"
	"slices"
	"strconv"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// modes builds the segmented controls. Each option links to the state with
// that one parameter changed, at the same point of the trace.
func (s *Server) modes(in pageInput) ([]views.ModeGroup, error) {
	l, st := in.lesson, in.state
	ui := views.UIFor(st.Lang)
	p := st.Policy
	type choice struct {
		label string
		pol   sim.Policy
	}
	type group struct {
		name, label string
		choices     []choice
	}
	with := func(f func(*sim.Policy)) sim.Policy { q := p; f(&q); return q }
	groups := []group{
		{"compaction", ui.Compaction, []choice{
			{ui.On, with(func(q *sim.Policy) { q.Compaction = true })},
			{ui.Off, with(func(q *sim.Policy) { q.Compaction = false })}}},
		{"memory", ui.Memory, []choice{
			{ui.On, with(func(q *sim.Policy) { q.Memory = true })},
			{ui.Off, with(func(q *sim.Policy) { q.Memory = false })}}},
	}
	thresholds := slices.Clone(l.Thresholds)
	if !slices.Contains(thresholds, p.ThresholdPercent) {
		thresholds = append(thresholds, p.ThresholdPercent)
	}
	var tc []choice
	for _, t := range thresholds {
		tc = append(tc, choice{fmt.Sprintf("%d%%", t), with(func(q *sim.Policy) { q.ThresholdPercent = t })})
	}
	var rc []choice
	for r := 1; r <= sim.Recordings; r++ {
		rc = append(rc, choice{strconv.Itoa(r), with(func(q *sim.Policy) { q.Recording = r })})
	}
	groups = append(groups, group{"threshold", ui.Threshold, tc}, group{"rec", ui.Recording, rc})

	cur := in.frames[st.Step-1]
	var out []views.ModeGroup
	for _, g := range groups {
		mg := views.ModeGroup{Name: g.name, Label: g.label}
		for _, c := range g.choices {
			frames, err := s.run(l, c.pol)
			if err != nil {
				return nil, err
			}
			to := State{Lang: st.Lang, Lesson: st.Lesson, Policy: c.pol, Step: alignStep(l, in.frames, cur, frames)}
			mg.Options = append(mg.Options, views.ModeOption{Label: c.label, URL: LessonURL(to), Active: c.pol == p})
		}
		out = append(out, mg)
	}
	return out, nil
}

// alignStep returns the step of to that shows the same point of the trace as
// cur: the same trace step and kind of frame, the same occurrence of it.
func alignStep(l *scenarios.Lesson, from []sim.Frame, cur sim.Frame, to []sim.Frame) int {
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
	// No such frame (e.g. no compaction in the other mode): the first frame
	// at or after the same trace step.
	idx := traceIndex(l, cur.TraceStep)
	for _, f := range to {
		if traceIndex(l, f.TraceStep) >= idx {
			return f.Step
		}
	}
	return len(to)
}

func traceIndex(l *scenarios.Lesson, id string) int {
	for i, st := range l.Trace {
		if st.ID == id {
			return i
		}
	}
	return len(l.Trace)
}

func stepBar(l *scenarios.Lesson, st State, frames []sim.Frame, ui views.UI) views.StepBar {
	n := len(frames)
	at := func(i int) string { s := st; s.Step = i; return LessonURL(s) }
	b := views.StepBar{Current: st.Step, Total: n, Progress: st.Step * 100 / n, Label: fmt.Sprintf(ui.StepOf, st.Step, n)}
	if st.Step > 1 {
		b.First, b.Prev = at(1), at(st.Step-1)
	}
	if st.Step < n {
		b.Next, b.Last = at(st.Step+1), at(n)
	}
	for i, f := range frames {
		sec, _ := l.Section(st.Lang, f.Narration...)
		b.Ticks = append(b.Ticks, views.Tick{
			Step: i + 1, URL: at(i + 1), Current: i+1 == st.Step, Done: i+1 < st.Step, Decisive: f.Decisive,
			Title: fmt.Sprintf("%d · %s", i+1, fillHeadline(sec.Headline, l, st.Policy, f)),
		})
	}
	return b
}
