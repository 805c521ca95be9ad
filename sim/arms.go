package sim

import "slices"

// Arms is the arms mechanism: one policy parameter picks an arm of an
// experiment, and the trace steps that belong to the other arms are not
// run. A step no arm names runs in every arm. One trace then holds the
// variants of a story (a model that calls two tools in one response, or
// one after the other) without a branch of its own per variant.
type Arms struct {
	Param   string   // the parameter's name in URLs
	Choices []string // the arms, the default first
	// Steps lists, by arm, the ids of the trace steps only that arm runs.
	Steps map[string][]string
}

// Name is "arms".
func (Arms) Name() string { return "arms" }

// Params is the arm parameter.
func (a Arms) Params() []Param {
	return []Param{{Name: a.Param, Choices: a.Choices, Default: a.Choices[0]}}
}

func (a Arms) start(h *harness) hooks {
	arm := h.p.Get(a.Param)
	r := &armsRun{arm: arm, skip: map[string]bool{}}
	for name, ids := range a.Steps {
		if name == arm {
			continue
		}
		for _, id := range ids {
			r.skip[id] = true
		}
	}
	return r
}

// ArmOf reports the arm that runs step id alone ("" when every arm runs it).
func (a Arms) ArmOf(id string) string {
	for name, ids := range a.Steps {
		if slices.Contains(ids, id) {
			return name
		}
	}
	return ""
}

type armsRun struct {
	base
	arm  string
	skip map[string]bool // steps of the other arms
}

// runStep takes a step of another arm: it does not happen in this run.
func (r *armsRun) runStep(_ *harness, st Step) bool { return r.skip[st.ID] }

// frame tags the frames of trace steps with the arm, so that a section
// may be written for one arm (request-2@serial).
func (r *armsRun) frame(_ *harness, _ *Frame, fc frameCtx) {
	if !fc.own {
		*fc.tags = append(*fc.tags, r.arm)
	}
}
