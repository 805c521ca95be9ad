package sim

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Text is a string in several languages, keyed by language code ("en", "ja").
type Text map[string]string

// Fallback is the language a Text falls back to, and the one the harness
// writes the labels it makes in (catalog.Fallback).
const Fallback = "en"

// In returns the text in lang, falling back to English, then to any language.
func (t Text) In(lang string) string {
	if s, ok := t[lang]; ok {
		return s
	}
	if s, ok := t[Fallback]; ok {
		return s
	}
	for _, s := range t {
		return s
	}
	return ""
}

// Narration keys the harness and its mechanisms give the frames they emit
// themselves (a trace step's frames have its id): a compaction's four
// frames, a refusal (FrameOverflow, FrameRefused), the workspace's re-read
// (KeyReread) and each compressor pass (PassKey).
const (
	KeyReread  = "reread"
	passPrefix = "pass-"
)

// ReservedSteps are the narration keys of the frames the harness and its
// mechanisms emit; no step of a trace may take one (nor a PassKey).
var ReservedSteps = []string{string(FrameCrossed), string(FrameSelected), string(FrameSummary), string(FrameReplaced),
	string(FrameOverflow), string(FrameRefused), KeyReread,
	layerNoise, layerMicro, layerArchive, layerMemory, layerFull, layerFailed, // the layers mechanism
	keyAutocompact, keyRestored} // the instructions mechanism

// PassKey is the narration key of a compressor's nth pass: pass-1, pass-2.
func PassKey(n int) string { return passPrefix + strconv.Itoa(n) }

// Reserved reports whether key is a narration key the harness or a
// mechanism emits: a ReservedSteps key or a PassKey.
func Reserved(key string) bool {
	return slices.Contains(ReservedSteps, key) || strings.HasPrefix(key, passPrefix)
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
	KindSummary    Kind = "summary"     // a summary (a card's text, a mechanical excerpt, a Tier 2 summary)
	KindStatus     Kind = "status"      // a status bar injected by the harness (role user)
	KindExcerpt    Kind = "excerpt"     // a tool result cut to head + tail
	KindStub       Kind = "stub"        // a tool result replaced by its metadata
	// KindUnseen is what a recorded session's requests held that its file
	// does not: the system prompt, the tool definitions, memory files, the
	// environment. Its size is the provider's count of a request less what
	// the file holds (see ProviderUsage); it has no text.
	KindUnseen Kind = "unseen"
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
	// StepCompact marks where a recorded session compacted; its Card is the
	// summary the session continued with. The compaction mechanism replays
	// it in its "recorded" mode and ignores it otherwise.
	StepCompact StepType = "compact"
)

// Lesson is a validated lesson: the mechanisms its harness runs and the
// trace the harness replays. Loaders build it; the engine never changes it.
type Lesson struct {
	ID     string
	Order  int
	Title  Text
	Source Text
	Window int // tokens the model accepts in one request
	// Counted lessons size every block by the o200k_base count of its text;
	// the others give each message's size in the trace (a recorded size).
	Counted    bool
	Mechanisms []Mechanism // in narration precedence: the first one's variant of a section wins
	System     Message     // the system prompt, block id "system"
	Trace      []Step
	Facts      []Fact

	params []Param // every mechanism's parameters, in URL order
	// held says, for the lesson's fixed texts, whether each fact's pattern
	// matches them (see IndexFacts); replays match other texts as they go.
	held map[factText]bool
	// made remembers, for texts a replay makes (a memory file's copy, an
	// excerpt), whether each fact's pattern matches them: the same copy
	// shows on many frames of many runs.
	made *factMemo
	// blockFacts is the loss-view facts of each block of the trace.
	blockFacts map[blockKey][]lossFact
}

// factMemo is a bounded, concurrency-safe memory of pattern matches.
type factMemo struct {
	m sync.Map // factText -> bool
	n atomic.Int64
}

// madeMemo bounds the texts factMemo remembers; past it, patterns run.
const madeMemo = 4096

// factText keys whether a fact's pattern matches a text.
type factText struct{ fact, text string }

// Texts is every text the lesson fixes: the system prompt, the trace's
// messages and answers, what its mechanisms carry (summary cards).
func (l *Lesson) Texts() []string {
	texts := []string{l.System.Content}
	addMsgs := func(ms []Message) {
		for _, m := range ms {
			texts = append(texts, m.Content)
			if a := m.Answer; a != nil {
				texts = append(texts, a.Found, a.Missing)
			}
		}
	}
	for _, st := range l.Trace {
		addMsgs(st.Messages)
		if b := st.Branch; b != nil {
			addMsgs(b.Found)
			addMsgs(b.Missing)
		}
	}
	for _, m := range l.Mechanisms {
		if c, ok := m.(interface{ texts() []string }); ok {
			texts = append(texts, c.texts()...)
		}
	}
	return texts
}

// IndexFacts matches every fact against the texts the lesson fixes (the
// system prompt, the trace's messages and answers, what its mechanisms
// carry, such as summary cards), once, so that a replay's lookups only
// run patterns on text made during the replay. Loaders call it when the
// lesson is complete; a lesson without it replays the same, slower.
func (l *Lesson) IndexFacts() {
	texts := l.Texts()
	facts := map[blockKey][]lossFact{}
	for _, st := range l.Trace {
		for _, m := range st.Messages {
			b := Block{Role: m.Role, Kind: cmp.Or(m.Kind, KindText), Args: m.Args, Content: m.Content}
			facts[factKey(&b)] = blockFacts(&b)
		}
	}
	l.blockFacts = facts
	l.held = make(map[factText]bool, len(texts)*len(l.Facts))
	l.made = &factMemo{}
	for _, f := range l.Facts {
		if f.Pattern == nil {
			continue
		}
		for _, t := range texts {
			l.held[factText{f.ID, t}] = f.Pattern.MatchString(t)
		}
	}
}

// Holds reports whether fact's pattern matches text: looked up for the
// texts the lesson fixes (IndexFacts), matched for the others.
func (l *Lesson) Holds(f Fact, text string) bool {
	if f.Pattern == nil {
		return false
	}
	k := factText{f.ID, text}
	if v, ok := l.held[k]; ok {
		return v
	}
	if l.made == nil {
		return f.Pattern.MatchString(text)
	}
	if v, ok := l.made.m.Load(k); ok {
		return v.(bool)
	}
	v := f.Pattern.MatchString(text)
	if l.made.n.Load() < madeMemo {
		if _, loaded := l.made.m.LoadOrStore(k, v); !loaded {
			l.made.n.Add(1)
		}
	}
	return v
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
	Card     string    // StepCompact: the card of the recorded summary
	Time     string    // trace timestamp of the step's model calls ("2025-09-14 10:30:45")
	// ShowRequest makes the step's frame the request of its model call, as
	// sent, before the model's output is added (one frame per call).
	ShowRequest bool
	// ShowLast, with ShowRequest, shows only the request of the step's
	// last model call (a step that groups several calls of a long
	// recorded session): one frame per step.
	ShowLast bool
	// Decision ends the step with a model call whose output is not
	// simulated: the call where the arms of an experiment differ.
	Decision bool
	// Needs are facts the model must see at the step's first model call;
	// for each one the window lacks, the agent first makes that need's
	// calls (see Need).
	Needs []Need
	// Agent is who does the step: "" the main agent, AgentSub a sub-agent
	// (the subagent mechanism runs it in a window of its own when isolation
	// is on; otherwise the main agent does it in the main window).
	Agent string
}

// AgentSub marks a step a sub-agent does.
const AgentSub = "sub"

// Need is a fact the model must see to go on. When the window lacks it at
// the step's first model call, the agent cannot write what the step says
// yet: it makes the Recover calls first (the same tool call again, or a
// refined one), one more model call each, shown as a frame keyed Step.
type Need struct {
	Fact    string
	Step    string    // narration key of the frame that shows the recovery
	Recover []Message // the calls the agent makes for it: calls and results
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
	ID       string
	Role     Role
	Kind     Kind
	Label    Text
	LabelKey string // a catalog key naming the block when Label is empty ({0} is the tool)
	Tokens   int    // trace size; 0 in a counted lesson
	Content  string
	Answer   *Answer // when set, Content is chosen by a fact lookup
	Origin   string  // where the text comes from: OriginAuthored or OriginGenerated

	// Tool calls and results.
	Tool      string  // the tool's name, on a call and its result
	ToolUseID string  // pairs a call with its result (its own id when the trace gives none)
	Args      string  // a call's JSON arguments, as sent
	Op        *FileOp // a result the workspace produces at replay time
	// Summary is the text a summarizer returns for this result when a
	// compressor asks for one ("" when none exists).
	Summary string
	// Usage is what the provider reported for the model call that wrote
	// this (assistant) message, in a recorded session; nil otherwise.
	Usage *Usage
	// Continues marks an assistant message written by the same model call
	// as the assistant message before it in the step (a recorded response
	// of text and tool calls): no model call, no check, comes before it.
	Continues bool
	// Chars is the characters of the whole text of a trace-sized tool
	// result whose Content is an excerpt (a trace figure); 0 when Content
	// is the whole text.
	Chars int
}

// Usage is a provider's token accounting of one model call.
type Usage struct {
	Input, CacheRead, CacheCreation, Output int
}

// InputTotal is what the provider counted as the request's input.
func (u Usage) InputTotal() int { return u.Input + u.CacheRead + u.CacheCreation }

// Where a text comes from.
const (
	OriginAuthored  = "authored"  // written for the lesson
	OriginGenerated = "generated" // generated for the lesson by a tool in the repository
	OriginImported  = "recorded"  // recorded in a real session's file (an imported session)
)

// FileOp is a file operation of a tool call: the workspace applies it when
// the call is replayed, so its result is the file as it is then.
type FileOp struct {
	Op   string // read, write, edit
	Path string
	Old  string // edit
	New  string // edit
}

// File operations.
const (
	OpRead  = "read"
	OpWrite = "write"
	OpEdit  = "edit"
)

// Answer makes a model message's text depend on whether a fact is in the
// window when the model is called.
type Answer struct {
	Fact    string
	Found   string
	Missing string
}

// Params returns the lesson's policy parameters in URL order.
func (l *Lesson) Params() []Param { return l.params }

// Mechanism returns the lesson's mechanism called name.
func (l *Lesson) Mechanism(name string) (Mechanism, bool) {
	for _, m := range l.Mechanisms {
		if m.Name() == name {
			return m, true
		}
	}
	return nil, false
}

// Sessions counts the session_start steps of the trace (a trace without
// any is one session).
func (l *Lesson) Sessions() int {
	n := 0
	for _, st := range l.Trace {
		if st.Type == StepSessionStart {
			n++
		}
	}
	return max(n, 1)
}
