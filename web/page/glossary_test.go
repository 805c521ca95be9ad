package page

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// TestJapaneseGlossary: the Japanese catalog and every Japanese narration
// use the glossary's words (docs/glossary.ja.md), write no English word
// outside code, placeholders, quoted data and the glossary's names, and
// keep one register: a sentence ends in です/ます, never in a plain form.
func TestJapaneseGlossary(t *testing.T) {
	root := moduleRoot()
	g := readGlossary(t, filepath.Join(root, "docs", "glossary.ja.md"))
	if len(g.forbidden) < 5 || len(g.names) < 10 {
		t.Fatalf("the glossary lists %d words not to use and %d names: it was not read", len(g.forbidden), len(g.names))
	}
	var texts []jaText
	texts = append(texts, catalogTexts(t, filepath.Join(root, "views", "catalog", "ja.yaml"))...)
	files, _ := filepath.Glob(filepath.Join(root, "scenarios", "*", "narration.ja.md"))
	if len(files) < 10 {
		t.Fatalf("%d Japanese narrations found", len(files))
	}
	for _, f := range files {
		texts = append(texts, narrationTexts(t, f)...)
	}
	for _, x := range texts {
		body := prose(x.text)
		for _, w := range g.forbidden {
			if strings.Contains(body, w) {
				t.Errorf("%s: %q (the glossary says not to use it): %s", x.where, w, x.text)
			}
		}
		for _, w := range latinWord.FindAllString(body, -1) {
			if !g.allowed(w) {
				t.Errorf("%s: the English word %q: %s", x.where, w, x.text)
			}
		}
		for _, s := range sentences(body) {
			if plainEnd(s) {
				t.Errorf("%s: a sentence in plain form (です/ます is the register): %q", x.where, s)
			}
		}
	}
}

// TestJapaneseGlossaryCatches: the checks find what they are for.
func TestJapaneseGlossaryCatches(t *testing.T) {
	g := glossary{forbidden: []string{"窓"}, names: map[string]bool{"Claude": true}}
	for _, tt := range []struct {
		text          string
		word, english bool
		plain         bool
	}{
		{"窓の中の token 数", true, true, false},
		{"ウィンドウの中のトークン数です。", false, false, false},
		{"読んだのはサブエージェントだけだ。", false, false, true},
		{"*No compaction* では会話が伸びます。", false, true, false},
		{"`pnpm add` と「Always pnpm」、{total} と Claude。", false, false, false},
		{"ツールの結果を読みました。", false, false, false},
	} {
		body := prose(tt.text)
		word := strings.Contains(body, "窓")
		english := false
		for _, w := range latinWord.FindAllString(body, -1) {
			english = english || !g.allowed(w)
		}
		plain := false
		for _, s := range sentences(body) {
			plain = plain || plainEnd(s)
		}
		if word != tt.word || english != tt.english || plain != tt.plain {
			t.Errorf("%q: forbidden word %v, English %v, plain %v; want %v, %v, %v", tt.text, word, english, plain, tt.word, tt.english, tt.plain)
		}
	}
}

// glossary is what docs/glossary.ja.md says: words not to use, and the
// names written in Latin letters.
type glossary struct {
	forbidden []string
	names     map[string]bool
}

// latinWord is a run of Latin letters, with what may join them inside a
// name (file names, paths, versions).
var latinWord = regexp.MustCompile(`[.~/]?[A-Za-z][A-Za-z0-9_.\-/#<>*]*`)

// allowed reports whether a Latin word may stand in Japanese prose: a name
// of the glossary, an acronym, a single letter, or a file name, path or
// identifier (it holds a dot, slash, underscore or digit).
func (g glossary) allowed(w string) bool {
	return g.names[w] || len(w) <= 1 || strings.ToUpper(w) == w || strings.ContainsAny(w, "./_#<>0123456789")
}

func readGlossary(t *testing.T, path string) glossary {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("the Japanese glossary: %v", err)
	}
	defer f.Close()
	g := glossary{names: map[string]bool{}}
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case section == "訳語" && strings.HasPrefix(line, "|") && !strings.HasPrefix(line, "|---"):
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) == 3 && strings.TrimSpace(cells[0]) != "英語" {
				for _, w := range strings.Split(cells[2], "、") {
					if w = strings.TrimSpace(w); w != "" {
						g.forbidden = append(g.forbidden, w)
					}
				}
			}
		case section == "ラテン文字のまま書く語" && (strings.HasPrefix(line, "- ") || strings.HasPrefix(line, "  ")):
			list := line
			if _, after, ok := strings.Cut(line, ":"); ok {
				list = after
			}
			for _, n := range strings.Split(list, ",") {
				for _, w := range strings.Fields(n) {
					g.names[w] = true
				}
			}
		}
	}
	return g
}

// jaText is one text to check and where it is.
type jaText struct{ where, text string }

// catalogTexts are the values of the Japanese catalog.
func catalogTexts(t *testing.T, path string) []jaText {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []jaText
	for i, line := range strings.Split(string(b), "\n") {
		key, val, ok := strings.Cut(line, ":")
		if !ok || strings.HasPrefix(line, "#") || strings.HasPrefix(key, " ") {
			continue
		}
		val = strings.TrimSpace(val)
		val = strings.TrimSuffix(strings.TrimPrefix(val, `"`), `"`)
		out = append(out, jaText{where: "views/catalog/ja.yaml:" + itoa(i+1) + " " + key, text: val})
	}
	return out
}

// narrationTexts are the lines of a Japanese narration but its section
// keys and figure lists.
func narrationTexts(t *testing.T, path string) []jaText {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rel := filepath.Join(filepath.Base(filepath.Dir(path)), filepath.Base(path))
	var out []jaText
	section := ""
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "@@") {
			section = strings.TrimSpace(strings.TrimPrefix(line, "@@"))
			continue
		}
		if section == "figures" || strings.TrimSpace(line) == "" {
			continue
		}
		out = append(out, jaText{where: rel + ":" + itoa(i+1), text: line})
	}
	return out
}

// prose is a text without what is not prose: code spans, placeholders and
// conditions, quoted data, links' addresses and block quotes.
func prose(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), ">") {
		return ""
	}
	for _, re := range []*regexp.Regexp{codeSpan, placeholder, placeholder, quoted, quotedEN, linkURL} {
		s = re.ReplaceAllString(s, " ")
	}
	return s
}

var (
	codeSpan    = regexp.MustCompile("`[^`]*`")
	placeholder = regexp.MustCompile(`\{[^{}]*\}`)
	quoted      = regexp.MustCompile(`「[^」]*」`)
	quotedEN    = regexp.MustCompile(`"[^"]*"`)
	linkURL     = regexp.MustCompile(`\]\([^)]*\)|https?://\S+|\?[a-z]+=\S*`)
)

// sentences are the parts of a text that end with 。.
func sentences(s string) []string {
	var out []string
	for _, part := range strings.SplitAfter(s, "。") {
		if strings.HasSuffix(part, "。") {
			out = append(out, strings.TrimSpace(part))
		}
	}
	return out
}

// plainEnd reports whether a sentence ends in a plain form (…だ。…する。
// …した。…ない。) rather than です/ます or a noun.
func plainEnd(s string) bool {
	s = strings.TrimSuffix(s, "。")
	s = strings.TrimRight(s, " *）)」")
	for _, polite := range []string{"です", "ます", "でした", "ました", "ません", "でしょう", "ましょう", "ください"} {
		if strings.HasSuffix(s, polite) {
			return false
		}
	}
	r := []rune(s)
	return len(r) > 0 && strings.ContainsRune("るただいうくすつぬむぶぐず", r[len(r)-1])
}

// moduleRoot is the module's directory.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
