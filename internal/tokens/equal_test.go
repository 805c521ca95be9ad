package tokens

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/dlclark/regexp2"
	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// The reference: tiktoken-go v0.1.8 with its offline loader, which is what
// Counter used before it had its own tokenizer.
var reference = sync.OnceValues(func() (*tiktoken.Tiktoken, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	return tiktoken.GetEncoding(Encoding)
})

// o200kPattern is the pre-tokenizer pattern of tiktoken-go v0.1.8's
// o200k_base (encoding.go), compiled as NewCoreBPE compiles it.
var o200kPattern = regexp2.MustCompile(strings.Join([]string{
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`,
	`\p{N}{1,3}`,
	` ?[^\s\p{L}\p{N}]+[\r\n/]*`,
	`\s*[\r\n]+`,
	`\s+(?!\S)`,
	`\s+`,
}, "|"), regexp2.None)

type tester struct {
	t   testing.TB
	enc *encoder
	ref *tiktoken.Tiktoken
}

func newTester(t testing.TB) *tester {
	t.Helper()
	ref, err := reference()
	if err != nil {
		t.Fatalf("tiktoken-go: %v", err)
	}
	c, err := New()
	if err != nil {
		t.Fatalf("New() = %v", err)
	}
	return &tester{t: t, enc: c.enc, ref: ref}
}

// same fails the test unless text has the same token ids and count as
// tiktoken-go gives it; it reports the first token that differs.
func (ts *tester) same(name, text string) bool {
	ts.t.Helper()
	want := ts.ref.Encode(text, nil, nil)
	got := ts.enc.encode(text)
	n := ts.enc.count(text)
	if slices.Equal(got, want) && n == len(want) {
		return true
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	at := len(ts.ref.Decode(want[:i]))
	ts.t.Errorf("%s (%d bytes): %d tokens (count %d); tiktoken-go %d; first difference at token %d, byte %d: %q: got %v, want %v",
		name, len(text), len(got), n, len(want), i, at, around(text, at), got[i:min(i+4, len(got))], want[i:min(i+4, len(want))])
	return false
}

// around is a short excerpt of text from about byte at.
func around(text string, at int) string {
	at = min(at, len(text))
	return strings.ToValidUTF8(text[max(0, at-20):min(len(text), at+40)], "�")
}

// regexpPieces are the piece boundaries (byte ends) regexp2 finds in text.
func regexpPieces(t testing.TB, text string) []int {
	runes := []rune(text)
	var ends []int
	m, err := o200kPattern.FindRunesMatch(runes)
	pos, byteAt := 0, 0 // rune index and its byte offset
	for ; m != nil && err == nil; m, err = o200kPattern.FindNextMatch(m) {
		if m.Index != pos {
			t.Fatalf("regexp2 skipped runes %d to %d", pos, m.Index)
		}
		for _, r := range runes[pos : m.Index+m.Length] {
			byteAt += utf8.RuneLen(r)
		}
		pos = m.Index + m.Length
		ends = append(ends, byteAt)
	}
	if err != nil {
		t.Fatal(err)
	}
	return ends
}

// pieces are the piece boundaries pieceEnd finds in text.
func (ts *tester) pieces(text string) []int {
	var ends []int
	for i := 0; i < len(text); {
		i = ts.enc.classes.pieceEnd(text, i)
		ends = append(ends, i)
	}
	return ends
}

// samePieces fails the test unless pieceEnd cuts text where regexp2 does.
func (ts *tester) samePieces(name, text string) {
	ts.t.Helper()
	text = valid(text)
	got, want := ts.pieces(text), regexpPieces(ts.t, text)
	if slices.Equal(got, want) {
		return
	}
	i := 0
	for i < min(len(got), len(want)) && got[i] == want[i] {
		i++
	}
	start := 0
	if i > 0 {
		start = want[i-1]
	}
	end := func(ends []int) string {
		if i < len(ends) {
			return fmt.Sprintf("%q", text[start:ends[i]])
		}
		return "(none)"
	}
	ts.t.Errorf("%s: piece %d at byte %d (%q): got %s, regexp2 %s", name, i, start, around(text, start), end(got), end(want))
}

// TestEqualTiktokenGo compares a 3 MiB corpus, in every `go test` (about
// 3 s of CPU, nearly all of it tiktoken-go's).
func TestEqualTiktokenGo(t *testing.T) {
	ts := newTester(t)
	docs := corpus(1, 3<<20, 64<<10)
	size, failed := checkCorpus(ts, docs)
	t.Logf("%d documents, %.1f MB: token ids equal to tiktoken-go's in %d", len(docs), float64(size)/1e6, len(docs)-failed)
}

var large = flag.Bool("tokens.large", false, "TestEqualTiktokenGoLarge: compare 12 MiB more of the corpus (about 15 s)")

// TestEqualTiktokenGoLarge compares another 12 MiB of the corpus, other
// documents of larger sizes, when -tokens.large is set:
//
//	go test ./tokens -run Large -tokens.large -v
func TestEqualTiktokenGoLarge(t *testing.T) {
	if !*large {
		t.Skip("the 12 MiB comparison runs with -tokens.large")
	}
	ts := newTester(t)
	docs := corpus(2, 12<<20, 256<<10)
	size, failed := checkCorpus(ts, docs)
	t.Logf("%d documents, %.1f MB: token ids equal to tiktoken-go's in %d", len(docs), float64(size)/1e6, len(docs)-failed)
}

// checkCorpus compares every document's tokens and, for every fourth,
// pieces; it returns the bytes checked and the documents that differed.
func checkCorpus(ts *tester, docs []string) (size, failed int) {
	ts.t.Helper()
	kinds := map[string]int{}
	for i, doc := range docs {
		name := fmt.Sprintf("document %d (%s)", i, textKinds[i%len(textKinds)].name)
		kinds[textKinds[i%len(textKinds)].name] += len(doc)
		size += len(doc)
		if i%4 == 0 {
			ts.samePieces(name, doc)
		}
		if !ts.same(name, doc) {
			failed++
			if failed > 10 {
				ts.t.Fatalf("stopping after %d documents that differ", failed)
			}
		}
	}
	for _, k := range textKinds {
		if kinds[k.name] == 0 {
			ts.t.Errorf("the corpus has no %s text", k.name)
		}
	}
	return size, failed
}

// TestClassesMatchRegexp2 runs regexp2 with each character class of the
// pattern over every rune there is, and holds the classes pieceEnd uses
// to the runes it matched.
func TestClassesMatchRegexp2(t *testing.T) {
	tab := newClassTable()
	var runes []rune
	for r := range rune(utf8.MaxRune + 1) {
		if utf8.ValidRune(r) {
			runes = append(runes, r)
		}
	}
	class := func(r rune) uint8 { c, _ := tab.at(string(r), 0); return c }
	lower := func(r rune) rune { l, _ := lowerAt(string(r), 0); return l }
	for _, tt := range []struct {
		class string
		in    func(r rune) bool
	}{
		{`[^\r\n\p{L}\p{N}]`, func(r rune) bool { return isPrefix(class(r)) }},
		{`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, func(r rune) bool { return class(r)&clsU != 0 }},
		{`[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, func(r rune) bool { return class(r)&clsW != 0 }},
		{`\p{L}`, func(r rune) bool { return class(r)&clsL != 0 }},
		{`\p{N}`, func(r rune) bool { return class(r)&clsN != 0 }},
		{`[^\s\p{L}\p{N}]`, func(r rune) bool { return isPunct(class(r)) }},
		{`\s`, func(r rune) bool { return class(r)&clsSpace != 0 }},
		{`\S`, func(r rune) bool { return class(r)&clsSpace == 0 }},
		{`[\r\n]`, func(r rune) bool { return class(r)&clsCRLF != 0 }},
		// The contraction's letters: regexp2 matches each as a set does
		// (unicode.ToLower of the text's rune in it); which letter a rune
		// lowers to is unicode.ToLower's in both.
		{`(?i:['strevmld])`, func(r rune) bool { return strings.ContainsRune("'strevmld", lower(r)) }},
	} {
		matched := make([]bool, len(runes))
		re := regexp2.MustCompile(`(?:`+tt.class+`)+`, regexp2.None)
		m, err := re.FindRunesMatch(runes)
		for ; m != nil && err == nil; m, err = re.FindNextMatch(m) {
			for i := m.Index; i < m.Index+m.Length; i++ {
				matched[i] = true
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		bad, count := 0, 0
		for i, r := range runes {
			if matched[i] {
				count++
			}
			if tt.in(r) != matched[i] && bad < 5 {
				bad++
				t.Errorf("%s: %U: classified %v; regexp2 %v", tt.class, r, tt.in(r), matched[i])
			}
		}
		if count == 0 {
			t.Errorf("%s matched no rune", tt.class)
		}
	}
}

// TestRunesInContext puts runes in the contexts that tell the pattern's
// classes apart, and compares pieces and tokens: every rune below U+0800,
// where classes change most often, and every 61st above it (every rune's
// classes are held to regexp2's by TestClassesMatchRegexp2).
func TestRunesInContext(t *testing.T) {
	ts := newTester(t)
	var b strings.Builder
	flush := func(name string) {
		ts.samePieces(name, b.String())
		ts.same(name, b.String())
		b.Reset()
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if (r >= 0x800 && r%61 != 0) || !utf8.ValidRune(r) {
			continue
		}
		c := string(r)
		b.WriteString("a" + c + "A" + c + c + "1" + c + " " + c + "'S" + c + "\n" + c + ". " + c + "x")
		if b.Len() > 32<<10 {
			flush(fmt.Sprintf("runes to %U", r))
		}
	}
	flush("last runes")
}

// TestClassTable holds the class table to classOf for every rune it covers.
func TestClassTable(t *testing.T) {
	tab := newClassTable()
	for r := range rune(tableRunes) {
		if got, want := tab.bmp[r], classOf(r); got != want {
			t.Errorf("class of %U = %06b; want %06b", r, got, want)
		}
	}
}

// TestEqualTiktokenGoTranscripts compares the tokens of the real
// transcripts' texts (see transcriptTexts).
func TestEqualTiktokenGoTranscripts(t *testing.T) {
	ts := newTester(t)
	texts := transcriptTexts(t)
	size := 0
	for _, tx := range texts {
		ts.same(tx.name, tx.text)
		size += len(tx.text)
	}
	t.Logf("%d transcript texts, %.1f MB", len(texts), float64(size)/1e6)
}

type namedText struct{ name, text string }

// transcriptTexts are every string longer than 2 bytes in the shared
// transcripts, each once, and every fourth of their JSON lines whole.
func transcriptTexts(t testing.TB) []namedText {
	dir := transcriptsDir()
	var texts []namedText
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".jsonl") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for n, line := range strings.Split(string(data), "\n") {
			name := fmt.Sprintf("%s:%d", path, n+1)
			if n%4 == 0 {
				texts = append(texts, namedText{name, line})
			}
			var v any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				continue
			}
			walkStrings(v, func(s string) {
				if len(s) > 2 && !seen[s] {
					seen[s] = true
					texts = append(texts, namedText{name + " string", s})
				}
			})
		}
		return nil
	})
	if err != nil || len(texts) < 5000 {
		t.Fatalf("read the real transcripts in %s : %d texts, %v", dir, len(texts), err)
	}
	return texts
}

// transcriptsDir holds the real transcripts the repository ships as test
// data (the shared Claude Code session and the tools' field shapes, MIT,
// with their LICENSE files), in the transcript package.
func transcriptsDir() string { return "../../authoring/transcript/testdata" }

func walkStrings(v any, f func(string)) {
	switch v := v.(type) {
	case string:
		f(v)
	case []any:
		for _, e := range v {
			walkStrings(e, f)
		}
	case map[string]any:
		for _, e := range v {
			walkStrings(e, f)
		}
	}
}

// TestInvalidUTF8 holds invalid UTF-8 to tiktoken-go, which reads the
// text as runes: each byte of a bad sequence is one U+FFFD.
func TestInvalidUTF8(t *testing.T) {
	ts := newTester(t)
	for _, text := range []string{
		"\xff", "\xc3", "a\xc3", "\xc3(", "\xe2\x82", "\xe2\x82\xac\xe2\x82", "\xed\xa0\x80",
		"\xf0\x9f\x98", "\xf4\x90\x80\x80", "\xc0\xaf", "word\x80word", " \x80\x80\x80 ", "'\xffs",
		"\x80" + strings.Repeat("a", 100), "日本\xe6\x97語", "\ufffd\xff\ufffd", "1\xff2\xff3",
		string([]byte{0xe6, 0x97, 0xa5, 0xe6, 0x97}) + "\n\n", "abc\xff\xfe\xfd'LL",
	} {
		ts.same(fmt.Sprintf("%q", text), text)
	}
	g := newTextGen(7)
	for i := range 200 {
		raw := make([]byte, 1+g.r.IntN(300))
		for j := range raw {
			raw[j] = byte(g.r.Uint32())
		}
		ts.same(fmt.Sprintf("random bytes %d", i), string(raw))
	}
}

// TestLongRuns compares runs up to 6 KB of one rune or short string, where
// the merge takes its heap path (tiktoken-go's own merge is quadratic in
// them, so they are no longer).
func TestLongRuns(t *testing.T) {
	ts := newTester(t)
	for _, unit := range []string{"a", "A", "e", "ab", "aA", "=", "-", "*", "/", " ", "\n", "\t",
		"あ", "漢", "가", "👍", "\u0301", "0", "é", "ﬀ", ".\n", "\u00a0", "\u3000", "Aa", "xyz"} {
		for _, n := range []int{smallPiece - 1, smallPiece, smallPiece + 1, 100, 1000, 6000} {
			text := strings.Repeat(unit, max(1, n/len(unit)))
			ts.same(fmt.Sprintf("%d × %q", n/len(unit), unit), text)
			ts.samePieces(fmt.Sprintf("%d × %q", n/len(unit), unit), text)
		}
	}
}
