package importer

import (
	"fmt"
	"strings"

	"ctxsim/authoring/transcript"
	"ctxsim/sim"
)

// asides are the model calls the files beside the session record: the
// call that wrote each recorded compaction's summary (what it was sent
// after the session's messages, and the provider's count of its request),
// and each Task call's sub-agent (its conversation up to its last
// request). The lesson shows each as a second window.
func (im *imp) asides() []sim.Aside {
	var out []sim.Aside
	for k, c := range im.s.Compactions {
		cc := c.Call
		card := fmt.Sprintf("c%d", k+1)
		if cc == nil || cc.Usage == nil || !im.t.hasCard(card) {
			continue
		}
		a := sim.Aside{Kind: sim.AsideCompactor, At: card, File: cc.File, Model: cc.Model, Usage: asideUsage(*cc.Usage)}
		for i, m := range cc.Prompt {
			a.Messages = append(a.Messages, sim.AsideMessage{ID: fmt.Sprintf("%s-sent-%d", card, i+1), Role: sim.RoleUser,
				Label: label(m.Text), Content: im.t.clip(nonEmpty(m.Text))})
		}
		out = append(out, a)
	}
	for _, sa := range im.s.Subagents {
		call, ok := im.t.callIDs[sa.CallID]
		if sa.CallID == "" || !ok || len(sa.Session.Requests()) == 0 {
			continue
		}
		a := sim.Aside{Kind: sim.AsideSubagent, At: call, File: sa.File, Model: sa.Session.Model,
			Messages: asideMessages(im.t, sa)}
		for _, m := range a.Messages {
			if m.Usage != nil {
				a.Usage = *m.Usage
			}
		}
		out = append(out, a)
	}
	return out
}

// hasCard reports whether the trace has card id.
func (t *trace) hasCard(id string) bool {
	for _, c := range t.cards {
		if c.ID == id {
			return true
		}
	}
	return false
}

// asideMessages are a sub-agent's messages as its window holds them: its
// text, each tool call and each result; the first block of an answer
// carries the usage of the request it answered.
func asideMessages(t *trace, sa *transcript.Subagent) []sim.AsideMessage {
	var out []sim.AsideMessage
	prefix := strings.TrimPrefix(sa.AgentID, "agent-")
	if prefix == "" {
		prefix = "sub"
	}
	add := func(role sim.Role, kind sim.Kind, text string, u *transcript.Usage) {
		m := sim.AsideMessage{ID: fmt.Sprintf("%s-%d", prefix, len(out)+1), Role: role, Kind: kind, Label: label(text), Content: t.clip(nonEmpty(text))}
		if u != nil {
			au := asideUsage(*u)
			m.Usage = &au
		}
		out = append(out, m)
	}
	for _, m := range sa.Session.Messages {
		switch m.Role {
		case transcript.User, transcript.Developer:
			add(sim.RoleUser, sim.KindText, m.Text, nil)
		case transcript.Tool:
			add(sim.RoleTool, sim.KindToolResult, m.Text, nil)
		case transcript.Assistant:
			u := m.Usage
			if strings.TrimSpace(m.Text) != "" || len(m.Calls) == 0 {
				add(sim.RoleAssistant, sim.KindText, m.Text, u)
				u = nil
			}
			for _, c := range m.Calls {
				add(sim.RoleAssistant, sim.KindToolCall, c.Name+"("+c.Args+")", u)
				u = nil
			}
		}
	}
	return out
}

func asideUsage(u transcript.Usage) sim.AsideUsage {
	return sim.AsideUsage{Input: u.Input, CacheRead: u.CacheRead, CacheCreation: u.CacheCreation}
}
