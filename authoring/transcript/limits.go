package transcript

import "fmt"

// limits counts what a session holds against Options' limits, over its file
// and the files read beside it.
type limits struct {
	maxRecords, maxMessages, maxText int
	records, messages, textBytes     int
}

func newLimits(opt Options) *limits {
	return &limits{maxRecords: opt.MaxRecords, maxMessages: opt.MaxMessages, maxText: opt.MaxTextBytes}
}

// record counts a record read at line of b's file.
func (l *limits) record(b *builder, line int) error {
	l.records++
	if l.maxRecords > 0 && l.records > l.maxRecords {
		return tooLarge(b, line, fmt.Sprintf("more than %d records", l.maxRecords))
	}
	return nil
}

// message counts a message that starts at m.Line and its text.
func (l *limits) message(b *builder, m Message) error {
	l.messages++
	if l.maxMessages > 0 && l.messages > l.maxMessages {
		return tooLarge(b, m.Line, fmt.Sprintf("more than %d messages", l.maxMessages))
	}
	n := len(m.Text)
	for _, c := range m.Calls {
		n += len(c.Name) + len(c.Args)
	}
	return l.text(b, m.Line, n)
}

// text counts n bytes of text kept from line.
func (l *limits) text(b *builder, line, n int) error {
	l.textBytes += n
	if l.maxText > 0 && l.textBytes > l.maxText {
		return tooLarge(b, line, fmt.Sprintf("more than %s of text", byteSize(l.maxText)))
	}
	return nil
}

// tooLarge is the *Error for a session past a limit at line of b's file.
func tooLarge(b *builder, line int, what string) error {
	return &Error{File: b.path, Line: line, Msg: "the session holds " + what + ", the most this reader takes; it was refused here", Err: ErrTooLarge}
}
