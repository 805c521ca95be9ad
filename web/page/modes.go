package page

import (
	"net/url"
	"slices"
	"strconv"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// modes builds the segmented controls, one per policy parameter of the
// lesson. Each option links to the state with that one parameter changed,
// at the same point of the trace.
func (b *Builder) modes(in input) ([]views.ModeGroup, error) {
	l, st := in.lesson, in.state
	ui := b.cat.For(st.Lang)
	cur := in.run.Frames[st.Step-1]
	var out []views.ModeGroup
	for _, pr := range l.Params() {
		values := slices.Clone(pr.Offered())
		if v := st.Policy.Get(pr.Name); !slices.Contains(values, v) {
			values = append(values, v) // a value typed into the URL
		}
		mg := views.ModeGroup{Name: pr.Name, Label: ui.T("param." + pr.Name)}
		for _, v := range values {
			p, err := l.With(st.Policy, pr.Name, v)
			if err != nil {
				return nil, err
			}
			var u string // "": a static copy does not hold it
			if p == st.Policy || b.linkable(l, withPolicy(st, p)) {
				if u, err = b.modeURL(in, cur, p, pr.Name, v); err != nil {
					return nil, err
				}
			}
			mg.Options = append(mg.Options, views.ModeOption{
				Value: v, Label: valueLabel(ui, pr, v), URL: u, Active: p == st.Policy,
			})
		}
		out = append(out, mg)
	}
	return out, nil
}

// modeURL links a mode option: the canonical URL of policy p at the point
// of the trace the page shows. A preset policy's run is at hand (run at
// start-up), so the link is computed; any other (a typed threshold) links
// to this state with the one parameter as a query, which redirects to the
// same point of the trace when clicked: a page with a typed threshold then
// replays only its own policy, not every option's.
func (b *Builder) modeURL(in input, cur sim.Frame, p sim.Policy, name, value string) (string, error) {
	st := in.state
	if p == st.Policy || !in.lesson.IsPreset(p) || b.onDemand(in.lesson, st, p) {
		if p == st.Policy {
			return LessonURL(st), nil
		}
		return LessonURL(st) + "?" + url.Values{name: {value}}.Encode(), nil
	}
	frames, err := b.runs.Outline(in.lesson, p)
	if err != nil {
		return "", err
	}
	to := st
	to.Policy, to.Step = p, alignStep(in.run.Frames, cur, frames)
	return LessonURL(to), nil
}

// onDemand reports whether a live server replays l under p only when
// asked: a long session's policies other than its default, neither kept
// nor the page's own. A link to one goes through the query redirect,
// which finds the same point of the trace when it is followed, so that a
// page does not replay every policy it links to (a 1,000-turn session's
// first page replayed 8: 5-7 s of CPU).
func (b *Builder) onDemand(l *scenarios.Lesson, st State, p sim.Policy) bool {
	if b.static || p == st.Policy {
		return false
	}
	_, kept := b.runs.Kept(l, p)
	return !kept
}

// queryOf is policy p as the query of a page's URL (the query redirect).
func queryOf(p sim.Policy) string {
	q := url.Values{}
	for _, kv := range p.Values() {
		q.Set(kv[0], kv[1])
	}
	return q.Encode()
}

// withPolicy is st under policy p.
func withPolicy(st State, p sim.Policy) State { st.Policy = p; return st }

// valueLabel is the label of one value of a parameter: its catalog word
// (value.<param>=<value>, then value.<value>), a percent for integer
// parameters, else the value itself.
func valueLabel(ui views.UI, pr sim.Param, v string) string {
	if k, ok := pr.Labels[v]; ok {
		return ui.F(k, map[string]string{"pct": v + "%"})
	}
	for _, k := range []string{"value." + pr.Name + "=" + v, "value." + v} {
		if ui.Has(k) {
			return ui.T(k)
		}
	}
	if len(pr.Choices) == 0 && pr.Max == 100 {
		return v + "%"
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 1000 {
		return kLimit(n) // a size in tokens (a window)
	}
	return v
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

// stepBar builds the step bar of a state's run.
func (b *Builder) stepBar(in input) views.StepBar {
	frames := in.run.Frames
	return b.stepsOver(in, len(frames), func(i int) (*frameView, bool) {
		return newFrameView(in.lesson, in.state.Policy, in.run, i, b.cat.For(in.state.Lang)), frames[i].Decisive
	})
}

// maxTicks is the most steps the progress track shows one by one; a longer
// lesson shows the first and last, the neighbourhood of the current step
// and the decisive steps nearest it, and a field to jump to any step.
const maxTicks = 24

// neighbourhood is how many steps each side of the current one a long
// lesson's track always shows.
const neighbourhood = 5

// stepsOver builds the step bar over n positions; at(i) gives the frame whose
// headline titles position i and whether the position is decisive.
func (b *Builder) stepsOver(in input, n int, at func(i int) (*frameView, bool)) views.StepBar {
	st := in.state
	ui := b.cat.For(st.Lang)
	url := func(i int) string { x := st; x.Step = i; return LessonURL(x) }
	bar := views.StepBar{Current: st.Step, Total: n, Label: ui.F("ui.step-of", map[string]string{"step": itoa(st.Step), "total": itoa(n)})}
	if st.Step > 1 {
		bar.First, bar.Prev = url(1), url(st.Step-1)
	}
	if st.Step < n {
		bar.Next, bar.Last = url(st.Step+1), url(n)
	}
	shown := ticksShown(n, st.Step-1, func(i int) bool { _, d := at(i); return d })
	bar.Jump, bar.JumpURL = len(shown) < n, url(st.Step)
	if bar.Jump && b.static {
		bar.JumpTemplate = stateURL(st, "{step}")
	}
	prev := -1
	for _, i := range shown {
		if prev >= 0 && i > prev+1 {
			bar.Ticks = append(bar.Ticks, views.Tick{Gap: true, Title: ui.F("ui.steps-hidden", map[string]string{"n": itoa(i - prev - 1)})})
		}
		v, decisive := at(i)
		bar.Ticks = append(bar.Ticks, views.Tick{
			URL: url(i + 1), Current: i+1 == st.Step, Done: i+1 < st.Step, Decisive: decisive,
			Title: itoa(i+1) + " · " + b.headlineOf(v),
		})
		prev = i
	}
	return bar
}

// ticksShown picks the positions (0-based, in order) the track shows: all
// of them up to maxTicks, else the first and the last, the current one's
// neighbourhood and the decisive ones nearest the current one.
func ticksShown(n, cur int, decisive func(i int) bool) []int {
	if n <= maxTicks {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	keep := map[int]bool{0: true, n - 1: true}
	for i := max(cur-neighbourhood, 0); i <= min(cur+neighbourhood, n-1); i++ {
		keep[i] = true
	}
	for d := 1; len(keep) < maxTicks && (cur-d >= 0 || cur+d < n); d++ {
		for _, i := range []int{cur - d, cur + d} {
			if i >= 0 && i < n && len(keep) < maxTicks && decisive(i) {
				keep[i] = true
			}
		}
	}
	out := make([]int, 0, len(keep))
	for i := range keep {
		out = append(out, i)
	}
	slices.Sort(out)
	return out
}
