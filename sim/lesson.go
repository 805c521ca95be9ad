package sim

import "regexp"

// Text is a string in several languages, keyed by language code ("en", "ja").
type Text map[string]string

// In returns the text in lang, falling back to English, then to any language.
func (t Text) In(lang string) string {
	if s, ok := t[lang]; ok {
		return s
	}
	if s, ok := t["en"]; ok {
		return s
	}
	for _, s := range t {
		return s
	}
	return ""
}

// Role is who a block speaks for in the request sent to the model.
type Role string

// Roles a block can have; they match the roles of a chat-completion request.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Kind tells blocks of one role apart: the injected memory copy, a summary,
// a tool call and so on.
type Kind string

// Kinds of block.
const (
	KindPrompt     Kind = "prompt"      // the system prompt
	KindMemory     Kind = "memory"      // the injected MEMORY.md copy
	KindText       Kind = "text"        // a plain user or assistant message
	KindToolCall   Kind = "tool_call"   // an assistant message that calls a tool
	KindToolResult Kind = "tool_result" // what a tool returned
	KindSummary    Kind = "summary"     // a compaction summary (recorded or mechanical)
	KindStatus     Kind = "status"      // a status bar injected by the harness (role user)
	KindExcerpt    Kind = "excerpt"     // a tool result cut to head + tail
	KindStub       Kind = "stub"        // a tool result replaced by its metadata
)

// StepType says what a trace step does to the simulated harness.
type StepType string

// Step types of a trace.
const (
	StepSessionStart StepType = "session_start"
	StepSessionEnd   StepType = "session_end"
	StepRemember     StepType = "remember"
	StepMessages     StepType = "messages"
	StepBranch       StepType = "branch"
)

// Lesson is a validated lesson: the trace the engine replays plus the figures
// and recordings it needs. Loaders build it; the engine never changes it.
type Lesson struct {
	ID               string
	Engine           string // EngineContext, EngineStatus or EngineTiered
	Order            int
	Title            Text
	Source           Text
	Window           int   // tokens the model accepts in one request
	ThresholdPercent int   // default compaction threshold, percent of Window
	Thresholds       []int // threshold presets offered to students
	TailMessages     int   // recent messages compaction keeps verbatim
	System           Message
	Memory           MemorySeed
	Facts            []Fact
	Trace            []Step
	Cards            []Card
	Provenance       Text // default provenance of recordings

	Status *StatusTrace // the status engine's trajectory
	Tiered *TieredTrace // the tiered engine's trajectory
}

// MemorySeed is the MEMORY.md file as it is before the first session.
type MemorySeed struct {
	Path   string
	Lines  []string
	Tokens int // trace size of the file's injected copy
}

// Fact is something a question in the trace looks for in the window.
type Fact struct {
	ID      string
	Pattern *regexp.Regexp
	Label   Text
}

// Step is one step of a trace.
type Step struct {
	ID       string
	Type     StepType
	Messages []Message // StepMessages
	Line     string    // StepRemember: the line written to the memory file
	Tokens   int       // StepRemember: what the line adds to the next injected copy
	Branch   *Branch   // StepBranch
}

// Branch is a step whose messages depend on whether a fact is in the window
// at the moment of the model call that starts it.
type Branch struct {
	Fact    string
	Found   []Message
	Missing []Message
}

// Message is one message of the trace.
type Message struct {
	ID      string
	Role    Role
	Kind    Kind
	Label   Text
	Tokens  int // trace size: a fixed value from the recorded trace
	Content string
	Answer  *Answer // when set, Content is chosen by a fact lookup
}

// Answer makes a model message's text depend on whether a fact is in the
// window when the model is called.
type Answer struct {
	Fact    string
	Found   string
	Missing string
}

// Card is a compaction summary card: the recorded (or authored) outputs of the
// summarizer for one exact compaction range.
type Card struct {
	ID         string
	Covers     []string // ids of the blocks in the range, in order
	Tokens     int      // trace size (display budget) of the summary
	Recordings []Recording
}

// Recording is one summarizer output with where it came from.
type Recording struct {
	Content    string
	Provenance Text
}

// Recordings is how many recordings every card holds (the policy picks one).
const Recordings = 5

// ThresholdTokens is the compaction threshold in tokens for percent.
func (l *Lesson) ThresholdTokens(percent int) int {
	return l.Window * percent / 100
}
