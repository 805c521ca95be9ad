package tokens

import (
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
