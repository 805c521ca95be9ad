package transcript

import (
	"bufio"
	"fmt"
	"os"
	"time"
)

// Format names a session file format.
type Format string

// The formats Read knows.
const (
	ClaudeCode Format = "claude-code" // Claude Code session JSON Lines
	OpenAIChat Format = "openai-chat" // OpenAI Chat Completions messages JSON
)

// Options control reading.
type Options struct {
	Format  Format // "" = detect
	Redact  bool   // replace secrets, e-mail addresses and the home directory
	Home    string // the user's home directory to redact ("" = os.UserHomeDir())
	MaxLine int    // longest JSONL line (or JSON array element) in bytes (0 = 64 MiB)
}

// defaultMaxLine is the longest line read when Options.MaxLine is 0: far above
// any real record (a large tool result is a few MiB) and still a bound.
const defaultMaxLine = 64 << 20

// Session is one agent session as the model saw it: the chain of messages in
// order, the compactions on it, and what the file says about it.
type Session struct {
	Format      Format
	File        string         // base name of the file read
	ID          string         // sessionId when the file has one (the last on the chain), else ""
	Title       string         // last `summary` record's text, if any
	Model       string         // the model of most assistant messages ("" if none)
	Started     time.Time      // first timestamp on the chain (zero if none)
	Ended       time.Time      // last timestamp on the chain
	System      string         // system prompt text (OpenAI system/developer messages joined); "" for Claude Code
	Messages    []Message      // the chain, in order, without sidechains, thinking blocks or the compact summaries
	Compactions []Compaction   // in order
	Redactions  map[string]int // kind → how many replaced: "api-key", "bearer", "email", "home"
	Skipped     map[string]int // record type (or "sidechain", "off-branch", "thinking") → how many skipped
	Records     int            // records (lines or array elements) read

	// Additions to the agreed API.
	Cwd     string // Claude Code: the working directory of the last record on the chain that names one
	Version string // Claude Code: the version of the last record on the chain that names one
	Usage   *Usage // OpenAI: the file's top-level usage, if any (nil otherwise)
}

// Role says who a message is from.
type Role string

// The roles of messages in a Session.
const (
	User      Role = "user"
	Assistant Role = "assistant"
	Tool      Role = "tool" // a tool result
)

// Message is one message on the chain.
type Message struct {
	Role    Role
	Text    string    // the text (text blocks joined with "\n\n"); for a tool result, its content as text
	Calls   []Call    // assistant: its tool calls, in order
	CallID  string    // tool: the call it answers
	IsError bool      // tool: the result is an error
	Usage   *Usage    // assistant: the provider's usage for the call that produced it (once per API message)
	Model   string    // assistant: model id
	Time    time.Time // when the record was written (zero if the file does not say)
	Line    int       // 1-based line (JSONL) or array index + 1 (JSON) where it starts
}

// Call is one tool call of an assistant message.
type Call struct {
	ID   string
	Name string
	Args string // the input as compact JSON
}

// Usage is the provider's token count for one model call.
type Usage struct {
	Input, CacheRead, CacheCreation, Output int
}

// InputTotal is what the provider counted as the request's input.
func (u Usage) InputTotal() int { return u.Input + u.CacheRead + u.CacheCreation }

// Compaction is one point where the session's history was replaced by a
// summary.
type Compaction struct {
	Before    int       // index in Messages of the first message after the compaction (len(Messages) if none)
	Summary   string    // the summary text the session continued with
	Trigger   string    // "auto" or "manual" ("" if unknown)
	PreTokens int       // tokens before, as the file says (0 if unknown)
	Time      time.Time // when the compaction was recorded
	Line      int       // line of the compact_boundary record
}

// Read reads the session in the file at path.
//
// The format is opt.Format, or detected from the first bytes when it is "".
// A problem with the content (broken JSON, a tool result without its call, a
// line over opt.MaxLine, an empty file, an unknown format) is an *Error with
// its line; a file that cannot be opened or read is a wrapped I/O error.
func Read(path string, opt Options) (*Session, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	defer f.Close()
	if opt.MaxLine <= 0 {
		opt.MaxLine = defaultMaxLine
	}
	b := newBuilder(path, opt)
	br := bufio.NewReaderSize(f, sniffSize)
	format, err := detect(br, path, opt.Format)
	if err != nil {
		return nil, err
	}
	b.s.Format = format
	switch format {
	case ClaudeCode:
		err = readClaudeCode(f, b)
	default:
		err = readOpenAI(br, b)
	}
	if err != nil {
		return nil, err
	}
	return b.finish(), nil
}
