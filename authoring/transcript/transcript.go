package transcript

import (
	"errors"
	"time"
)

// Format names a session file format.
type Format string

// The formats Read knows.
const (
	ClaudeCode Format = "claude-code" // Claude Code session JSON Lines
	OpenAIChat Format = "openai-chat" // OpenAI Chat Completions messages JSON
	Codex      Format = "codex"       // Codex CLI rollout JSON Lines (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)
	GeminiCLI  Format = "gemini-cli"  // Gemini CLI session JSON Lines (0.40 and later)
)

// Formats lists the formats Read knows, in the order they are documented.
var Formats = []Format{ClaudeCode, Codex, OpenAIChat, GeminiCLI}

// Options control reading.
type Options struct {
	Format  Format // "" = detect
	Redact  bool   // replace secrets, e-mail addresses and the home directory
	Home    string // the user's home directory to redact ("" = os.UserHomeDir())
	MaxLine int    // longest JSONL line (or JSON array element) in bytes (0 = 64 MiB)

	// Limits on what a session may hold, over its file and the files beside
	// it (0 = no limit). A session past one is refused at the first record
	// past it, with that record's line, before anything else is done: the
	// error wraps ErrTooLarge.
	MaxRecords   int // records (lines, array elements) read
	MaxMessages  int // messages on the chain, sub-agents' included
	MaxTextBytes int // bytes of text kept: messages, tool calls and results, summaries
}

// ErrTooLarge is wrapped by the *Error for a session past a limit of Options.
var ErrTooLarge = errors.New("the session is larger than the limits allow")

// defaultMaxLine is the longest line read when Options.MaxLine is 0: far above
// any real record (a large tool result is a few MiB) and still a bound.
const defaultMaxLine = 64 << 20

// Session is one agent session as the model saw it: the chain of messages in
// order, the compactions on it, and what the file says about it.
type Session struct {
	Format      Format
	File        string         // base name of the file read (redacted with Options.Redact)
	ID          string         // sessionId when the file has one (the last on the chain), else ""
	Title       string         // last `summary` record's text, if any
	Model       string         // the model of most assistant messages ("" if none)
	Started     time.Time      // first timestamp on the chain (zero if none)
	Ended       time.Time      // last timestamp on the chain
	System      string         // system prompt text when the file holds it (OpenAI system/developer messages joined; Codex base instructions); "" for Claude Code
	Messages    []Message      // the chain, in order, without sidechains, thinking blocks or the compact summaries
	Compactions []Compaction   // in order
	Redactions  map[string]int // class → how many replaced (see RedactionClasses), over the file and the files read beside it
	Skipped     map[string]int // record type (or "sidechain", "off-branch", "thinking", …) → how many skipped
	Records     int            // records (lines or array elements) read

	// Additions to the agreed API.
	Cwd     string // Claude Code, Codex: the working directory of the last record on the chain that names one
	Version string // Claude Code, Codex: the version of the tool that wrote the last record that names one
	Usage   *Usage // OpenAI: the file's top-level usage, if any (nil otherwise)
	Window  int    // Codex: the model's context window as the file records it (model_context_window); 0 if it does not

	// Subagents are the Task sub-agents whose files sit beside a Claude Code
	// session (<session>/subagents/agent-*.jsonl), in the order they started.
	Subagents []*Subagent
}

// Role says who a message is from.
type Role string

// The roles of messages in a Session.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool"      // a tool result
	Developer Role = "developer" // Codex: instructions the harness put into the conversation (permissions, AGENTS.md, environment)
)

// Message is one message on the chain.
type Message struct {
	Role    Role
	Text    string    // the text (text blocks joined with "\n\n"); for a tool result, its content as text
	Calls   []Call    // assistant: its tool calls, in order
	CallID  string    // tool: the call it answers
	IsError bool      // tool: the result is an error
	Usage   *Usage    // assistant: the provider's count of the request it answered (once per API message; nil if the file records none)
	Model   string    // assistant: model id
	APIID   string    // assistant: the id of the API message (Claude Code message.id, Gemini's record id; Codex has none: "sample-N", the reader's count of answers; "" if none)
	Time    time.Time // when the record was written (zero if the file does not say)
	Line    int       // 1-based line (JSONL) or array index + 1 (JSON) where it starts
}

// Call is one tool call of an assistant message.
type Call struct {
	ID   string
	Name string
	Args string // the input as a compact JSON object (Codex custom tools' free-form input as {"input": "…"})
}

// Usage is the provider's token count for one model call. Input, CacheRead
// and CacheCreation are disjoint: their sum is the request's size.
type Usage struct {
	Input, CacheRead, CacheCreation, Output int
}

// InputTotal is what the provider counted as the request's input.
func (u Usage) InputTotal() int { return u.Input + u.CacheRead + u.CacheCreation }

// Compaction is one point where the session's history was replaced by a
// summary.
type Compaction struct {
	Before    int       // index in Messages of the first message after the compaction (len(Messages) if none)
	Summary   string    // the readable summary the session continued with, as the file records it ("" if none: Codex's encrypted one is not text)
	Trigger   string    // "auto" or "manual" ("" if unknown)
	PreTokens int       // tokens before, as the file says (0 if unknown)
	Time      time.Time // when the compaction was recorded
	Line      int       // line of the compact_boundary (Claude Code) or compacted (Codex) record

	// Additions to the agreed API.
	PostTokens int // Claude Code: compactMetadata.postTokens, tokens after as the file says (0 if absent)

	// Codex: the summary is an item encrypted by the provider that no one
	// can read; EncryptedBytes is its length as recorded (characters of
	// base64, not tokens). The provider's count of it is only in the first
	// request after the compaction (see Session.Requests).
	Encrypted      bool
	EncryptedBytes int
	// Replacement is what the history was replaced with besides the
	// summary (Codex: the user messages it kept, in order); the request after
	// the compaction holds Replacement, then the summary, then Messages[Before:].
	Replacement []Message
	// Estimate is the harness's own estimate of the history's tokens after
	// the compaction (Codex writes one); an estimate, not the provider's
	// count. 0 if the file has none.
	Estimate int

	// Call is the model call that wrote the summary, where the file beside
	// the session (Claude Code) or the session itself (Codex) records it;
	// nil otherwise.
	Call *CompactCall
}

// CompactCall is the model call that wrote a compaction's summary.
type CompactCall struct {
	File    string    // base name of its file (Claude Code: agent-acompact-*.jsonl); "" when the session records it
	AgentID string    // Claude Code: the agentId of its records
	Model   string    // the model that wrote the summary
	Usage   *Usage    // the provider's count of its request (nil if not recorded)
	Time    time.Time // when its answer was written
	// Through is the index in the session's Messages of the last message of
	// the session the compactor's request held (-1 if unknown): the request
	// was what the session's own request held up to it, then Prompt.
	Through int
	Prompt  []Message // what the compactor was sent after the session's messages (hook reminders, the instruction to summarize)
	Answer  string    // the compactor's answer as its file records it
}

// Subagent is a Task sub-agent of a Claude Code session, read from its own
// file beside the session.
type Subagent struct {
	File    string // base name of its file (agent-<id>.jsonl)
	AgentID string // the agentId of its records
	Type    string // its agentType, from agent-<id>.meta.json ("" if none)
	// CallID and Message name the Task call in the session that started
	// it: the call's id and the index in Messages of the assistant message
	// holding it ("" and -1 when no call could be linked).
	CallID  string
	Message int
	// LinkedBy says how the call was found: "agentId" (the call's result or
	// progress names the agent), "prompt" (the call's prompt is the
	// sub-agent's first message), "time" (the latest Task call before the
	// sub-agent's first record not linked otherwise), or "" (none).
	LinkedBy string
	Session  *Session
}

// Request is one recorded model call on the chain, with the provider's count.
type Request struct {
	Answer int // index in Messages of the assistant message that answered it
	// Compaction is the index in Compactions of the last compaction before
	// the request (-1 if none) and From the index of the first message of
	// Messages the request held (that compaction's Before, or 0): the request
	// held what the file does not (system prompt, tools, memory), then the
	// compaction's Replacement and Summary, then Messages[From:Answer].
	Compaction int
	From       int
	Usage      Usage
}

// Requests lists the model calls on the chain whose answer records the
// provider's usage, in order. Each API message counts once: an answer
// streamed over several records is one message.
func (s *Session) Requests() []Request {
	var out []Request
	k := -1
	for i, m := range s.Messages {
		for k+1 < len(s.Compactions) && s.Compactions[k+1].Before <= i {
			k++
		}
		if m.Role != Assistant || m.Usage == nil {
			continue
		}
		from := 0
		if k >= 0 {
			from = s.Compactions[k].Before
		}
		out = append(out, Request{Answer: i, Compaction: k, From: from, Usage: *m.Usage})
	}
	return out
}
