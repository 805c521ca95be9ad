package lessonfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// Byte-order marks some editors write at the start of a file: UTF-8's,
// and UTF-16's (little and big endian).
var (
	bom     = []byte("\xef\xbb\xbf")
	bom16LE = []byte("\xff\xfe")
	bom16BE = []byte("\xfe\xff")
)

// Text returns a lesson file's bytes as UTF-8 without a byte-order mark:
// every lesson file may begin with UTF-8's, and one that begins with
// UTF-16's (as some Windows editors save) is read as UTF-16.
func Text(data []byte) []byte {
	switch {
	case bytes.HasPrefix(data, bom):
		return data[len(bom):]
	case bytes.HasPrefix(data, bom16LE):
		return fromUTF16(data[2:], binary.LittleEndian)
	case bytes.HasPrefix(data, bom16BE):
		return fromUTF16(data[2:], binary.BigEndian)
	}
	return data
}

// fromUTF16 decodes UTF-16 in the byte order order; a half character left
// unpaired becomes U+FFFD, and an odd last byte 0xFF (which CheckText
// refuses).
func fromUTF16(b []byte, order binary.ByteOrder) []byte {
	u := make([]uint16, len(b)/2)
	for i := range u {
		u[i] = order.Uint16(b[2*i:])
	}
	out := []byte(string(utf16.Decode(u)))
	if len(b)%2 == 1 {
		out = append(out, 0xff)
	}
	return out
}

// CheckText finds the first thing in data (a lesson file's Text) that a lesson file may not hold, as a page would show it
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
