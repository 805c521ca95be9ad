package importer

import (
	"cmp"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"ctxsim/scenarios"
	"ctxsim/textcut"
	"ctxsim/transcript"
)

// The files of a lesson directory, as the loader reads them (scenarios'
// schema). Field order is the order written.

type lessonFile struct {
	ID         string            `yaml:"id"`
	Order      int               `yaml:"order"`
	Title      map[string]string `yaml:"title"`
	Source     map[string]string `yaml:"source"`
	Window     int               `yaml:"window"`
	Sizes      string            `yaml:"sizes"`
	Draw       string            `yaml:"draw"`
	Recorded   recording         `yaml:"recorded"`
	Mechanisms mechanisms        `yaml:"mechanisms"`
	System     message           `yaml:"system"`
	Trace      []step            `yaml:"trace"`
}

type recording struct {
	File     string `yaml:"file"`
	Format   string `yaml:"format"`
	Model    string `yaml:"model,omitempty"`
	Started  string `yaml:"started,omitempty"`
	Ended    string `yaml:"ended,omitempty"`
	Imported string `yaml:"imported"`
	Redacted string `yaml:"redacted"`
}

// mechanisms lists the harness of an imported session, in narration
// precedence: compaction, the optional compressor, provider usage, the
// window size.
type mechanisms struct {
	Compaction compaction `yaml:"compaction"`
	Tiered     tiered     `yaml:"tiered"`
	Usage      *struct{}  `yaml:"usage,omitempty"`
	Limit      limit      `yaml:"limit"`
}

type compaction struct {
	Threshold int    `yaml:"threshold"`
	Presets   []int  `yaml:"presets"`
	Tail      int    `yaml:"tail"`
	Cards     string `yaml:"cards,omitempty"`
	Recorded  bool   `yaml:"recorded"`
	Loss      bool   `yaml:"loss"`
}

type tiered struct {
	Pressure          int               `yaml:"pressure"`
	Optional          bool              `yaml:"optional"`
	Rules             tierRules         `yaml:"rules"`
	SummaryProvenance map[string]string `yaml:"summary_provenance"`
}

type tierRules struct {
	KeepRecent         int      `yaml:"keep_recent"`
	Tier1Distance      int      `yaml:"tier1_distance"`
	SemanticMinChars   int      `yaml:"semantic_min_chars"`
	ExcerptChars       int      `yaml:"excerpt_chars"`
	HeadPercent        int      `yaml:"head_percent"`
	MaxSemanticPerPass int      `yaml:"max_semantic_per_pass"`
	ArgsChars          int      `yaml:"args_chars"`
	FloorTools         []string `yaml:"floor_tools"`
	FloorPrefixes      []string `yaml:"floor_prefixes,omitempty"`
}

type limit struct {
	Sizes []int `yaml:"sizes"`
}

type step struct {
	Step     string    `yaml:"step"`
	Type     string    `yaml:"type,omitempty"`
	Card     string    `yaml:"card,omitempty"`
	Messages []message `yaml:"messages,omitempty"`
}

type message struct {
	ID      string            `yaml:"id,omitempty"`
	Role    string            `yaml:"role,omitempty"`
	Label   map[string]string `yaml:"label,omitempty"`
	Content string            `yaml:"content,omitempty"`
	Usage   *usage            `yaml:"usage,omitempty"`
	Call    *call             `yaml:"call,omitempty"`
	Origin  string            `yaml:"origin,omitempty"`
}

type call struct {
	ID       string `yaml:"id"`
	Tool     string `yaml:"tool"`
	ArgsJSON string `yaml:"args_json"`
	Result   string `yaml:"result"`
	Usage    *usage `yaml:"usage,omitempty"`
	// Continues: one model response wrote this call and what came before
	// it in the step.
	Continues bool `yaml:"continues,omitempty"`
}

type usage struct {
	Input         int `yaml:"input"`
	CacheRead     int `yaml:"cache_read"`
	CacheCreation int `yaml:"cache_creation"`
	Output        int `yaml:"output"`
}

type summariesFile struct {
	Cards []card `yaml:"cards"`
}

type card struct {
	ID       string    `yaml:"id"`
	Covers   []string  `yaml:"covers"`
	Versions []version `yaml:"versions"`
}

type version struct {
	Content    string            `yaml:"content"`
	Provenance map[string]string `yaml:"provenance"`
	Recorded   bool              `yaml:"recorded"`
}

// noResult stands in for the result of a call the session never got back
// (an interrupted tool): the harness needs a result after every call.
const noResult = "(no result recorded: the session has no tool result for this call)"

// trace is what the importer makes of a session's messages: the trace
// steps, the blocks each step adds (for narration), and the recorded
// compactions' cards.
type trace struct {
	steps   []step
	kinds   map[string]stepKind // what each messages step is, for its narration
	cards   []card
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
	text  string   // the assistant text block id ("" when it only calls tools)
	calls []string // tool call ids
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
func buildTrace(s *transcript.Session, steps int, prov func(transcript.Compaction) map[string]string) (*trace, error) {
	b := &traceBuilder{t: &trace{kinds: map[string]stepKind{}}, results: resultsOf(s.Messages), ids: newIDs(),
		group: groupSize(s.Messages, cmp.Or(steps, maxSteps))}
	compaction := 0
	for i := 0; i <= len(s.Messages); i++ {
		for compaction < len(s.Compactions) && s.Compactions[compaction].Before == i {
			compaction++
			b.compact(compaction, s.Compactions[compaction-1], prov)
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
	cur     *step
	kind    stepKind
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
		b.cur = &step{}
	}
}

// compact marks a recorded compaction. At the start of the file (a session
// continued from an earlier one) the summary is the first message instead.
func (b *traceBuilder) compact(k int, c transcript.Compaction, prov func(transcript.Compaction) map[string]string) {
	b.flush()
	id := fmt.Sprintf("c%d", k)
	switch {
	case len(b.window) > 0:
		b.t.cards = append(b.t.cards, card{ID: id, Covers: b.window,
			Versions: []version{{Content: c.Summary, Provenance: prov(c), Recorded: true}}})
		b.t.steps = append(b.t.steps, step{Step: fmt.Sprintf("compact-%d", k), Type: "compact", Card: id})
		b.window = []string{id}
	case strings.TrimSpace(c.Summary) != "":
		b.open()
		b.cur.Messages = append(b.cur.Messages, message{ID: id, Role: "user",
			Label: map[string]string{"en": "Summary the session starts from", "ja": "セッションの出発点の要約"}, Content: c.Summary})
		b.kind.carried = id
		b.flush()
	}
}

func (b *traceBuilder) user(i int, m transcript.Message) {
	b.flush()
	b.open()
	b.kind.user = fmt.Sprintf("u%d", i+1)
	b.cur.Messages = append(b.cur.Messages, message{ID: b.kind.user, Role: "user", Label: labelOf(m.Text), Content: b.t.clip(m.Text)})
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
		r.text = fmt.Sprintf("a%d", i+1)
		text := m.Text
		if strings.TrimSpace(text) == "" {
			text = "(no text)"
		}
		b.cur.Messages = append(b.cur.Messages, message{ID: r.text, Role: "assistant", Label: labelOf(text), Content: b.t.clip(text), Usage: u})
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
		b.cur.Messages = append(b.cur.Messages, message{Call: &call{ID: id, Tool: c.Name, ArgsJSON: args, Result: b.t.clip(nonEmpty(res)), Usage: u,
			Continues: !first}})
		u, first = nil, false
		r.calls = append(r.calls, id)
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

func usageOf(u *transcript.Usage) *usage {
	if u == nil {
		return nil
	}
	return &usage{Input: u.Input, CacheRead: u.CacheRead, CacheCreation: u.CacheCreation, Output: u.Output}
}

// labelOf names a message by its first line, cut to a label's length.
func labelOf(text string) map[string]string {
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
	return map[string]string{"en": line}
}

// ids gives tool calls ids the loader accepts, unique within the lesson.
type idSet struct{ seen map[string]bool }

func newIDs() *idSet { return &idSet{seen: map[string]bool{}} }

var toolUseID = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func (s *idSet) call(id string) string {
	if !toolUseID.MatchString(id) || strings.HasPrefix(id, "toolu_rr") || s.seen[id] {
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
