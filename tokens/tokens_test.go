package tokens

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCountOffline(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{"hello world", 2},
		{"<|endoftext|>", 7}, // a special-token marker counts as plain text
	}
	for _, tt := range tests {
		if got := c.Count(tt.text); got != tt.want {
			t.Errorf("Count(%q) = %d; want %d", tt.text, got, tt.want)
		}
		if got := c.Count(tt.text); got != tt.want { // memoized path
			t.Errorf("second Count(%q) = %d; want %d", tt.text, got, tt.want)
		}
	}
}

// TestSplitCountsTheSame counts texts whole and in small pieces cut by
// split: the sums must be equal wherever split found a place to cut.
func TestSplitCountsTheSame(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{
		"line one\nline two\n\nline four\n",
		"x.\n/usr/bin/env bash\n/etc/hosts\n",
		"a  \n  b\n\t\nc\r\nd\r\n\r\ne",
		"func f() error {\n\treturn nil\n}\n\n// Doc.\nfunc g() {}\n",
		"日本語の文。\n次の行\u3000全角空白\n\u00a0nbsp\n's 've\nI'm\n",
		"numbers 1234567\n89\n-- dashes --\n***\n###\n",
		strings.Repeat("word ", 30) + "\n" + strings.Repeat("=", 50) + "\nend",
	}
	// Every lesson text of the repository.
	files, _ := filepath.Glob("../scenarios/*/*.md")
	yamls, _ := filepath.Glob("../scenarios/*/*.yaml")
	for _, f := range append(files, yamls...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, string(b))
	}
	if len(texts) < 15 {
		t.Fatalf("found %d texts; the lesson files are missing", len(texts))
	}
	checked := 0
	for i, text := range texts {
		whole := len(c.enc.Encode(text, nil, nil))
		for _, max := range []int{16, 40, 200, 1000, 4000, 8000} {
			pieces := split(text, max)
			if strings.Join(pieces, "") != text {
				if got := c.count(text, max); got > whole {
					t.Errorf("text %d, max %d: truncated count %d above the whole count %d", i, max, got, whole)
				}
				continue // a stretch with no place to cut: truncated by design
			}
			if got := c.count(text, max); got != whole {
				t.Errorf("text %d (%.30q…), pieces of %d bytes: %d tokens; whole %d", i, text, max, got, whole)
			}
			if len(pieces) > 1 {
				checked++
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d texts were cut into pieces and compared; want at least 20", checked)
	}
}

func TestSplitLongTextNotTruncated(t *testing.T) {
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	line := "2026-11-30T12:00:00Z INFO request served path=/api/items status=200 bytes=5123\n"
	text := strings.Repeat(line, 3*MaxText/len(line))
	if got, want := c.Count(text), len(c.enc.Encode(text, nil, nil)); got != want {
		t.Errorf("Count of a %d-byte log = %d; want %d (not the first %d bytes' count)", len(text), got, want, MaxText)
	}
}
