package summarizer

import (
	"strings"
	"testing"
)

func TestTranscript(t *testing.T) {
	var tr Transcript
	if !tr.Add("user", "  Fix the parser.  ") {
		t.Fatal("the first message filled the range")
	}
	long := strings.Repeat("é", MessageChars) // 2 bytes each: cut mid-text on a rune boundary
	tr.Add("tool Read", long)
	got := tr.String()
	if !strings.HasPrefix(got, "[user] Fix the parser.\n\n[tool Read] ") {
		t.Errorf("paragraphs: %.60q", got)
	}
	if !strings.Contains(got, "é […]") || strings.Contains(got, "\xc3 […]") {
		t.Errorf("the long message is not cut on a rune boundary with a marker")
	}
	var full Transcript
	n := 0
	for full.Add("tool", strings.Repeat("x", MessageChars)) {
		n++
	}
	if n != RangeChars/(MessageChars+len("[tool] \n\n")) || !strings.HasSuffix(full.String(), "[… the rest of the range is left out]\n") || full.Add("user", "more") {
		t.Errorf("%d messages before the range was full; want %d, the marker at the end, and no more added", n, RangeChars/(MessageChars+len("[tool] \n\n")))
	}
}
