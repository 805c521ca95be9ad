package sim_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var markLine = regexp.MustCompile(`^\[COMPRESSED\] \[Original: ([\d,]+) (\w+) → Compressed: ([\d,]+) (\w+)\]\n`)

// TestCompressedMarkSizes: the [COMPRESSED] line of every result the
// adaptive strategy compressed, in every preset of every lesson, gives the
// sizes of the texts the model is sent: the result's size before (its
// block in the frames before the pass) and the summary's (the block
// without the line), in tokens; never the characters of an excerpt.
func TestCompressedMarkSizes(t *testing.T) {
	tok, _ := loadTok()
	marks, fails := 0, 0
	for id, l := range everyLesson(t) {
		for _, p := range l.PresetPolicies() {
			frames := mustRun(t, l, p, tok)
			before := map[string]int{} // each block's tokens before it was marked
			for _, f := range frames {
				for _, b := range f.Blocks() {
					m := markLine.FindStringSubmatch(b.Content)
					if m == nil {
						before[b.ID] = b.Tokens
						continue
					}
					marks++
					orig, comp := number(m[1]), number(m[3])
					want := b.Tokens - tok.Count(m[0])
					if m[2] != "tokens" || m[4] != "tokens" || orig != before[b.ID] || comp != want {
						if fails++; fails > 20 {
							continue
						}
						t.Errorf("%s %s frame %d: %s marked %q on a %d-token block that had %d; want Original: %d tokens → Compressed: %d tokens",
							id, p, f.Step, b.ID, strings.TrimSpace(m[0]), b.Tokens, before[b.ID], before[b.ID], want)
					}
				}
			}
		}
	}
	if marks == 0 {
		t.Fatal("no [COMPRESSED] mark in any preset")
	}
	if fails > 20 {
		t.Errorf("%d wrong marks in all, 20 shown", fails)
	}
}

// number reads a figure written with thousands separators.
func number(s string) int {
	n, _ := strconv.Atoi(strings.ReplaceAll(s, ",", ""))
	return n
}
