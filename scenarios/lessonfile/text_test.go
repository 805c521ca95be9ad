package lessonfile

import (
	"strings"
	"testing"
)

// CheckText names the line and the column (in characters) of the first
// byte a lesson file may not hold; tab, CR and LF and any character are
// fine.
func TestCheckText(t *testing.T) {
	tests := []struct {
		in   string
		line int
		msg  string // "" when the text is fine
	}{
		{"plain\ttext\r\nお茶 ✓ 😀\n", 0, ""},
		{"a\nお茶\xffx", 2, "column 3: byte 0xff is not UTF-8"},
		{"a\nb\x1bc", 2, "column 2: control character U+001B (ESC)"},
		{"\x00", 1, "column 1: control character U+0000 (NUL)"},
		{"x\x7f", 1, "U+007F (DEL)"},
		{"x\u009b", 1, "U+009B"},
		{"x\ufffe", 1, "U+FFFE is not a character"},
		{"x\ufeff", 1, "byte-order mark"},
		{"\xed\xa0\x80", 1, "byte 0xed is not UTF-8"}, // a surrogate
		{"\xc0\xaf", 1, "byte 0xc0 is not UTF-8"},     // overlong
	}
	for _, tt := range tests {
		e := CheckText("f", []byte(tt.in))
		switch {
		case tt.msg == "" && e != nil:
			t.Errorf("CheckText(%q) = %v; want nil", tt.in, e)
		case tt.msg != "" && (e == nil || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg)):
			t.Errorf("CheckText(%q) = %v; want line %d, %q", tt.in, e, tt.line, tt.msg)
		}
	}
	for _, in := range []string{"\xef\xbb\xbfid: é\n", "\xff\xfei\x00d\x00:\x00 \x00\xe9\x00\n\x00", "\xfe\xff\x00i\x00d\x00:\x00 \x00\xe9\x00\n", "id: é\n"} {
		if got := Text([]byte(in)); string(got) != "id: é\n" {
			t.Errorf("Text(%q) = %q; want %q", in, got, "id: é\n")
		}
	}
	if got := Text([]byte("\xff\xfei\x00d")); CheckText("f", got) == nil {
		t.Errorf("Text of UTF-16 cut in a character = %q; CheckText accepts it", got)
	}
}
