package scenarios

import (
	"fmt"
	"slices"
	"sort"

	"ctxsim/sim"
)

// ArmsConfig is the arms mechanism's configuration in a lesson file: one parameter picks an arm of the trace; the steps listed under
// an arm run only in it.
type ArmsConfig struct {
	Param   string              `yaml:"param"`   // the parameter's name in URLs
	Choices []string            `yaml:"choices"` // the arms, the default first
	Steps   map[string][]string `yaml:"steps"`   // arm -> ids of the steps only it runs
}

// arms builds the arms mechanism and checks its steps against the trace.
func (b *builder) arms(r *ArmsConfig, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.arms"
	a := sim.Arms{Param: r.Param, Choices: r.Choices, Steps: r.Steps}
	switch {
	case !lessonID.MatchString(r.Param):
		b.fail(p+".param", "must be a parameter name matching %s, got %q", lessonID, r.Param)
	case len(r.Choices) < 2:
		b.fail(p+".choices", "needs at least two arms")
	}
	for i, c := range r.Choices {
		if !lessonID.MatchString(c) || slices.Contains(r.Choices[:i], c) {
			b.fail(fmt.Sprintf("%s.choices[%d]", p, i), "must be a unique value matching %s, got %q", lessonID, c)
		}
	}
	steps := map[string]sim.StepType{}
	for _, st := range l.Trace {
		steps[st.ID] = st.Type
	}
	seen := map[string]string{}
	arms := make([]string, 0, len(r.Steps))
	for arm := range r.Steps {
		arms = append(arms, arm)
	}
	sort.Strings(arms)
	for _, arm := range arms {
		ap := p + ".steps." + arm
		if !slices.Contains(r.Choices, arm) {
			b.fail(ap, "names no arm of choices (%v)", r.Choices)
		}
		for i, id := range r.Steps[arm] {
			sp := fmt.Sprintf("%s[%d]", ap, i)
			t, ok := steps[id]
			switch {
			case !ok:
				b.fail(sp, "names no step of the trace, got %q", id)
			case t != sim.StepMessages && t != sim.StepBranch:
				b.fail(sp, "%q is a %s step; only a messages or branch step belongs to an arm", id, t)
			case seen[id] != "":
				b.fail(sp, "%q already belongs to arm %s", id, seen[id])
			}
			seen[id] = arm
		}
	}
	return a
}
