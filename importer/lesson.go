package importer

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
	"ctxsim/textcut"
	"ctxsim/transcript"
)

// noResult stands in for the result of a call the session never got back
// (an interrupted tool): the harness needs a result after every call.
const noResult = "(no result recorded: the session has no tool result for this call)"

// trace is what the importer makes of a session's messages: the trace
// steps, the blocks each step adds (for narration), and the recorded
// compactions' cards.
type trace struct {
	steps   []lessonfile.Step
	kinds   map[string]stepKind // what each messages step is, for its narration
	cards   []lessonfile.Card
	calls   int
	clipped int // texts cut to the size of a message (clip)
}

// clip cuts a text longer than an imported session's message may be
// (scenarios.Recorded().MessageBytes), on a UTF-8 boundary, and says so in
// the text; the trace counts it.
func (t *trace) clip(s string) string {
	limit := scenarios.Recorded().MessageBytes
	if len(s) <= limit {
		return s
	}
	t.clipped++
	note := fmt.Sprintf("\n[… %d bytes cut by ctxsim import: a message of an imported session may have at most %d]", len(s), limit)
	return textcut.Prefix(s, limit-len(note)) + note
}

// stepKind is what a messages step of an imported trace holds.
type stepKind struct {
	carried   string     // a recorded summary the file starts from
	user      string     // a user message's block id
	responses []response // the model's responses, in order
}

// response is one model response: its text block and its tool calls.
type response struct {
	Text  string   // the assistant text block id ("" when it only calls tools)
	Calls []string // tool call ids
}

// maxSteps is, by default, about the most steps an imported trace has: a longer
// session's responses are grouped several to a step (a step never spans a
// user message or a compaction), so that a student can step through it
// and every replay stays small.
const maxSteps = 300

// buildTrace turns s's messages into trace steps. A user message starts a
// step; a model response (its text, then each tool call with its result
// as one call item) joins the step, up to the group size; a compaction
// marks a compact step. It also works out, in the recorded replay, which
// blocks each compaction replaced: everything in the window since the
// previous one.
func buildTrace(s *transcript.Session, steps int, w *words) (*trace, error) {
	b := &traceBuilder{t: &trace{kinds: map[string]stepKind{}}, results: resultsOf(s.Messages), ids: newIDs(),
		group: groupSize(s.Messages, cmp.Or(steps, maxSteps)), size: &size{file: s.File, lim: scenarios.Recorded()}}
	compaction := 0
	for i := 0; i <= len(s.Messages); i++ {
		for compaction < len(s.Compactions) && s.Compactions[compaction].Before == i {
			compaction++
			b.compact(compaction, s.Compactions[compaction-1], w)
		}
		if b.size.err != nil {
			return nil, b.size.err
		}
		if i == len(s.Messages) {
			break
		}
		switch m := s.Messages[i]; m.Role {
		case transcript.User:
			if strings.TrimSpace(m.Text) != "" {
				b.user(i, m)
			}
		case transcript.Assistant:
			b.response(i, m)
		}
		// Tool results travel with their calls.
	}
	b.flush()
	if b.size.err != nil {
		return nil, b.size.err
	}
	if len(b.t.steps) == 0 {
		return nil, fmt.Errorf("%s: the session holds no user or assistant message", s.File)
	}
	return b.t, nil
}

// groupSize is how many model responses share a step: one, or as many as
// keep the trace near maxSteps.
func groupSize(msgs []transcript.Message, maxSteps int) int {
	n := 0
	for _, m := range msgs {
		if m.Role == transcript.Assistant {
			n++
		}
	}
	return max(1, (n+maxSteps-1)/maxSteps)
}

// traceBuilder accumulates the step being built.
type traceBuilder struct {
	t       *trace
	results map[string]string
	ids     *idSet
	group   int
	n       int      // steps numbered so far
	window  []string // blocks in the window in the recorded replay
	cur     *lessonfile.Step
	kind    stepKind
	size    *size
}

// size counts the lesson the trace makes against the limits of an imported
// session, as the loader will: its messages (a tool call and its result
// are two) and their texts. Past one, the import stops at the session's
// line that went past it, before the lesson is written, loaded or
// replayed.
type size struct {
	file string
	lim  scenarios.Limits
	msgs int
	text int
	err  error // the first limit passed
}

// add counts msgs messages holding text bytes, from line of the session.
func (z *size) add(line, msgs, text int) {
	if z.err != nil {
		return
	}
	z.msgs += msgs
	z.text += text
	what := ""
	switch {
	case z.msgs > z.lim.Messages:
		what = fmt.Sprintf("more than %d messages as a lesson counts them (a text, a tool call and its result each count one)", z.lim.Messages)
	case z.text > z.lim.TextBytes:
		what = fmt.Sprintf("more than %d MiB of text", z.lim.TextBytes>>20)
	default:
		return
	}
	z.err = &transcript.Error{File: z.file, Line: line, Err: transcript.ErrTooLarge,
		Msg: "the session holds " + what + ", the most " + z.lim.Tier + " may hold; it was refused here, before the lesson was made"}
}

func (b *traceBuilder) flush() {
	if b.cur == nil {
		return
	}
	b.n++
	b.cur.Step = fmt.Sprintf("s%d", b.n)
	for _, m := range b.cur.Messages {
		if m.Call != nil {
			b.window = append(b.window, "call-"+m.Call.ID, "result-"+m.Call.ID)
		} else {
			b.window = append(b.window, m.ID)
		}
	}
	b.t.kinds[b.cur.Step] = b.kind
	b.t.steps = append(b.t.steps, *b.cur)
	b.cur, b.kind = nil, stepKind{}
}

func (b *traceBuilder) open() {
	if b.cur == nil {
		b.cur = &lessonfile.Step{}
	}
}

// compact marks a recorded compaction. At the start of the file (a session
// continued from an earlier one) the summary is the first message instead.
func (b *traceBuilder) compact(k int, c transcript.Compaction, w *words) {
	b.flush()
	id := fmt.Sprintf("c%d", k)
	switch {
	case len(b.window) > 0:
		prov := w.compaction(c)
		b.size.add(c.Line, 0, len(c.Summary))
		b.t.cards = append(b.t.cards, lessonfile.Card{ID: id, Covers: b.window,
			Versions: []lessonfile.Version{{Content: c.Summary, Provenance: prov, Recorded: true}}})
		b.t.steps = append(b.t.steps, lessonfile.Step{Step: fmt.Sprintf("compact-%d", k), Type: string(sim.StepCompact), Card: id})
		b.window = []string{id}
	case strings.TrimSpace(c.Summary) != "":
		b.open()
		b.size.add(c.Line, 1, len(c.Summary))
		b.cur.Messages = append(b.cur.Messages, lessonfile.Message{ID: id, Role: string(sim.RoleUser), Label: w.text("carried", nil), Content: c.Summary})
		b.kind.carried = id
		b.flush()
	}
}

func (b *traceBuilder) user(i int, m transcript.Message) {
	b.flush()
	b.open()
	b.kind.user = fmt.Sprintf("u%d", i+1)
	text := b.t.clip(m.Text)
	b.size.add(m.Line, 1, len(text))
	b.cur.Messages = append(b.cur.Messages, lessonfile.Message{ID: b.kind.user, Role: string(sim.RoleUser), Label: labelOf(m.Text), Content: text})
	if b.group == 1 {
		b.flush()
	}
}

// response adds one model response: its text (if any) and its calls, each
// with its result; the first block carries the response's usage, the rest
// continue its model call.
func (b *traceBuilder) response(i int, m transcript.Message) {
	if b.cur != nil && len(b.kind.responses) >= b.group {
		b.flush()
	}
	b.open()
	var r response
	u := usageOf(m.Usage)
	first := true
	if strings.TrimSpace(m.Text) != "" || len(m.Calls) == 0 {
		r.Text = fmt.Sprintf("a%d", i+1)
		text := m.Text
		if strings.TrimSpace(text) == "" {
			text = "(no text)"
		}
		content := b.t.clip(text)
		b.size.add(m.Line, 1, len(content))
		b.cur.Messages = append(b.cur.Messages, lessonfile.Message{ID: r.Text, Role: string(sim.RoleAssistant), Label: labelOf(text), Content: content, Usage: u})
		u, first = nil, false
	}
	for _, c := range m.Calls {
		id := b.ids.call(c.ID)
		res, ok := b.results[c.ID]
		if !ok {
			res = noResult
		}
		args := c.Args
		if strings.TrimSpace(args) == "" {
			args = "{}"
		}
		result := b.t.clip(nonEmpty(res))
		b.size.add(m.Line, 2, len(c.Name)+len(args)+len(result))
		b.cur.Messages = append(b.cur.Messages, lessonfile.Message{Call: &lessonfile.Call{ID: id, Tool: c.Name, ArgsJSON: args,
			Result: lessonfile.TextResult(result), Usage: u, Continues: !first}})
		u, first = nil, false
		r.Calls = append(r.Calls, id)
		b.t.calls++
	}
	b.kind.responses = append(b.kind.responses, r)
}

// resultsOf maps call ids to the text of their results.
func resultsOf(msgs []transcript.Message) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if m.Role == transcript.Tool {
			text := m.Text
			if m.IsError {
				text = "[error] " + text
			}
			out[m.CallID] = text
		}
	}
	return out
}

func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty result)"
	}
	return s
}

func usageOf(u *transcript.Usage) *lessonfile.Usage {
	if u == nil {
		return nil
	}
	return &lessonfile.Usage{Input: u.Input, CacheRead: u.CacheRead, CacheCreation: u.CacheCreation, Output: u.Output}
}

// labelOf names a message by its first line, cut to a label's length.
func labelOf(text string) sim.Text {
	line := strings.TrimSpace(text)
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = strings.TrimSpace(line[:i])
	}
	if utf8.RuneCountInString(line) > 60 {
		r := []rune(line)
		line = strings.TrimSpace(string(r[:59])) + "…"
	}
	if line == "" {
		line = "…"
	}
	return sim.Text{scenarios.Languages[0]: line}
}

// ids gives tool calls ids the loader accepts, unique within the lesson.
type idSet struct{ seen map[string]bool }

func newIDs() *idSet { return &idSet{seen: map[string]bool{}} }

func (s *idSet) call(id string) string {
	if !scenarios.ValidCallID(id) || s.seen[id] {
		id = fmt.Sprintf("tool_%d", len(s.seen)+1)
	}
	s.seen[id] = true
	return id
}

// lessonID derives a lesson id from a file name: lower case, runs of
// other characters as one dash, at most 64 characters.
func lessonID(file string) string {
	name := strings.ToLower(strings.TrimSuffix(file, fileExt(file)))
	var b strings.Builder
	dash := false
	for _, r := range name {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	id := strings.Trim(b.String(), "-")
	if len(id) > 56 {
		id = strings.Trim(id[:56], "-")
	}
	if id == "" {
		id = "session"
	}
	return "session-" + id
}

func fileExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 {
		return name[i:]
	}
	return ""
}
