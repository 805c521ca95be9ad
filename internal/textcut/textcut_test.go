package textcut

import "testing"

func TestPrefixAndMark(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string // Prefix
		mark string // Mark with "…"
	}{
		{"abc", 5, "abc", "abc"},
		{"abc", 3, "abc", "abc"},
		{"abcd", 3, "abc", "abc…"},
		{"ab文字", 3, "ab", "ab…"}, // 文 is 3 bytes: not split
		{"ab文字", 4, "ab", "ab…"},
		{"ab文字", 5, "ab文", "ab文…"},
		{"文字", 0, "", "…"},
		{"文字", -1, "", "…"},
		{"", 0, "", ""},
	}
	for _, tt := range tests {
		if got := Prefix(tt.s, tt.n); got != tt.want {
			t.Errorf("Prefix(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.want)
		}
		if got := Mark(tt.s, tt.n, "…"); got != tt.mark {
			t.Errorf("Mark(%q, %d) = %q; want %q", tt.s, tt.n, got, tt.mark)
		}
	}
}
