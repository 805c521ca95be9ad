package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

var lessonID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// toolUseID is what a tool_use id may look like (providers use toolu_01…).
var toolUseID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// ValidCallID reports whether id may be the tool_use id of a call of a
// lesson file: it looks like a provider's, and does not take the prefix of
// the workspace's re-reads (sim.RereadIDPrefix).
func ValidCallID(id string) bool {
	return toolUseID.MatchString(id) && !strings.HasPrefix(id, sim.RereadIDPrefix)
}

// builder validates raw lesson data and builds a *sim.Lesson, stopping at
// the first problem with its file, line and field.
type builder struct {
	f     *lessonfile.File
	files fileReader
	ids   map[string]string // block id -> field path where it was declared
	paths map[string]string // message id -> its field path, for later checks
	err   *Error
	// ops lists the trace's file operations in order, with their paths.
	ops           []*sim.FileOp
	opPaths       []string
	counted       bool
	workspace     []sim.WorkspaceFile // the workspace's files, read before the trace
	writes        []string            // files a write call creates
	results       map[string]bool     // ids of the trace's tool results
	reads         []string            // the tools of the trace's read calls, in order
	hasRecordings bool                // recordings.yaml added versions to cards
	origin        string              // where the trace's texts come from: authored, or recorded
}

// fileReader reads another file of the lesson directory.
type fileReader interface {
	read(name string) ([]byte, error)
	name(file string) string
}

func (b *builder) fail(path, format string, args ...any) {
	if b.err == nil {
		b.err = b.f.ErrorAt(path, fmt.Sprintf(format, args...))
	}
}

// failWith keeps err, an *Error of a lesson file, as the first problem.
func (b *builder) failWith(err error) {
	if e, ok := err.(*Error); ok && b.err == nil {
		b.err = e
	}
}

func buildLesson(f *lessonfile.File, raw *lessonfile.Lesson, files fileReader) (*sim.Lesson, error) {
	b := &builder{f: f, files: files, ids: map[string]string{"system": "system"}, paths: map[string]string{}, origin: sim.OriginAuthored}
	if raw.Imported != nil {
		b.origin = sim.OriginImported
	}
	l := &sim.Lesson{ID: raw.ID, Order: raw.Order, Title: raw.Title, Source: raw.Source, Window: raw.Window}
	b.header(raw, l)
	if b.err != nil {
		return nil, b.err
	}
	l.Facts = b.facts(raw.Facts)
	l.System = b.system(raw.System)
	configs := b.configs(raw.Mechanisms)
	if b.err != nil {
		return nil, b.err
	}
	b.workspaceFiles(configs)
	l.Trace = b.trace(raw.Trace, l.Facts)
	if b.err != nil {
		return nil, b.err
	}
	b.mechanisms(configs, l)
	if _, ok := l.Mechanism("usage"); !ok && l.System.Kind == sim.KindUnseen {
		b.fail("system.kind", "unseen needs the usage mechanism: a recorded session's usage sizes it")
	}
	if b.err != nil {
		return nil, b.err
	}
	order := raw.Policy
	if b.hasRecordings && order != nil && !slices.Contains(order, "rec") {
		order = append(slices.Clone(order), "rec") // versions ctxsim record added: the parameter that shows them comes last
	}
	if err := l.SetParamOrder(order); err != nil {
		b.fail("policy", "%v", err)
	}
	if len(l.Params()) == 0 {
		b.fail("mechanisms", "give the lesson at least one policy parameter (its URLs name a policy): none of its mechanisms has one as configured")
	}
	b.checkParams(l)
	if b.err != nil {
		return nil, b.err
	}
	l.IndexFacts()
	return l, nil
}

func (b *builder) header(raw *lessonfile.Lesson, l *sim.Lesson) {
	switch {
	case !lessonID.MatchString(raw.ID):
		b.fail("id", "must match %s, got %q", lessonID, raw.ID)
	case !inEvery(raw.Title):
		b.fail("title", "needs %s", everyLanguage())
	case raw.Window <= 0 || raw.Window > MaxWindow:
		b.fail("window", "must be a number of tokens from 1 to %d, got %d", MaxWindow, raw.Window)
	case raw.Sizes != "" && raw.Sizes != "trace" && raw.Sizes != "counted":
		b.fail("sizes", "must be trace (every message gives its size) or counted (o200k_base counts), got %q", raw.Sizes)
	}
	b.counted = raw.Sizes == "counted"
	l.Counted = b.counted
}

// checkParams checks that the mechanisms' defaults and presets are
// allowed values.
func (b *builder) checkParams(l *sim.Lesson) {
	for _, pr := range l.Params() {
		for _, v := range append([]string{pr.Default}, pr.Offered()...) {
			if !pr.Valid(v) {
				b.fail("mechanisms", "parameter %s: %q is not allowed (%s)", pr.Name, v, pr.Allowed())
				return
			}
		}
	}
}

func (b *builder) facts(raw []lessonfile.Fact) []sim.Fact {
	var out []sim.Fact
	for i, rf := range raw {
		path := fmt.Sprintf("facts[%d]", i)
		re, err := regexp.Compile(rf.Pattern)
		switch {
		case rf.ID == "":
			b.fail(path+".id", "is required")
		case rf.Pattern == "":
			b.fail(path+".pattern", "is required")
		case err != nil:
			b.fail(path+".pattern", "is not a valid regular expression: %v", err)
		case !inEvery(rf.Label):
			b.fail(path+".label", "needs %s", everyLanguage())
		}
		out = append(out, sim.Fact{ID: rf.ID, Pattern: re, Label: rf.Label})
	}
	return out
}

func (b *builder) system(rm lessonfile.Message) sim.Message {
	m := sim.Message{ID: "system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Label: rm.Label, Content: rm.Content,
		Tokens: rm.Tokens, Origin: b.originOf("system.origin", rm.Origin)}
	switch sim.Kind(rm.Kind) {
	case "", sim.KindPrompt:
		b.size("system", rm.Tokens)
		if rm.Content == "" {
			b.fail("system.content", "is required")
		}
	case sim.KindUnseen:
		// What a recorded session's file does not hold: no text, and the
		// provider's count sizes it (the usage mechanism).
		m.Kind = sim.KindUnseen
		switch {
		case b.origin != sim.OriginImported:
			b.fail("system.kind", "unseen is what a recorded session's file does not hold: it needs a recorded lesson (recorded: file, format, ...)")
		case rm.Content != "" || rm.Tokens != 0:
			b.fail("system", "a system block of kind unseen has neither content nor tokens: the recorded usage sizes it")
		case !inEvery(rm.Label):
			b.fail("system.label", "needs %s", everyLanguage())
		}
	default:
		b.fail("system.kind", "must be prompt (the default) or unseen (what a recorded session's file does not hold), got %q", rm.Kind)
	}
	return m
}

// originOf is where a message's text comes from: the lesson's origin, or
// authored text inside a recorded lesson.
func (b *builder) originOf(path, o string) string {
	switch o {
	case "":
		return b.origin
	case sim.OriginAuthored, sim.OriginImported:
		if o == sim.OriginImported && b.origin != sim.OriginImported {
			b.fail(path, "recorded text needs a recorded lesson (recorded: file, format, ...)")
		}
		return o
	}
	b.fail(path, "must be authored or recorded, got %q", o)
	return b.origin
}

// size checks a message's size against the lesson's sizing rule.
func (b *builder) size(path string, tokens int) {
	switch {
	case b.counted && tokens != 0:
		b.fail(path+".tokens", "must be left out: this lesson counts the tokens of every text (sizes: counted)")
	case !b.counted && (tokens <= 0 || tokens > MaxWindow):
		b.fail(path+".tokens", "must be a number of tokens from 1 to %d, got %d", MaxWindow, tokens)
	}
}

var stepTypes = []sim.StepType{sim.StepSessionStart, sim.StepSessionEnd, sim.StepRemember, sim.StepMessages, sim.StepBranch, sim.StepCompact}

// usageOf is a message's recorded usage (nil when the trace has none).
func usageOf(r *lessonfile.Usage) *sim.Usage {
	if r == nil {
		return nil
	}
	return &sim.Usage{Input: r.Input, CacheRead: r.CacheRead, CacheCreation: r.CacheCreation, Output: r.Output}
}

func (b *builder) trace(raw []lessonfile.Step, facts []sim.Fact) []sim.Step {
	if len(raw) == 0 {
		b.fail("trace", "needs at least one step")
	}
	seen := map[string]bool{}
	var out []sim.Step
	for i, rs := range raw {
		path := fmt.Sprintf("trace[%d]", i)
		st := sim.Step{ID: rs.Step, Type: sim.StepType(rs.Type), Line: rs.Line, Tokens: rs.Tokens, Time: rs.Time,
			Decision: rs.Decision, ShowRequest: rs.Show == "request" || rs.Show == "last-request", ShowLast: rs.Show == "last-request", Card: rs.Card}
		if st.Type == "" {
			st.Type = sim.StepMessages
			if rs.Branch != nil {
				st.Type = sim.StepBranch
			}
		}
		switch {
		case !lessonID.MatchString(rs.Step) || seen[rs.Step]:
			b.fail(path+".step", "must be a unique id matching %s, got %q", lessonID, rs.Step)
		case sim.Reserved(rs.Step):
			b.fail(path+".step", "%q is a narration key of the harness (%s, pass-N); choose another id", rs.Step, strings.Join(sim.ReservedSteps, ", "))
		case !slices.Contains(stepTypes, st.Type):
			b.fail(path+".type", "must be one of %v, got %q", stepTypes, rs.Type)
		case rs.Show != "" && rs.Show != "request" && rs.Show != "last-request":
			b.fail(path+".show", "must be request (a frame is the request of each model call of the step) or last-request (the frame is the request of its last one), got %q", rs.Show)
		case rs.Decision && (st.Type != sim.StepMessages || rs.Show != "request"):
			b.fail(path+".decision", "only a messages step shown as its request (show: request) ends with a decision")
		}
		seen[rs.Step] = true
		b.stepBody(path, rs, &st, facts)
		st.Needs = b.needs(path, rs.Needs, facts, seen)
		switch {
		case rs.Agent != "" && rs.Agent != sim.AgentSub:
			b.fail(path+".agent", "must be %s (a sub-agent does the step) or left out, got %q", sim.AgentSub, rs.Agent)
		case rs.Agent != "" && st.Type != sim.StepMessages:
			b.fail(path+".agent", "only a messages step can be a sub-agent's")
		case rs.Agent != "" && len(rs.Needs) > 0:
			b.fail(path+".needs", "a sub-agent's step has no needs")
		}
		st.Agent = rs.Agent
		out = append(out, st)
	}
	return out
}

// needs builds a step's needs: a fact, the narration key of the frame
// that shows the recovery, and the calls the agent makes without it.
func (b *builder) needs(path string, raw []lessonfile.Need, facts []sim.Fact, seen map[string]bool) []sim.Need {
	var out []sim.Need
	for i, rn := range raw {
		p := fmt.Sprintf("%s.needs[%d]", path, i)
		b.checkFact(p+".fact", rn.Fact, facts)
		switch {
		case !lessonID.MatchString(rn.Step) || seen[rn.Step]:
			b.fail(p+".step", "must be an id matching %s that no step or other need uses, got %q", lessonID, rn.Step)
		case sim.Reserved(rn.Step):
			b.fail(p+".step", "%q is a narration key of the harness; choose another id", rn.Step)
		case len(rn.Messages) == 0 || rn.Messages[0].Role != string(sim.RoleAssistant):
			b.fail(p+".messages", "must start with the assistant's message (the model call that makes the recovery)")
		}
		seen[rn.Step] = true
		out = append(out, sim.Need{Fact: rn.Fact, Step: rn.Step, Recover: b.messages(p+".messages", rn.Messages, facts)})
	}
	return out
}

func (b *builder) stepBody(path string, rs lessonfile.Step, st *sim.Step, facts []sim.Fact) {
	switch st.Type {
	case sim.StepRemember:
		if rs.Line == "" {
			b.fail(path+".line", "is required for a remember step")
		}
		if rs.Tokens < 0 || (!b.counted && rs.Tokens == 0) {
			b.fail(path+".tokens", "must be the positive size the line adds to the injected copy")
		}
	case sim.StepCompact:
		if rs.Card == "" {
			b.fail(path+".card", "is required: the card of the summary the recorded session compacted to")
		}
	case sim.StepMessages:
		st.Messages = b.messages(path+".messages", rs.Messages, facts)
	case sim.StepBranch:
		br := rs.Branch
		if br == nil {
			b.fail(path+".branch", "is required")
			return
		}
		b.checkFact(path+".branch.fact", br.Fact, facts)
		st.Branch = &sim.Branch{Fact: br.Fact,
			Found:   b.branchSide(path+".branch.found", br.Found, facts),
			Missing: b.branchSide(path+".branch.missing", br.Missing, facts)}
	}
}

func (b *builder) branchSide(path string, raw []lessonfile.Message, facts []sim.Fact) []sim.Message {
	if len(raw) == 0 || raw[0].Role != string(sim.RoleAssistant) {
		b.fail(path, "must start with an assistant message (the model call the lookup happens in)")
	}
	return b.messages(path, raw, facts)
}

// messages builds a step's messages: plain messages and calls (a call
// makes two messages). A tool result must follow its call.
func (b *builder) messages(path string, raw []lessonfile.Message, facts []sim.Fact) []sim.Message {
	var out []sim.Message
	for j, rm := range raw {
		p := fmt.Sprintf("%s[%d]", path, j)
		if rm.Call != nil {
			if rm.ID != "" || rm.Role != "" || rm.Kind != "" || rm.Content != "" || rm.Tokens != 0 || rm.Answer != nil || rm.Label != nil {
				b.fail(p, "a call item holds only call:")
			}
			out = append(out, b.call(p+".call", rm.Call)...)
			continue
		}
		m := b.message(p, rm, facts)
		if n := len(out); m.Kind == sim.KindToolResult {
			if n == 0 || out[n-1].Kind != sim.KindToolCall {
				b.fail(p+".kind", "a tool_result must directly follow its tool_call")
			} else {
				m.ToolUseID = out[n-1].ToolUseID
				m.Tool = out[n-1].Tool
			}
		}
		out = append(out, m)
	}
	answered := false // an assistant message came before in the step
	for j, m := range out {
		if m.Kind == sim.KindToolCall && (j+1 >= len(out) || out[j+1].Kind != sim.KindToolResult) {
			b.fail(b.paths[m.ID], "a tool_call must be followed by its tool_result in the same step")
		}
		if m.Continues && (m.Role != sim.RoleAssistant || !answered) {
			b.fail(b.paths[m.ID]+".continues", "continues an earlier assistant message of the same step; this one has none before it")
		}
		answered = answered || m.Role == sim.RoleAssistant
	}
	return out
}

var roles = []sim.Role{sim.RoleUser, sim.RoleAssistant, sim.RoleTool}
var kinds = []sim.Kind{sim.KindText, sim.KindToolCall, sim.KindToolResult}

func (b *builder) message(path string, rm lessonfile.Message, facts []sim.Fact) sim.Message {
	m := sim.Message{ID: rm.ID, Role: sim.Role(rm.Role), Kind: sim.Kind(rm.Kind), Label: rm.Label, Tokens: rm.Tokens,
		Content: rm.Content, Origin: b.originOf(path+".origin", rm.Origin), Usage: usageOf(rm.Usage), Continues: rm.Continues,
		Chars: rm.Chars, Tool: rm.Tool}
	if rm.Tool != "" && sim.Kind(rm.Kind) != sim.KindToolCall {
		b.fail(path+".tool", "names the tool of a tool_call (its result has it too)")
	}
	switch {
	case rm.Chars != 0 && (b.counted || sim.Kind(rm.Kind) != sim.KindToolResult):
		b.fail(path+".chars", "is for a tool result of a trace-sized lesson whose content is an excerpt: the characters of the whole text")
	case rm.Chars < 0 || (rm.Chars > 0 && rm.Chars < runes(rm.Content)):
		b.fail(path+".chars", "must be at least the characters of the excerpt shown (%d), got %d", runes(rm.Content), rm.Chars)
	}
	b.size(path, rm.Tokens)
	b.checkID(path+".id", rm.ID)
	b.paths[rm.ID] = path
	if !slices.Contains(roles, m.Role) {
		b.fail(path+".role", "must be user, assistant or tool, got %q", rm.Role)
	}
	if m.Kind == "" {
		m.Kind = sim.KindText
	}
	switch {
	case !slices.Contains(kinds, m.Kind):
		b.fail(path+".kind", "must be text, tool_call or tool_result, got %q", rm.Kind)
	case m.Kind == sim.KindToolCall && m.Role != sim.RoleAssistant:
		b.fail(path+".role", "a tool_call is the assistant's")
	case m.Kind == sim.KindToolResult && m.Role != sim.RoleTool:
		b.fail(path+".role", "a tool_result has role tool")
	case m.Role == sim.RoleTool && m.Kind != sim.KindToolResult:
		b.fail(path+".kind", "a tool message is a tool_result")
	}
	if m.Kind == sim.KindToolCall {
		m.ToolUseID = rm.ID
	}
	if m.Kind == sim.KindToolResult {
		b.markResult(rm.ID)
	}
	if rm.Answer != nil {
		m.Answer = &sim.Answer{Fact: rm.Answer.Fact, Found: rm.Answer.Found, Missing: rm.Answer.Missing}
		if m.Role != sim.RoleAssistant {
			b.fail(path+".answer", "only an assistant message can answer (its text comes from a model call)")
		}
		b.checkFact(path+".answer.fact", m.Answer.Fact, facts)
		if m.Answer.Found == "" || m.Answer.Missing == "" {
			b.fail(path+".answer", "needs both found and missing texts")
		}
	} else if rm.Content == "" {
		b.fail(path+".content", "is required")
	}
	return m
}

// markResult notes a tool result's id (a compression card covers one).
func (b *builder) markResult(id string) {
	if b.results == nil {
		b.results = map[string]bool{}
	}
	b.results[id] = true
}

func (b *builder) checkID(path, id string) {
	if !lessonID.MatchString(id) {
		b.fail(path, "must match %s, got %q", lessonID, id)
		return
	}
	if prev, ok := b.ids[id]; ok {
		b.fail(path, "%q is already used at %s", id, prev)
		return
	}
	b.ids[id] = path
}

func (b *builder) checkFact(path, id string, facts []sim.Fact) {
	for _, f := range facts {
		if f.ID == id {
			return
		}
	}
	b.fail(path, "names unknown fact %q", id)
}

// call builds a tool call and its result.
func (b *builder) call(p string, rc *lessonfile.Call) []sim.Message {
	if !b.counted {
		b.fail(p, "calls are for lessons that count their tokens (sizes: counted); give the call and its result as two messages with tokens")
		return nil
	}
	switch {
	case rc.Tool == "":
		b.fail(p+".tool", "is required")
	case !ValidCallID(rc.ID):
		b.fail(p+".id", "must be a tool_use id matching %s (%s… is kept for re-reads), got %q", toolUseID, sim.RereadIDPrefix, rc.ID)
	}
	b.markResult("result-" + rc.ID)
	call := sim.Message{ID: "call-" + rc.ID, Role: sim.RoleAssistant, Kind: sim.KindToolCall, Tool: rc.Tool, ToolUseID: rc.ID,
		Origin: b.origin, Usage: usageOf(rc.Usage), Continues: rc.Continues}
	res := sim.Message{ID: "result-" + rc.ID, Role: sim.RoleTool, Kind: sim.KindToolResult, Tool: rc.Tool, ToolUseID: rc.ID,
		Summary: rc.Summary, Origin: b.origin}
	for _, id := range []string{call.ID, res.ID} {
		if prev, ok := b.ids[id]; ok {
			b.fail(p+".id", "%q is already used at %s", rc.ID, prev)
		}
		b.ids[id] = p + ".id"
		b.paths[id] = p
	}
	modes := 0
	for _, set := range []bool{!rc.Result.IsZero(), rc.Read != "", rc.Write != "", rc.Edit != nil} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		b.fail(p, "needs exactly one of result, read, write and edit")
		return nil
	}
	var args [][2]any
	switch {
	case rc.Read != "":
		res.Op = &sim.FileOp{Op: sim.OpRead, Path: rc.Read}
		args = [][2]any{{pathArg, rc.Read}}
		b.reads = append(b.reads, rc.Tool)
	case rc.Write != "":
		res.Op = &sim.FileOp{Op: sim.OpWrite, Path: rc.Write}
		args = [][2]any{{pathArg, rc.Write}, {"content", b.writeText(p+".write", rc.Write)}}
	case rc.Edit != nil:
		res.Op = &sim.FileOp{Op: sim.OpEdit, Path: rc.Edit.Path, Old: rc.Edit.Old, New: rc.Edit.New}
		args = [][2]any{{pathArg, rc.Edit.Path}, {"old_string", rc.Edit.Old}, {"new_string", rc.Edit.New}}
	default:
		args = b.argsOf(p+".args", &rc.Args)
		res.Content, res.Origin = b.result(p+".result", &rc.Result)
	}
	raw := ""
	if rc.ArgsJSON != "" {
		raw, args = b.argsJSON(p+".args_json", rc.ArgsJSON, rc.Args.Kind != 0)
	}
	if res.Op != nil {
		if rc.Args.Kind != 0 {
			b.fail(p+".args", "is derived for read, write and edit calls; remove it")
		}
		call.Op = res.Op
		b.ops = append(b.ops, res.Op)
		b.opPaths = append(b.opPaths, p)
	}
	call.Args = sim.JSONArgs(args)
	if raw != "" {
		call.Args = raw
	}
	call.Content = fmt.Sprintf("%s(%s)", rc.Tool, call.Args)
	call.Label = rc.Label
	if call.Label == nil {
		call.Label = sim.Text{Languages[0]: labelOf(rc.Tool, args)}
	}
	res.Label = call.Label
	return []sim.Message{call, res}
}

// writeText is the text a write call creates: the workspace file's.
func (b *builder) writeText(p, path string) string {
	b.writes = append(b.writes, path)
	for _, f := range b.workspace {
		if f.Path == path {
			return f.Text
		}
	}
	b.fail(p, "names %q, which is not among the workspace's files", path)
	return ""
}

// argsJSON reads a call's arguments given as a JSON object: the compact
// text, and its top-level strings (to name the call).
func (b *builder) argsJSON(p, text string, both bool) (string, [][2]any) {
	if both {
		b.fail(p, "give args or args_json, not both")
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		b.fail(p, "must be a JSON object: %v", err)
		return "", nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(text)); err != nil {
		b.fail(p, "must be a JSON object: %v", err)
	}
	var args [][2]any
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if v, ok := m[k].(string); ok {
			args = append(args, [2]any{k, v})
		}
	}
	return buf.String(), args
}

// argsOf reads a call's arguments: a mapping of scalars, kept in order.
func (b *builder) argsOf(p string, n *yaml.Node) [][2]any {
	var args [][2]any
	if n.Kind == 0 {
		return args
	}
	if n.Kind != yaml.MappingNode {
		b.fail(p, "must be a mapping of argument names to values")
		return args
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			b.fail(p+"."+k, "must be a string, number or boolean")
			continue
		}
		switch v.Tag {
		case "!!int":
			num, err := strconv.Atoi(v.Value)
			if err != nil {
				b.fail(p+"."+k, "is not an integer a tool accepts: %v", err)
			}
			args = append(args, [2]any{k, num})
		case "!!bool":
			args = append(args, [2]any{k, v.Value == "true"})
		case "!!str":
			args = append(args, [2]any{k, v.Value})
		default:
			b.fail(p+"."+k, "must be a string, an integer or a boolean, got %s", v.Tag)
		}
	}
	return args
}

// result reads a written-out or generated result text.
func (b *builder) result(p string, n *yaml.Node) (string, string) {
	if n.Kind == yaml.ScalarNode {
		if n.Value == "" {
			b.fail(p, "must not be empty")
		}
		return n.Value, b.origin
	}
	if n.Kind != yaml.MappingNode {
		b.fail(p, "must be a text or a mapping with text, or file (and gen, chars)")
		return "", ""
	}
	var r lessonfile.Result
	if err := b.f.DecodeNode(p, n, &r); err != nil {
		b.failWith(err)
		return "", ""
	}
	text, file, gen := r.Text, r.File, r.Gen != nil // gen: tools/gentrace's input
	switch {
	case (text == "") == (file == ""):
		b.fail(p, "needs exactly one of text and file")
		return "", ""
	case text != "" && gen:
		b.fail(p+".gen", "is for generated results (file)")
	case r.Chars <= 0 && hasKey(n, "chars"):
		b.fail(p+".chars", "must be a positive integer, got %d", r.Chars)
	}
	origin := b.origin
	if file != "" {
		data, err := b.files.read(file)
		if err != nil {
			b.fail(p+".file", "cannot read %s: %v (run `go run ./tools/gentrace` to generate it)", file, err)
			return "", ""
		}
		text = string(data)
		if gen {
			origin = sim.OriginGenerated
		}
	}
	if r.Chars > 0 && runes(text) != r.Chars {
		b.fail(p+".chars", "says %d characters; the text has %d", r.Chars, runes(text))
	}
	return text, origin
}

// hasKey reports whether mapping n has key.
func hasKey(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return true
		}
	}
	return false
}

func runes(s string) int { return len([]rune(s)) }

// labelOf names a call by its tool and main argument.
func labelOf(tool string, args [][2]any) string {
	for _, k := range []string{"path", "command", "pattern", "url", "element", "topic", "company", "query"} {
		for _, kv := range args {
			if v, ok := kv[1].(string); ok && kv[0] == k && v != "" {
				if r := []rune(v); len(r) > 56 {
					v = string(r[:55]) + "…"
				}
				return tool + " " + v
			}
		}
	}
	return tool
}
