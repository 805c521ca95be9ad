package importer

import (
	"cmp"
	"fmt"
	"strings"
	"unicode/utf8"

	"ctxsim/authoring/transcript"
	"ctxsim/internal/textcut"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// noResult stands in for the result of a call the session never got back
// (an interrupted tool): the harness needs a result after every call.
const noResult = "(no result recorded: the session has no tool result for this call)"

// trace is what the importer makes of a session's messages: the trace
// steps, what each step's frame shows (for narration), and the recorded
// compactions' cards.
type trace struct {
	steps   []lessonfile.Step
	callIDs map[string]string   // the session's call ids → the lesson's
	kinds   map[string]stepKind // what each messages step's frame shows, for its narration
	cards   []lessonfile.Card
	calls   int
	clipped int // texts cut to the size of a message (clip)
}

// clip cuts a text longer than an imported session's message may be
// (scenarios.Recorded().MessageBytes), on a UTF-8 boundary, and says so in
// the text; the trace counts it.
func (t *trace) clip(s string) string {
	limit := scenarios.Imported().MessageBytes
	if len(s) <= limit {
		return s
	}
	t.clipped++
	note := fmt.Sprintf("\n[… %d bytes cut by ctxsim import: a message of an imported session may have at most %d]", len(s), limit)
	return textcut.Prefix(s, limit-len(note)) + note
}

// stepKind is what a messages step's frame shows. A step that makes model
// calls is shown as the request of its (last) call: the frame holds what
// entered since the previous step's frame (the previous answers, with
// their tool results, and a summary) and the step's own messages, not the
// answer the call writes, which the next frame shows.
type stepKind struct {
	carried string   // a recorded summary the file starts from
	user    []string // the step's user messages (block ids), in order
	kept    []string // user messages a compaction kept (Codex's replacement history)
	carry   []item   // what entered after the previous frame (the last answer, a summary): in every frame of the step
	earlier []item   // the step's answers before its last model call (a step of several): in its request
	request bool     // the frame is a model call's request
	end     bool     // the frame after the session's last answer
}

// item is a block the narration names: a text, a summary, or a call
// (with its result: Call is the call's id).
type item struct{ ID, Call string }

// maxSteps is, by default, about the most steps an imported trace has: a longer
// session's responses are grouped several to a step (a step never spans a
// user message or a compaction), so that a student can step through it
// and every replay stays small.
const maxSteps = 300

// endStep is the id of the step that shows the session's last answer.
const endStep = "end"

// buildTrace turns s's messages into trace steps. A user message starts
// a step; the model responses after it join the step (its text, then each
// tool call with its result as one call item), up to the group size; a
// compaction marks a compact step. A step that makes model calls is shown
// as the request of its last one; a last step shows the session's last
// answer.
func buildTrace(s *transcript.Session, steps int, w *words) (*trace, error) {
	b := &traceBuilder{t: &trace{kinds: map[string]stepKind{}}, results: resultsOf(s.Messages), ids: newIDs(),
		group: groupSize(s.Messages, cmp.Or(steps, maxSteps)), size: &size{file: s.File, lim: scenarios.Imported()}}
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
				b.user(m.Line, fmt.Sprintf("u%d", i+1), labelOf(m.Text), m.Text, false)
			}
		case transcript.Developer:
			if strings.TrimSpace(m.Text) != "" {
				b.user(m.Line, fmt.Sprintf("d%d", i+1), w.text("developer", label(m.Text)), m.Text, false)
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
	b.t.callIDs = b.ids.given
	if len(b.t.steps) == 0 {
		return nil, fmt.Errorf("%s: the session holds no user or assistant message", s.File)
	}
	if b.t.kinds[b.t.steps[len(b.t.steps)-1].Step].request {
		// The last step is shown as its request: one more frame shows the
		// answer it got.
		b.t.steps = append(b.t.steps, lessonfile.Step{Step: endStep})
		b.t.kinds[endStep] = stepKind{carry: b.carry, end: true}
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
	t         *trace
	results   map[string]string
	ids       *idSet
	group     int
	n         int      // steps numbered so far
	window    []string // blocks in the window in the recorded replay
	cur       *lessonfile.Step
	kind      stepKind
	responses [][]item // the current step's responses: the blocks of each
	carry     []item   // what entered after the last frame: the next frame shows it first
	size      *size
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
	// The frame is the request of the step's last model call: what entered
	// since the previous frame, and the step's responses before the last.
	b.kind.carry = b.carry
	b.carry = nil
	if n := len(b.responses); n > 0 {
		b.kind.request = true
		for _, r := range b.responses[:n-1] {
			b.kind.earlier = append(b.kind.earlier, r...)
		}
		b.carry = b.responses[n-1]
		b.cur.Show = "request"
		if b.group > 1 {
			b.cur.Show = "last-request"
		}
	}
	b.t.kinds[b.cur.Step] = b.kind
	b.t.steps = append(b.t.steps, *b.cur)
	b.cur, b.kind, b.responses = nil, stepKind{}, nil
}

func (b *traceBuilder) open() {
	if b.cur == nil {
		b.cur = &lessonfile.Step{}
	}
}

// compact marks a recorded compaction. At the start of the file (a session
// continued from an earlier one) the summary is the first message instead.
// What the compaction kept (Codex's replacement history) enters after it.
func (b *traceBuilder) compact(k int, c transcript.Compaction, w *words) {
	b.flush()
	id := fmt.Sprintf("c%d", k)
	text, opaque := summaryText(c, w)
	switch {
	case len(b.window) > 0:
		b.size.add(c.Line, 0, len(text))
		b.t.cards = append(b.t.cards, lessonfile.Card{ID: id, Covers: b.window, Opaque: opaque,
			Versions: []lessonfile.Version{{Content: text, Provenance: w.compaction(c), ModelWritten: true}}})
		b.t.steps = append(b.t.steps, lessonfile.Step{Step: fmt.Sprintf("compact-%d", k), Type: string(sim.StepCompact), Card: id})
		b.window = []string{id}
		b.carry = append(b.carry, item{ID: id})
	case !opaque:
		b.open()
		b.size.add(c.Line, 1, len(text))
		b.cur.Messages = append(b.cur.Messages, lessonfile.Message{ID: id, Role: string(sim.RoleUser), Label: w.text("carried", nil), Content: text})
		b.kind.carried = id
		b.flush()
	}
	for i, m := range c.Replacement {
		if strings.TrimSpace(m.Text) != "" {
			b.user(c.Line, fmt.Sprintf("k%d-%d", k, i+1), w.text("kept", label(m.Text)), m.Text, true)
		}
	}
}

// summaryText is a recorded compaction's summary as its card holds it:
// the text, or, when the file does not hold it (Codex encrypts it), a
// note that says so (opaque).
func summaryText(c transcript.Compaction, w *words) (string, bool) {
	switch {
	case c.Encrypted:
		return w.line("summary-encrypted", c.EncryptedBytes), true
	case strings.TrimSpace(c.Summary) == "":
		return w.line("summary-missing", nil), true
	}
	return c.Summary, false
}

// user adds a user message (or one the harness wrote, or one a compaction
// kept): it starts a step, unless the step has no response yet.
func (b *traceBuilder) user(line int, id string, lbl sim.Text, text string, kept bool) {
	if len(b.responses) > 0 {
		b.flush()
	}
	b.open()
	if kept {
		b.kind.kept = append(b.kind.kept, id)
	} else {
		b.kind.user = append(b.kind.user, id)
	}
	content := b.t.clip(text)
	b.size.add(line, 1, len(content))
	b.cur.Messages = append(b.cur.Messages, lessonfile.Message{ID: id, Role: string(sim.RoleUser), Label: lbl, Content: content})
}

// response adds one model response: its text (if any) and its calls, each
// with its result; the first block carries the response's usage, the rest
// continue its model call.
func (b *traceBuilder) response(i int, m transcript.Message) {
	if len(b.responses) >= b.group {
		b.flush()
	}
	b.open()
	var r []item
	u := usageOf(m.Usage)
	first := true
	if strings.TrimSpace(m.Text) != "" || len(m.Calls) == 0 {
		id := fmt.Sprintf("a%d", i+1)
		text := m.Text
		if strings.TrimSpace(text) == "" {
			text = "(no text)"
		}
		content := b.t.clip(text)
		b.size.add(m.Line, 1, len(content))
		b.cur.Messages = append(b.cur.Messages, lessonfile.Message{ID: id, Role: string(sim.RoleAssistant), Label: labelOf(text), Content: content, Usage: u})
		u, first = nil, false
		r = append(r, item{ID: id})
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
		r = append(r, item{ID: "call-" + id, Call: id})
		b.t.calls++
	}
	b.responses = append(b.responses, r)
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
func labelOf(text string) sim.Text { return sim.Text{scenarios.Languages[0]: label(text)} }

// label is a text's first line, cut to a label's length.
func label(text string) string {
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
	return line
}

// ids gives tool calls ids the loader accepts, unique within the lesson.
type idSet struct {
	seen  map[string]bool
	given map[string]string // the session's call id → the lesson's (its first call of that id)
}

func newIDs() *idSet { return &idSet{seen: map[string]bool{}, given: map[string]string{}} }

func (s *idSet) call(id string) string {
	orig := id
	if !scenarios.ValidCallID(id) || s.seen[id] {
		id = fmt.Sprintf("tool_%d", len(s.seen)+1)
	}
	s.seen[id] = true
	if _, ok := s.given[orig]; !ok {
		s.given[orig] = id
	}
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
