package httperr

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestQuoteUTF8: a user's value cut to 80 bytes for a message never splits
// a character, whatever bytes it holds.
func TestQuoteUTF8(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("a", 79) + "日本", // a 3-byte character across byte 80
		strings.Repeat("a", 78) + "😀x", // a 4-byte one
		strings.Repeat("日", 40),
		strings.Repeat("\x80", 100),          // continuation bytes only
		strings.Repeat("a", 79) + "\xe6\x97", // a character cut short in the input
		"short 日本",
	} {
		q := Quote(in)
		u, err := strconv.Unquote(q)
		if err != nil {
			t.Fatalf("Quote(%q) = %s, not a Go string: %v", in, q, err)
		}
		if !utf8.ValidString(q) {
			t.Errorf("Quote(%q) = %q is not valid UTF-8", in, q)
		}
		if body := strings.TrimSuffix(u, "…"); len(body) > 80 || !strings.HasPrefix(in, body) {
			t.Errorf("Quote(%q) shows %q; want a prefix of at most 80 bytes", in, u)
		}
	}
}
