package summarizer

import (
	"fmt"
	"strings"

	"ctxsim/internal/textcut"
)

// Bounds of what is sent to a summarizer for one range.
const (
	MessageChars = 6000   // of one message's text
	RangeChars   = 300000 // of the whole range
)

// Transcript renders a range of messages for a summarizer: one paragraph
// per message, "[who] text", each cut at MessageChars and the whole at
// about RangeChars, with a marker where text is left out.
type Transcript struct {
	b    strings.Builder
	full bool
}

// Add appends one message; it reports false once the range is full (the
// message and the rest are left out).
func (t *Transcript) Add(who, text string) bool {
	if t.full {
		return false
	}
	fmt.Fprintf(&t.b, "[%s] %s\n\n", who, cut(strings.TrimSpace(text), MessageChars))
	if t.b.Len() > RangeChars {
		t.b.WriteString("[… the rest of the range is left out]\n")
		t.full = true
	}
	return !t.full
}

// String is the rendered range.
func (t *Transcript) String() string { return t.b.String() }

// cut keeps the first n bytes of s on a rune boundary, marking the cut.
func cut(s string, n int) string { return textcut.Mark(s, n, " […]") }
