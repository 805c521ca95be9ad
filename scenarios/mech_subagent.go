package scenarios

import (
	"fmt"

	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// SubagentConfig is the sub-agent's configuration in a lesson file
// (mechanisms.subagent): the sub-agent that does the steps marked agent:
// sub when isolation is on.
type SubagentConfig struct {
	System lessonfile.Message `yaml:"system"` // its system prompt
	Task   lessonfile.Message `yaml:"task"`   // the main agent's tool call that hands the task over
	Prompt lessonfile.Message `yaml:"prompt"` // the task as the sub-agent reads it (its first message)
}

// subagent builds the sub-agent: its system prompt, the main agent's call
// that hands the task over, and the task as the sub-agent reads it.
func (b *builder) subagent(r *SubagentConfig, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.subagent"
	sys := sim.Message{ID: "sub-system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Label: r.System.Label, Content: r.System.Content,
		Tokens: r.System.Tokens, Origin: b.originOf(p+".system.origin", r.System.Origin)}
	b.size(p+".system", r.System.Tokens)
	if r.System.Content == "" {
		b.fail(p+".system.content", "is required: the sub-agent's system prompt")
	}
	b.checkID(p+".system", sys.ID)
	task, prompt := r.Task, r.Prompt
	task.Role, task.Kind = string(sim.RoleAssistant), string(sim.KindToolCall)
	prompt.Role, prompt.Kind = string(sim.RoleUser), string(sim.KindText)
	s := sim.Subagent{System: sys, Task: b.message(p+".task", task, l.Facts), Prompt: b.message(p+".prompt", prompt, l.Facts)}
	s.Task.ToolUseID = s.Task.ID
	return s
}

// checkSubSteps requires the subagent mechanism for steps a sub-agent
// does, one run of them, ending with the sub-agent's conclusion (a text
// message of the assistant), and such steps for the mechanism.
func (b *builder) checkSubSteps(l *sim.Lesson) {
	_, ok := l.Mechanism("subagent")
	first, last := -1, -1
	for i, st := range l.Trace {
		if st.Agent != sim.AgentSub {
			continue
		}
		if !ok {
			b.fail(fmt.Sprintf("trace[%d].agent", i), "a sub-agent's step needs the subagent mechanism")
			return
		}
		if last >= 0 && last != i-1 {
			b.fail(fmt.Sprintf("trace[%d].agent", i), "a sub-agent's steps must follow one another (one task, one run)")
			return
		}
		if first < 0 {
			first = i
		}
		last = i
	}
	if ok && last < 0 {
		b.fail("mechanisms.subagent", "no step is a sub-agent's: mark the steps it does with agent: sub")
		return
	}
	if last < 0 {
		return
	}
	ms := l.Trace[last].Messages
	if n := len(ms); n == 0 || ms[n-1].Role != sim.RoleAssistant || ms[n-1].Kind != sim.KindText {
		b.fail(fmt.Sprintf("trace[%d].messages", last), "the sub-agent's last step must end with its conclusion: a text message of the assistant (it returns as the task's result)")
	}
}
