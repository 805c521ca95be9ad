package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// builder assembles a Session from the messages a format reader finds on the
// chain, in order. It applies the rules both formats share: redaction, tool
// results answer earlier calls, split assistant records merge, the model vote.
type builder struct {
	path    string
	maxLine int // Options.MaxLine, defaulted
	s       *Session
	red     *redactor       // nil without Options.Redact
	calls   map[string]bool // tool call ids seen so far on the chain
	merge   int             // index of the assistant message a record with mergeID continues; -1 if none
	mergeID string
}

func newBuilder(path string, opt Options) *builder {
	s := &Session{File: filepath.Base(path), Redactions: map[string]int{}, Skipped: map[string]int{}}
	b := &builder{path: path, maxLine: opt.MaxLine, s: s, calls: map[string]bool{}, merge: -1}
	if opt.Redact {
		b.red = newRedactor(homeDir(opt.Home), s.Redactions)
	}
	return b
}

// homeDir is the home directory to redact: the given one, else the user's.
func homeDir(home string) string {
	if home != "" {
		return home
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "" // nothing to redact then
	}
	return h
}

// errorf returns an *Error at line of the file being read.
func (b *builder) errorf(line int, format string, args ...any) error {
	return &Error{File: b.path, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// text returns t redacted when redaction is on.
func (b *builder) text(t string) string {
	if b.red == nil {
		return t
	}
	return b.red.text(t)
}

// stamp records that the chain reached time t.
func (b *builder) stamp(t time.Time) {
	if t.IsZero() {
		return
	}
	if b.s.Started.IsZero() {
		b.s.Started = t
	}
	b.s.Ended = t
}

// skip counts one skipped thing of the kind.
func (b *builder) skip(kind string) { b.s.Skipped[kind]++ }

// user appends a user message.
func (b *builder) user(text string, t time.Time, line int) {
	b.s.Messages = append(b.s.Messages, Message{Role: User, Text: b.text(text), Time: t, Line: line})
	b.merge = -1
}

// toolResult appends a tool result; its call must be earlier on the chain.
func (b *builder) toolResult(m Message) error {
	if !b.calls[m.CallID] {
		return b.errorf(m.Line, "tool result for %s has no tool call before it", m.CallID)
	}
	m.Role = Tool
	m.Text = b.text(m.Text)
	b.s.Messages = append(b.s.Messages, m)
	return nil
}

// assistant appends an assistant message, or continues the last one when
// apiID names the same API message (Claude Code writes one API message as
// several records, each repeating the usage: it is kept once, the last seen,
// which is the most complete). Only tool results may stand between the two.
func (b *builder) assistant(m Message, apiID string) {
	m.Role = Assistant
	m.Text = b.text(m.Text)
	for i := range m.Calls {
		b.calls[m.Calls[i].ID] = true
		if b.red != nil {
			m.Calls[i].Args = b.red.json(m.Calls[i].Args)
		}
	}
	if apiID != "" && b.merge >= 0 && b.mergeID == apiID {
		prev := &b.s.Messages[b.merge]
		prev.Text = joinText(prev.Text, m.Text)
		prev.Calls = append(prev.Calls, m.Calls...)
		if m.Usage != nil {
			prev.Usage = m.Usage
		}
		if prev.Model == "" {
			prev.Model = m.Model
		}
		return
	}
	b.s.Messages = append(b.s.Messages, m)
	b.merge, b.mergeID = len(b.s.Messages)-1, apiID
}

// compaction records a compaction boundary before the next message.
func (b *builder) compaction(c Compaction) {
	c.Before = len(b.s.Messages)
	b.s.Compactions = append(b.s.Compactions, c)
	b.merge = -1
}

// compactSummary gives the summary the session continued with to the
// compaction just before it, or records a compaction of its own when there is
// none (files older than compact_boundary records).
func (b *builder) compactSummary(text string, t time.Time, line int) {
	text = b.text(text)
	if n := len(b.s.Compactions); n > 0 && b.s.Compactions[n-1].Before == len(b.s.Messages) {
		last := &b.s.Compactions[n-1]
		last.Summary = joinText(last.Summary, text)
		return
	}
	b.compaction(Compaction{Summary: text, Time: t, Line: line})
}

// finish completes the session: the title redacted, the model voted.
func (b *builder) finish() *Session {
	b.s.Title = b.text(b.s.Title)
	b.s.Cwd = b.text(b.s.Cwd)
	b.s.Model = majorityModel(b.s.Messages)
	return b.s
}

// syntheticModel is the model Claude Code names on messages it wrote itself
// (API errors, interruptions); it does not vote.
const syntheticModel = "<synthetic>"

// majorityModel is the model of most assistant messages; a tie goes to the
// model seen first.
func majorityModel(msgs []Message) string {
	counts := map[string]int{}
	for _, m := range msgs {
		if m.Role == Assistant && m.Model != "" && m.Model != syntheticModel {
			counts[m.Model]++
		}
	}
	best := ""
	for _, m := range msgs {
		if counts[m.Model] > counts[best] {
			best = m.Model
		}
	}
	return best
}

// joinText joins two texts with a blank line, leaving out an empty one.
func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}
