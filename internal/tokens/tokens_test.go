package tokens

import (
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

// TestCountLongText counts a text longer than the 64 KiB pieces the old
// counter cut texts into, whole.
func TestCountLongText(t *testing.T) {
	ts := newTester(t)
	c := &Counter{enc: ts.enc}
	line := "2026-11-30T12:00:00Z INFO request served path=/api/items status=200 bytes=5123\n"
	log := strings.Repeat(line, 3*(64<<10)/len(line))
	if got, want := c.Count(log), len(ts.ref.Encode(log, nil, nil)); got != want {
		t.Errorf("Count of a %d-byte log = %d; want %d", len(log), got, want)
	}
}

func TestCountAll(t *testing.T) {
	ts := newTester(t)
	c := &Counter{enc: ts.enc}
	texts := corpus(5, 256<<10, 4<<10)
	c.CountAll(texts)
	for i, text := range texts {
		if got, want := c.Count(text), len(ts.ref.Encode(text, nil, nil)); got != want {
			t.Errorf("text %d: Count after CountAll = %d; want %d", i, got, want)
		}
	}
}
