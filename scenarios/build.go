package scenarios

import (
	"fmt"
	"regexp"
	"slices"

	"ctxsim/sim"
)

var lessonID = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// builder validates raw lesson data and builds a *sim.Lesson, stopping at
// the first problem with its file, line and field.
type builder struct {
	f   *yamlFile
	ids map[string]string // block id -> field path where it was declared
	err *Error
}

func (b *builder) fail(path, format string, args ...any) {
	if b.err == nil {
		b.err = b.f.errorAt(path, fmt.Sprintf(format, args...))
	}
}

func buildLesson(f *yamlFile, raw *rawLesson) (*sim.Lesson, error) {
	b := &builder{f: f, ids: map[string]string{"system": "system"}}
	engine := raw.Engine
	if engine == "" {
		engine = sim.EngineContext
	}
	l := &sim.Lesson{
		ID: raw.ID, Engine: engine, Order: raw.Order, Title: raw.Title, Source: raw.Source,
		Window: raw.Window, ThresholdPercent: raw.ThresholdPercent,
		TailMessages: raw.TailMessages, Thresholds: raw.Thresholds,
	}
	b.header(raw, l)
	switch l.Engine {
	case sim.EngineStatus:
		l.Status = b.status(raw.Status)
	case sim.EngineTiered:
		l.Tiered = b.tiered(raw.Tiered)
	default:
		b.context(raw, l)
	}
	if b.err != nil {
		return nil, b.err
	}
	return l, nil
}

// context validates the context engine's part of a lesson.
func (b *builder) context(raw *rawLesson, l *sim.Lesson) {
	switch {
	case raw.ThresholdPercent < 1 || raw.ThresholdPercent > 100:
		b.fail("threshold_percent", "must be an integer from 1 to 100, got %d", raw.ThresholdPercent)
	case raw.TailMessages < 0:
		b.fail("tail_messages", "must not be negative")
	}
	l.Facts = b.facts(raw.Facts)
	l.System = b.message("system", raw.System, sim.RoleSystem)
	l.System.ID = "system"
	l.Memory = sim.MemorySeed{Path: raw.Memory.Path, Lines: raw.Memory.Lines, Tokens: raw.Memory.Tokens}
	if raw.Memory.Path == "" {
		b.fail("memory.path", "is required (e.g. MEMORY.md)")
	}
	if raw.Memory.Tokens < 0 {
		b.fail("memory.tokens", "must not be negative")
	}
	l.Trace = b.trace(raw.Trace, l.Facts)
}

func (b *builder) header(raw *rawLesson, l *sim.Lesson) {
	switch {
	case !lessonID.MatchString(raw.ID):
		b.fail("id", "must match %s, got %q", lessonID, raw.ID)
	case raw.Title["en"] == "" || raw.Title["ja"] == "":
		b.fail("title", "needs both en and ja")
	case raw.Window <= 0:
		b.fail("window", "must be a positive number of tokens")
	}
	if _, ok := sim.EngineParams[l.Engine]; !ok {
		b.fail("engine", "must be one of context, status, tiered; got %q", raw.Engine)
	}
	for i, t := range raw.Thresholds {
		if t < 1 || t > 100 {
			b.fail(fmt.Sprintf("thresholds[%d]", i), "must be an integer from 1 to 100, got %d", t)
		}
	}
	if len(l.Thresholds) == 0 && raw.ThresholdPercent > 0 {
		l.Thresholds = []int{raw.ThresholdPercent}
	}
}

func (b *builder) facts(raw []rawFact) []sim.Fact {
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
		}
		out = append(out, sim.Fact{ID: rf.ID, Pattern: re, Label: rf.Label})
	}
	return out
}

var roles = []sim.Role{sim.RoleSystem, sim.RoleUser, sim.RoleAssistant, sim.RoleTool}
var kinds = []sim.Kind{sim.KindText, sim.KindToolCall, sim.KindToolResult}

func (b *builder) message(path string, rm rawMessage, role sim.Role) sim.Message {
	m := sim.Message{ID: rm.ID, Role: sim.Role(rm.Role), Kind: sim.Kind(rm.Kind), Label: rm.Label, Tokens: rm.Tokens, Content: rm.Content}
	if role != "" {
		m.Role, m.Kind = role, sim.KindPrompt
	}
	if rm.Tokens <= 0 {
		b.fail(path+".tokens", "must be a positive number of tokens, got %d", rm.Tokens)
	}
	if role == "" {
		b.checkID(path, rm.ID)
		if !slices.Contains(roles, m.Role) || m.Role == sim.RoleSystem {
			b.fail(path+".role", "must be user, assistant or tool, got %q", rm.Role)
		}
		if m.Kind == "" {
			m.Kind = sim.KindText
		}
		if !slices.Contains(kinds, m.Kind) {
			b.fail(path+".kind", "must be text, tool_call or tool_result, got %q", rm.Kind)
		}
	}
	if rm.Answer != nil {
		m.Answer = &sim.Answer{Fact: rm.Answer.Fact, Found: rm.Answer.Found, Missing: rm.Answer.Missing}
		if m.Role != sim.RoleAssistant {
			b.fail(path+".answer", "only an assistant message can answer (its text comes from a model call)")
		}
	} else if rm.Content == "" {
		b.fail(path+".content", "is required")
	}
	return m
}

func (b *builder) checkID(path, id string) {
	if !lessonID.MatchString(id) {
		b.fail(path+".id", "must match %s, got %q", lessonID, id)
		return
	}
	if prev, ok := b.ids[id]; ok {
		b.fail(path+".id", "%q is already used at %s", id, prev)
		return
	}
	b.ids[id] = path
}

var stepTypes = []sim.StepType{sim.StepSessionStart, sim.StepSessionEnd, sim.StepRemember, sim.StepMessages, sim.StepBranch}

func (b *builder) trace(raw []rawStep, facts []sim.Fact) []sim.Step {
	if len(raw) == 0 {
		b.fail("trace", "needs at least one step")
	}
	steps := map[string]bool{}
	var out []sim.Step
	for i, rs := range raw {
		path := fmt.Sprintf("trace[%d]", i)
		st := sim.Step{ID: rs.Step, Type: sim.StepType(rs.Type), Line: rs.Line, Tokens: rs.Tokens}
		if st.Type == "" {
			st.Type = sim.StepMessages
			if rs.Branch != nil {
				st.Type = sim.StepBranch
			}
		}
		if !lessonID.MatchString(rs.Step) || steps[rs.Step] {
			b.fail(path+".step", "must be a unique id matching %s, got %q", lessonID, rs.Step)
		}
		steps[rs.Step] = true
		if !slices.Contains(stepTypes, st.Type) {
			b.fail(path+".type", "must be one of %v, got %q", stepTypes, rs.Type)
		}
		if i == 0 && st.Type != sim.StepSessionStart {
			b.fail(path+".type", "the first step must be session_start")
		}
		b.stepBody(path, rs, &st, facts)
		out = append(out, st)
	}
	return out
}

func (b *builder) stepBody(path string, rs rawStep, st *sim.Step, facts []sim.Fact) {
	switch st.Type {
	case sim.StepRemember:
		if rs.Line == "" {
			b.fail(path+".line", "is required for a remember step")
		}
		if rs.Tokens <= 0 {
			b.fail(path+".tokens", "must be the positive size the line adds to the injected copy")
		}
	case sim.StepMessages:
		if len(rs.Messages) == 0 {
			b.fail(path+".messages", "needs at least one message")
		}
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

func (b *builder) branchSide(path string, raw []rawMessage, facts []sim.Fact) []sim.Message {
	if len(raw) == 0 || raw[0].Role != string(sim.RoleAssistant) {
		b.fail(path, "must start with an assistant message (the model call the lookup happens in)")
	}
	return b.messages(path, raw, facts)
}

func (b *builder) messages(path string, raw []rawMessage, facts []sim.Fact) []sim.Message {
	var out []sim.Message
	for j, rm := range raw {
		p := fmt.Sprintf("%s[%d]", path, j)
		m := b.message(p, rm, "")
		if m.Answer != nil {
			b.checkFact(p+".answer.fact", m.Answer.Fact, facts)
			if m.Answer.Found == "" || m.Answer.Missing == "" {
				b.fail(p+".answer", "needs both found and missing texts")
			}
		}
		out = append(out, m)
	}
	return out
}

func (b *builder) checkFact(path, id string, facts []sim.Fact) {
	for _, f := range facts {
		if f.ID == id {
			return
		}
	}
	b.fail(path, "names unknown fact %q", id)
}

// cards validates summary cards against the block ids of the trace.
func buildCards(f *yamlFile, raw *rawSummaries, ids map[string]string) ([]sim.Card, error) {
	b := &builder{f: f, ids: ids}
	var out []sim.Card
	cardIDs := map[string]bool{}
	for i, rc := range raw.Cards {
		path := fmt.Sprintf("cards[%d]", i)
		if !lessonID.MatchString(rc.ID) || cardIDs[rc.ID] || ids[rc.ID] != "" {
			b.fail(path+".id", "must be a unique id matching %s, got %q", lessonID, rc.ID)
		}
		if len(rc.Covers) == 0 {
			b.fail(path+".covers", "must list the ids of the blocks the summary replaces")
		}
		for j, id := range rc.Covers {
			if ids[id] == "" && !cardIDs[id] {
				b.fail(fmt.Sprintf("%s.covers[%d]", path, j), "names unknown block %q (a message id or an earlier card id)", id)
			}
		}
		cardIDs[rc.ID] = true
		if rc.Tokens <= 0 {
			b.fail(path+".tokens", "must be a positive number of tokens, got %d", rc.Tokens)
		}
		if len(rc.Recordings) != sim.Recordings {
			b.fail(path+".recordings", "must hold exactly %d recordings, got %d", sim.Recordings, len(rc.Recordings))
		}
		card := sim.Card{ID: rc.ID, Covers: rc.Covers, Tokens: rc.Tokens}
		for j, rr := range rc.Recordings {
			if rr.Content == "" {
				b.fail(fmt.Sprintf("%s.recordings[%d].content", path, j), "is required")
			}
			if len(rr.Provenance) == 0 && len(raw.Provenance) == 0 {
				b.fail(fmt.Sprintf("%s.recordings[%d].provenance", path, j), "is required (or a file-level provenance): say who wrote or recorded it, and when")
			}
			card.Recordings = append(card.Recordings, sim.Recording{Content: rr.Content, Provenance: rr.Provenance})
		}
		out = append(out, card)
	}
	if b.err != nil {
		return nil, b.err
	}
	return out, nil
}
