package scenarios

import (
	"fmt"
	"regexp"

	"ctxsim/sim"
)

// toolUseID is what a tool_use id may look like (providers use toolu_01…).
var toolUseID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// status validates the status engine's section of lesson.yaml.
func (b *builder) status(raw *rawStatus) *sim.StatusTrace {
	if raw == nil {
		b.fail("status", "is required for engine status")
		return nil
	}
	st := &sim.StatusTrace{System: raw.System, Todo: raw.Todo,
		Constraint: sim.Constraint{Tool: raw.Constraint.Tool, Key: raw.Constraint.Key, Max: raw.Constraint.Max}}
	switch {
	case raw.System == "":
		b.fail("status.system", "is required")
	case raw.Constraint.Tool == "" || raw.Constraint.Key == "":
		b.fail("status.constraint", "needs tool and key")
	case raw.Constraint.Max <= 0:
		b.fail("status.constraint.max", "must be a positive number of calls")
	case len(raw.Steps) == 0:
		b.fail("status.steps", "needs at least one step")
	case raw.Steps[0].User == "":
		b.fail("status.steps[0].user", "the first step needs the user's task")
	}
	seen := map[string]bool{}
	for i, rs := range raw.Steps {
		path := fmt.Sprintf("status.steps[%d]", i)
		if !lessonID.MatchString(rs.Step) || seen[rs.Step] {
			b.fail(path+".step", "must be a unique id matching %s, got %q", lessonID, rs.Step)
		}
		seen[rs.Step] = true
		if rs.Time == "" {
			b.fail(path+".time", "is required: the status bar and the clock report it")
		}
		step := sim.StatusStep{ID: rs.Step, Time: rs.Time, User: rs.User, UserID: rs.UserID, Decision: rs.Decision}
		if i > 0 && rs.User != "" {
			b.checkID(path+".user_id", rs.UserID)
		}
		switch {
		case rs.Call == nil && !rs.Decision:
			b.fail(path, "needs a call (what the model did) or decision: true")
		case rs.Call != nil && rs.Decision:
			b.fail(path+".call", "a decision step simulates no model output")
		case rs.Call != nil:
			c := rs.Call
			if c.ID == "" || c.Tool == "" || c.Args == "" || c.Result == "" {
				b.fail(path+".call", "needs id, tool, args and result")
			}
			if !toolUseID.MatchString(c.ID) || b.ids["call-"+c.ID] != "" {
				b.fail(path+".call.id", "must be a unique tool_use id matching %s, got %q", toolUseID, c.ID)
			}
			b.ids["call-"+c.ID] = path + ".call.id"
			step.Call = &sim.ToolCall{ID: c.ID, Tool: c.Tool, Args: c.Args, Key: c.Key, Result: c.Result}
		}
		st.Steps = append(st.Steps, step)
	}
	return st
}
