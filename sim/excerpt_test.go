package sim

import (
	"fmt"
	"strings"
	"testing"
)

func TestMechanicalExcerptBound(t *testing.T) {
	msgs := func(n int) []Block {
		var bs []Block
		for i := range n {
			bs = append(bs, Block{ID: fmt.Sprint(i), Role: RoleTool, Kind: KindToolResult, Content: fmt.Sprintf("result %03d %s\nsecond line", i, strings.Repeat("x", 80))})
		}
		return bs
	}
	tests := []struct {
		name      string
		rng       []Block
		wantLeft  int
		wantLines int // lines after the header
		first     string
		last      string
	}{
		{"short range kept whole", msgs(3), 0, 3, "result 000", "result 002"},
		// Each line is "- tool tool_result: result NNN xxx…" (111 bytes):
		// 4,000 bytes hold 35 lines at each end.
		{"long range cut in the middle", msgs(200), 130, 71, "result 000", "result 199"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, left := mechanicalExcerpt(tt.rng)
			if left != tt.wantLeft {
				t.Errorf("left = %d; want %d", left, tt.wantLeft)
			}
			if len(text) > excerptMax+len(excerptHeader)+200 {
				t.Errorf("excerpt is %d bytes; want at most about %d", len(text), excerptMax)
			}
			lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(text, excerptHeader), "\n"), "\n")
			if len(lines) != tt.wantLines {
				t.Errorf("%d lines; want %d", len(lines), tt.wantLines)
			}
			if !strings.Contains(lines[0], tt.first) || !strings.Contains(lines[len(lines)-1], tt.last) {
				t.Errorf("first %q, last %q; want %q … %q", lines[0], lines[len(lines)-1], tt.first, tt.last)
			}
			if tt.wantLeft > 0 && !strings.Contains(text, fmt.Sprintf("[… %d lines left out", tt.wantLeft)) {
				t.Errorf("no marker for %d lines left out in\n%s", tt.wantLeft, text)
			}
		})
	}
	// An excerpt of excerpts stays bounded: the earlier excerpt is carried
	// and cut again.
	first, _ := mechanicalExcerpt(msgs(200))
	again, left := mechanicalExcerpt(append([]Block{{ID: "s", Role: RoleUser, Kind: KindSummary, Content: first}}, msgs(200)...))
	if len(again) > excerptMax+len(excerptHeader)+200 || left == 0 {
		t.Errorf("excerpt of an excerpt: %d bytes, %d left out", len(again), left)
	}
}
