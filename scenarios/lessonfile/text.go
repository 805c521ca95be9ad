package lessonfile

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// bom is the UTF-8 byte-order mark some editors write at the start of a
// file.
var bom = []byte("\xef\xbb\xbf")

// StripBOM returns data without a byte-order mark at its start: every
// lesson file may begin with one.
func StripBOM(data []byte) []byte { return bytes.TrimPrefix(data, bom) }

// CheckText finds the first thing in data (a lesson file's text, its BOM
// stripped) that a lesson file may not hold, as a page would show it
// wrongly or a YAML parser would refuse it without saying where: bytes
// that are not UTF-8, a control character other than tab, line feed and
// carriage return (NUL, ESC, DEL, the C1 controls), a non-character
// (U+FFFE, U+FFFF) or a byte-order mark past the start. The error has the
// file, the line and the column; nil when there is none.
func CheckText(name string, data []byte) *Error {
	line, lineStart := 1, 0
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		var what string
		switch {
		case r == utf8.RuneError && size <= 1:
			what = fmt.Sprintf("byte 0x%02x is not UTF-8: save the file as UTF-8", data[i])
		case r == '\n':
			line, lineStart = line+1, i+1
		case r == '\t' || r == '\r':
		case r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f:
			what = fmt.Sprintf("control character %U%s: remove it", r, controlName(r))
		case r == 0xfffe || r == 0xffff:
			what = fmt.Sprintf("%U is not a character: remove it", r)
		case r == 0xfeff:
			what = "a byte-order mark (U+FEFF) inside the file: remove it"
		}
		if what != "" {
			col := utf8.RuneCount(data[lineStart:i]) + 1
			return &Error{File: name, Line: line, Msg: fmt.Sprintf("column %d: %s", col, what)}
		}
		i += size
	}
	return nil
}

// controlName names the control characters an editor or a terminal makes.
func controlName(r rune) string {
	switch r {
	case 0:
		return " (NUL)"
	case 0x1b:
		return " (ESC)"
	case 0x7f:
		return " (DEL)"
	}
	return ""
}
