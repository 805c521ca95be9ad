package transcript

import (
	"fmt"
	"os"
	"time"
)

// builder assembles a Session from the messages a format reader finds on the
// chain, in order. It applies the rules every format shares: redaction, the
// limits, tool results answer earlier calls, split assistant records merge,
// each API message's usage counts once, the model vote.
type builder struct {
	path    string
	maxLine int // Options.MaxLine, defaulted
	opt     Options
	s       *Session
	red     *Redactor       // nil without Options.Redact
	lim     *limits         // shared with the builders of the files beside the session
	calls   map[string]bool // tool call ids seen so far on the chain
	results map[string]bool // tool call ids answered so far on the chain
	usageOf map[string]bool // API message ids whose usage a message already holds
	merge   int             // index of the assistant message a record with mergeID continues; -1 if none
	mergeID string
	lenient bool // a tool result without its call is skipped and counted, not an error (Codex: rollbacks and compactions drop calls)

	// Claude Code with files beside the session: at maps a chain record's
	// uuid to the index of the last message at or before it, agents an
	// agent's id to the Task call whose result names it. nil otherwise.
	at     map[string]int
	agents map[string]string
}

func newBuilder(path, base string, opt Options, lim *limits) *builder {
	s := &Session{File: base, Redactions: map[string]int{}, Skipped: map[string]int{}}
	b := &builder{path: path, maxLine: opt.MaxLine, opt: opt, s: s, lim: lim, calls: map[string]bool{}, results: map[string]bool{}, usageOf: map[string]bool{}, merge: -1}
	if opt.Redact {
		b.red = NewRedactor(homeDir(opt.Home))
		b.red.counts = s.Redactions
		s.File = RedactName(base, b.red)
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
	return b.red.Text(t)
}

// args returns a call's input redacted when redaction is on.
func (b *builder) args(a string) string {
	if b.red == nil {
		return a
	}
	return b.red.JSON(a)
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

// record counts one record read at line, refused past Options.MaxRecords.
func (b *builder) record(line int) error {
	b.s.Records++
	return b.lim.record(b, line)
}

// add appends a message, refused past the limits.
func (b *builder) add(m Message) error {
	if err := b.lim.message(b, m); err != nil {
		return err
	}
	b.s.Messages = append(b.s.Messages, m)
	return nil
}

// user appends a user (or Codex developer) message.
func (b *builder) user(role Role, text string, t time.Time, line int) error {
	b.merge = -1
	return b.add(Message{Role: role, Text: b.text(text), Time: t, Line: line})
}

// toolResult appends a tool result; its call must be earlier on the chain.
// A second result for a call is counted and left out.
func (b *builder) toolResult(m Message) error {
	if !b.calls[m.CallID] {
		if b.lenient {
			b.skip("orphan-output")
			return nil
		}
		return b.errorf(m.Line, "tool result for %s has no tool call before it", m.CallID)
	}
	if b.results[m.CallID] {
		b.skip("duplicate-result")
		return nil
	}
	b.results[m.CallID] = true
	m.Role = Tool
	m.Text = b.text(m.Text)
	return b.add(m)
}

// assistant appends an assistant message, or continues the last one when
// m.APIID names the same API message (Claude Code writes one API message as
// several records, each repeating the usage: it is kept once, the last seen,
// which is the most complete). Only tool results may stand between the two.
// An API message whose usage an earlier message already holds gives its
// usage to none.
func (b *builder) assistant(m Message) error {
	m.Role = Assistant
	m.Text = b.text(m.Text)
	for i := range m.Calls {
		b.calls[m.Calls[i].ID] = true
		m.Calls[i].Args = b.args(m.Calls[i].Args)
	}
	if m.APIID != "" && b.merge >= 0 && b.mergeID == m.APIID {
		return b.continueAssistant(m)
	}
	if m.APIID != "" {
		if b.usageOf[m.APIID] {
			m.Usage = nil
		} else if m.Usage != nil {
			b.usageOf[m.APIID] = true
		}
	}
	if err := b.add(m); err != nil {
		return err
	}
	b.merge, b.mergeID = len(b.s.Messages)-1, m.APIID
	return nil
}

// continueAssistant merges m into the assistant message it continues.
func (b *builder) continueAssistant(m Message) error {
	if err := b.lim.message(b, Message{Text: m.Text, Calls: m.Calls}); err != nil {
		return err
	}
	b.lim.messages-- // the same message, not another one
	prev := &b.s.Messages[b.merge]
	prev.Text = joinText(prev.Text, m.Text)
	prev.Calls = append(prev.Calls, m.Calls...)
	if m.Usage != nil {
		prev.Usage = m.Usage
		b.usageOf[m.APIID] = true
	}
	if prev.Model == "" {
		prev.Model = m.Model
	}
	return nil
}

// compaction records a compaction boundary before the next message.
func (b *builder) compaction(c Compaction) error {
	c.Before = len(b.s.Messages)
	if err := b.lim.text(b, c.Line, len(c.Summary)); err != nil {
		return err
	}
	b.s.Compactions = append(b.s.Compactions, c)
	b.merge = -1
	return nil
}

// compactSummary gives the summary the session continued with to the
// compaction just before it, or records a compaction of its own when there is
// none (files older than compact_boundary records).
func (b *builder) compactSummary(text string, t time.Time, line int) error {
	text = b.text(text)
	if n := len(b.s.Compactions); n > 0 && b.s.Compactions[n-1].Before == len(b.s.Messages) {
		if err := b.lim.text(b, line, len(text)); err != nil {
			return err
		}
		last := &b.s.Compactions[n-1]
		last.Summary = joinText(last.Summary, text)
		return nil
	}
	return b.compaction(Compaction{Summary: text, Time: t, Line: line})
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
