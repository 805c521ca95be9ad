package transcript

import (
	"encoding/json"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// readClaudeSession reads a Claude Code session, then the files Claude Code
// wrote beside it: the compaction calls (agent-acompact-*.jsonl) and the
// Task sub-agents (the other agent-*.jsonl).
func readClaudeSession(f sessionFile, b *builder, side sidecars) error {
	names := side.list()
	if len(names) > 0 {
		b.at, b.agents = map[string]int{}, map[string]string{}
	}
	ix, _, err := readClaudeCode(f, b, false)
	if err != nil {
		return err
	}
	for _, name := range names {
		if strings.HasPrefix(path.Base(name), compactPrefix) {
			err = readCompactCall(b, side, name)
		} else {
			err = readSubagent(b, side, name)
		}
		if err != nil {
			return err
		}
	}
	linkSubagents(b.s, ix.progress, b.agents)
	return nil
}

// compactPrefix starts the name of a compaction call's file.
const compactPrefix = "agent-acompact-"

// list returns the names of the agent files beside the session, sorted.
func (sc sidecars) list() []string {
	if sc.fsys == nil {
		return nil
	}
	names, err := fs.Glob(sc.fsys, path.Join(escapeGlob(sc.stem), "subagents", "agent-*.jsonl"))
	if err != nil {
		return nil
	}
	sort.Strings(names)
	return names
}

// escapeGlob quotes the characters path.Match gives a meaning.
func escapeGlob(s string) string {
	return strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`).Replace(s)
}

// open opens a file beside the session; display is its name for errors.
func (sc sidecars) open(name string) (sessionFile, string, func() error, error) {
	display := name
	if sc.dir != "" {
		display = path.Join(sc.dir, name)
	}
	f, err := sc.fsys.Open(name)
	if err != nil {
		return nil, display, nil, &Error{File: display, Msg: "cannot open: " + err.Error(), Err: err}
	}
	sf, err := seekable(f, display)
	if err != nil {
		f.Close()
		return nil, display, nil, err
	}
	return sf, display, f.Close, nil
}

// readSide reads a Claude Code file beside the session (its records are
// sidechain records) with the session's options, limits and redaction.
func readSide(b *builder, side sidecars, name string) (*Session, *index, []int32, error) {
	f, display, closeFile, err := side.open(name)
	if err != nil {
		return nil, nil, nil, err
	}
	defer closeFile()
	sb := newBuilder(display, path.Base(name), b.opt, b.lim)
	ix, chain, err := readClaudeCode(f, sb, true)
	if err != nil {
		return nil, nil, nil, err
	}
	s := sb.finish()
	s.Format = ClaudeCode
	for k, n := range s.Redactions {
		b.s.Redactions[k] += n
	}
	return s, ix, chain, nil
}

// readSubagent reads a Task sub-agent's file and its .meta.json.
func readSubagent(b *builder, side sidecars, name string) error {
	s, ix, _, err := readSide(b, side, name)
	if err != nil {
		return err
	}
	id := ix.agentID
	if id == "" {
		id = strings.TrimPrefix(stem(path.Base(name)), "agent-")
	}
	b.s.Subagents = append(b.s.Subagents, &Subagent{File: s.File, AgentID: id, Type: agentType(side, name), Message: -1, Session: s})
	return nil
}

// maxMeta bounds what is read of a sub-agent's .meta.json.
const maxMeta = 64 << 10

// agentType is the agentType of a sub-agent's .meta.json, "" if there is
// none or it does not say.
func agentType(side sidecars, name string) string {
	f, err := side.fsys.Open(strings.TrimSuffix(name, ".jsonl") + ".meta.json")
	if err != nil {
		return ""
	}
	defer f.Close()
	var meta struct {
		AgentType string `json:"agentType"`
	}
	data, err := io.ReadAll(io.LimitReader(f, maxMeta))
	if err != nil || json.Unmarshal(data, &meta) != nil {
		return ""
	}
	return meta.AgentType
}

// readCompactCall reads a compaction call's file and gives it to the
// compaction it wrote.
func readCompactCall(b *builder, side sidecars, name string) error {
	s, ix, chain, err := readSide(b, side, name)
	if err != nil {
		return err
	}
	call := &CompactCall{File: s.File, AgentID: ix.agentID, Through: -1, Prompt: s.Messages}
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if m := s.Messages[i]; m.Role == Assistant {
			call.Model, call.Usage, call.Answer, call.Time = m.Model, m.Usage, m.Text, m.Time
			call.Prompt = s.Messages[:i]
			break
		}
	}
	if len(chain) > 0 {
		call.Through = attachedAt(ix, &ix.nodes[chain[0]], b.at)
	}
	if k := compactionOf(b.s.Compactions, call); k >= 0 {
		b.s.Compactions[k].Call = call
		return nil
	}
	b.skip("compact-call-unmatched")
	return nil
}

// attachedAt is the index of the session's message a side file's root
// record continues (its parent is a record of the session), -1 if none.
func attachedAt(ix *index, root *node, at map[string]int) int {
	for _, id := range [2]int32{root.parent, root.logical} {
		if id < 0 || ix.owner[id] >= 0 {
			continue
		}
		if k, ok := at[ix.names[id]]; ok {
			return k
		}
	}
	return -1
}

// compactionOf is the compaction a compaction call wrote: the one right
// after the message its request ended with, else the first written after
// its answer; -1 if none is free.
func compactionOf(cs []Compaction, call *CompactCall) int {
	for k := range cs {
		if cs[k].Call == nil && call.Through >= 0 && cs[k].Before-1 == call.Through {
			return k
		}
	}
	for k := range cs {
		if cs[k].Call == nil && !call.Time.IsZero() && !cs[k].Time.Before(call.Time) {
			return k
		}
	}
	return -1
}

// taskCall is a call of the session that starts a sub-agent.
type taskCall struct {
	msg    int
	call   Call
	prompt string
	linked bool
}

// isTaskTool says whether a tool starts a sub-agent (Claude Code named it
// Task, later Agent).
func isTaskTool(name string) bool { return name == "Task" || name == "Agent" }

// linkSubagents finds the Task call that started each sub-agent: the call
// its result or progress records name, else the call whose prompt is the
// sub-agent's first message, else the latest unlinked call before it.
func linkSubagents(s *Session, progress, results map[string]string) {
	sort.SliceStable(s.Subagents, func(i, j int) bool {
		return s.Subagents[i].Session.Started.Before(s.Subagents[j].Session.Started)
	})
	var tasks []*taskCall
	byID := map[string]*taskCall{}
	for i, m := range s.Messages {
		for _, c := range m.Calls {
			if isTaskTool(c.Name) {
				tc := &taskCall{msg: i, call: c, prompt: stringField(c.Args, "prompt")}
				tasks = append(tasks, tc)
				if c.ID != "" {
					byID[c.ID] = tc
				}
			}
		}
	}
	for _, sa := range s.Subagents {
		id := results[sa.AgentID]
		if id == "" {
			id = progress[sa.AgentID]
		}
		if tc := byID[id]; tc != nil && !tc.linked {
			link(sa, tc, "agentId")
		}
	}
	for _, sa := range s.Subagents {
		if sa.LinkedBy == "" {
			linkByPrompt(sa, tasks)
		}
	}
	for _, sa := range s.Subagents {
		if sa.LinkedBy == "" {
			linkByTime(sa, tasks, s.Messages)
		}
	}
}

func link(sa *Subagent, tc *taskCall, by string) {
	sa.CallID, sa.Message, sa.LinkedBy, tc.linked = tc.call.ID, tc.msg, by, true
}

// linkByPrompt links the first unlinked call whose prompt is the
// sub-agent's first message.
func linkByPrompt(sa *Subagent, tasks []*taskCall) {
	first := ""
	for _, m := range sa.Session.Messages {
		if m.Role == User {
			first = m.Text
			break
		}
	}
	for _, tc := range tasks {
		if !tc.linked && first != "" && tc.prompt == first {
			link(sa, tc, "prompt")
			return
		}
	}
}

// linkByTime links the latest unlinked call made before the sub-agent
// started.
func linkByTime(sa *Subagent, tasks []*taskCall, msgs []Message) {
	var best *taskCall
	for _, tc := range tasks {
		if !tc.linked && !msgs[tc.msg].Time.After(sa.Session.Started) {
			best = tc
		}
	}
	if best != nil {
		link(sa, best, "time")
	}
}

// stringField is the string value of key in a JSON object, "" if none.
func stringField(obj, key string) string {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(obj), &m) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(m[key], &s) != nil {
		return ""
	}
	return s
}
