package importer

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

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
	steps []step
	kinds map[string]stepKind // what each messages step is, for its narration
	cards []card
	calls int
}

// stepKind is what a messages step of an imported trace holds.
type stepKind struct {
	user      string   // a user message's block id
	carried   string   // a recorded summary the file starts from
	assistant string   // an assistant text block id
	calls     []string // tool call ids
}

// buildTrace turns s's messages into trace steps: one step per user
// message, one per assistant message with its tool calls (each call and
// its result as one call item), and a compact step where the session
// compacted. It also works out, in the recorded replay, which blocks each
// compaction replaced: everything in the window since the previous one.
func buildTrace(s *transcript.Session, prov func(transcript.Compaction) map[string]string) (*trace, error) {
	t := &trace{kinds: map[string]stepKind{}}
	results := resultsOf(s.Messages)
	ids := newIDs()
	var window []string // blocks in the window in the recorded replay
	compaction, n := 0, 0
	next := func() string { n++; return fmt.Sprintf("s%d", n) }
	for i := 0; i <= len(s.Messages); i++ {
		for compaction < len(s.Compactions) && s.Compactions[compaction].Before == i {
			c := s.Compactions[compaction]
			compaction++
			id := fmt.Sprintf("c%d", compaction)
			if len(window) > 0 {
				t.cards = append(t.cards, card{ID: id, Covers: window,
					Versions: []version{{Content: c.Summary, Provenance: prov(c), Recorded: true}}})
				t.steps = append(t.steps, step{Step: fmt.Sprintf("compact-%d", compaction), Type: "compact", Card: id})
			} else if strings.TrimSpace(c.Summary) != "" {
				// The file starts after a compaction: the session went on
				// from this summary, so the window starts with it.
				st := step{Step: next(), Messages: []message{{ID: id, Role: "user",
					Label: map[string]string{"en": "Summary the session starts from", "ja": "セッションの出発点の要約"}, Content: c.Summary}}}
				t.kinds[st.Step] = stepKind{carried: id}
				t.steps = append(t.steps, st)
			} else {
				continue
			}
			window = []string{id}
		}
		if i == len(s.Messages) {
			break
		}
		m := s.Messages[i]
		st := step{}
		var k stepKind
		switch m.Role {
		case transcript.User:
			if strings.TrimSpace(m.Text) == "" {
				continue
			}
			k.user = fmt.Sprintf("u%d", i+1)
			st.Messages = append(st.Messages, message{ID: k.user, Role: "user", Label: labelOf(m.Text), Content: m.Text})
		case transcript.Assistant:
			u := usageOf(m.Usage)
			if strings.TrimSpace(m.Text) != "" || len(m.Calls) == 0 {
				k.assistant = fmt.Sprintf("a%d", i+1)
				text := m.Text
				if strings.TrimSpace(text) == "" {
					text = "(no text)"
				}
				st.Messages = append(st.Messages, message{ID: k.assistant, Role: "assistant", Label: labelOf(text), Content: text, Usage: u})
				u = nil
			}
			for _, c := range m.Calls {
				id := ids.call(c.ID)
				res, ok := results[c.ID]
				if !ok {
					res = noResult
				}
				args := c.Args
				if strings.TrimSpace(args) == "" {
					args = "{}"
				}
				st.Messages = append(st.Messages, message{Call: &call{ID: id, Tool: c.Name, ArgsJSON: args, Result: nonEmpty(res), Usage: u,
					Continues: len(st.Messages) > 0}})
				u = nil
				k.calls = append(k.calls, id)
				t.calls++
			}
		default:
			continue // tool results travel with their calls
		}
		for _, m := range st.Messages {
			if m.Call != nil {
				window = append(window, "call-"+m.Call.ID, "result-"+m.Call.ID)
			} else {
				window = append(window, m.ID)
			}
		}
		st.Step = next()
		t.kinds[st.Step] = k
		t.steps = append(t.steps, st)
	}
	if len(t.steps) == 0 {
		return nil, fmt.Errorf("%s: the session holds no user or assistant message", s.File)
	}
	return t, nil
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
