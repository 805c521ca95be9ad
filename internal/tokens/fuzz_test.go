package tokens

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzCount holds Counter.Count, the token ids and the pieces to
// tiktoken-go and regexp2 on any input, valid UTF-8 or not. The seed
// corpus is testdata/fuzz/FuzzCount (one short text of every corpus kind
// and the edge cases below); run it longer with
//
//	go test ./tokens -run '^$' -fuzz FuzzCount -fuzztime 5m -parallel 2
func FuzzCount(f *testing.F) {
	ts := newTester(f)
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 16<<10 {
			return // tiktoken-go's merge is quadratic: keep each run short
		}
		ts := &tester{t: t, enc: ts.enc, ref: ts.ref}
		ts.same("input", text)
		ts.samePieces("input", text)
		c := &Counter{enc: ts.enc}
		if got, want := c.Count(text), len(ts.ref.Encode(text, nil, nil)); got != want {
			t.Errorf("Count(%q) = %d; tiktoken-go %d", text, got, want)
		}
	})
}

// fuzzSeeds are the edge cases of the pattern and the merge, and a short
// text of every corpus kind.
func fuzzSeeds() []string {
	seeds := []string{"", " ", "a", "\n", "\r\n", "  \n", " \t\n x", "'s", "'S", "it'LL", "I'M", "we'Re",
		"Hello, world!", "<|endoftext|>", "<|endofprompt|>x", "1234567", "x  ", "\u3000日本語。",
		"👨‍👩‍👧‍👦", "e\u0301\u0301", "\u0301a", "ǅa", "ʰa'd", "ABCdef", "ABC", "\xff\xfe", "a\xe2\x82",
		"//\n/", "?!\r\n/x", "\u00a0\u00a0a", "\u2028\u2029", "١٢٣٤", "Ⅻ²½", strings.Repeat("a", 200),
		strings.Repeat("=", 100), strings.Repeat(" ", 50) + "x"}
	g := newTextGen(3)
	for _, k := range textKinds {
		for range 3 {
			var b strings.Builder
			k.write(g, &b, 1+g.r.IntN(120))
			seeds = append(seeds, b.String())
		}
	}
	return seeds
}

var update = flag.Bool("update", false, "TestFuzzSeedCorpus: write the seed corpus")

// TestFuzzSeedCorpus keeps testdata/fuzz/FuzzCount equal to fuzzSeeds;
// run with -update to write it.
func TestFuzzSeedCorpus(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzCount")
	seeds := fuzzSeeds()
	for i, s := range seeds {
		name := filepath.Join(dir, "seed-"+strconv.Itoa(i))
		want := "go test fuzz v1\nstring(" + strconv.Quote(s) + ")\n"
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(name, []byte(want), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(name)
		if err != nil || string(got) != want {
			t.Errorf("%s is not seed %d (%v): run go test ./tokens -run TestFuzzSeedCorpus -update", name, i, err)
		}
	}
}
