package scenarios_test

import (
	"errors"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/tokens"
)

var loadTok = sync.OnceValues(tokens.New)

func tokenizer(t *testing.T) *tokens.Counter {
	t.Helper()
	tok, err := loadTok()
	if err != nil {
		t.Fatalf("tokens.New: %v", err)
	}
	return tok
}

const lessonDir = "context-memory"

var lessonFiles = []string{"lesson.yaml", "summaries.yaml", "narration.en.md", "narration.ja.md"}

// original returns the built-in context-memory files by name.
func original(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range lessonFiles {
		b, err := fs.ReadFile(scenarios.Builtin(), path.Join(lessonDir, f))
		if err != nil {
			t.Fatalf("read built-in %s: %v", f, err)
		}
		out[f] = string(b)
	}
	return out
}

func mapFS(files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for f, s := range files {
		m[path.Join(lessonDir, f)] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// replaceOnce replaces old, which must occur exactly once in s.
func replaceOnce(t *testing.T, s, old, new string) string {
	t.Helper()
	if n := strings.Count(s, old); n != 1 {
		t.Fatalf("fixture: %q occurs %d times; want exactly once", old, n)
	}
	return strings.Replace(s, old, new, 1)
}

// lineOf returns the 1-based line of the nth (1-based) occurrence of needle.
func lineOf(t *testing.T, s, needle string, nth int) int {
	t.Helper()
	off := 0
	for k := 1; ; k++ {
		i := strings.Index(s[off:], needle)
		if i < 0 {
			t.Fatalf("fixture: occurrence %d of %q not found", nth, needle)
		}
		if k == nth {
			return strings.Count(s[:off+i], "\n") + 1
		}
		off += i + len(needle)
	}
}

// cut removes the text from start (inclusive) to end (exclusive), both of
// which must occur once.
func cut(t *testing.T, s, start, end string) string {
	t.Helper()
	i := strings.Index(s, start)
	if i < 0 || strings.Count(s, start) != 1 {
		t.Fatalf("fixture: start %q must occur once", start)
	}
	j := strings.Index(s[i:], end)
	if j < 0 {
		t.Fatalf("fixture: end %q not found after %q", end, start)
	}
	return s[:i] + s[i+j:]
}

func TestLoadBuiltin(t *testing.T) {
	tok := tokenizer(t)
	ls, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	if err != nil {
		t.Fatalf("Load(Builtin) = %v; want nil", err)
	}
	var lesson *scenarios.Lesson
	for _, l := range ls {
		if l.ID == lessonDir {
			lesson = l
		}
	}
	if lesson == nil {
		t.Fatalf("Load(Builtin) has no %s lesson", lessonDir)
	}
	for _, l := range ls {
		t.Run(l.ID, func(t *testing.T) {
			for _, lang := range scenarios.Languages {
				for _, k := range scenarios.RequiredSections {
					if _, ok := l.Narration[lang][k]; !ok {
						t.Errorf("%s narration.%s.md lacks required section %q", l.ID, lang, k)
					}
				}
			}
			policies := sim.PresetPolicies(l.Lesson)
			if len(policies) == 0 {
				t.Fatal("no preset policies")
			}
			frames := 0
			for _, p := range policies {
				fs, err := sim.Run(l.Lesson, p, tok)
				if err != nil {
					t.Fatalf("Run(%+v): %v", p, err)
				}
				for _, f := range fs {
					frames++
					for _, lang := range scenarios.Languages {
						s, ok := l.Section(lang, f.Narration...)
						if !ok || s.Headline == "" {
							t.Errorf("Run(%+v) frame %d: no %s section for any of %v", p, f.Step, lang, f.Narration)
							continue
						}
						// No silent fallback to English: the section is in lang itself.
						if own, ok := l.Narration[lang][s.Key]; !ok || own != s {
							t.Errorf("Run(%+v) frame %d: %s section for %v is %q, not from narration.%s.md", p, f.Step, lang, f.Narration, s.Key, lang)
						}
					}
				}
			}
			if frames == 0 {
				t.Error("no frames checked")
			}
		})
	}
}

func TestNarrationKeySets(t *testing.T) {
	ls, err := scenarios.Load(scenarios.Builtin(), "scenarios", tokenizer(t))
	if err != nil {
		t.Fatalf("Load(Builtin) = %v", err)
	}
	for _, l := range ls {
		t.Run(l.ID, func(t *testing.T) {
			keys := func(lang string) []string {
				var out []string
				for k := range l.Narration[lang] {
					out = append(out, k)
				}
				slices.Sort(out)
				return out
			}
			en := keys("en")
			for _, lang := range scenarios.Languages[1:] {
				if other := keys(lang); !slices.Equal(en, other) {
					t.Errorf("narration keys differ: en %v, %s %v", en, lang, other)
				}
			}
			if len(en) == 0 {
				t.Error("no narration sections")
			}
		})
	}
	// The same, on the raw files, independent of the parser.
	files := original(t)
	raw := func(f string) []string {
		var out []string
		for _, line := range strings.Split(files[f], "\n") {
			if k, ok := strings.CutPrefix(line, "@@ "); ok {
				out = append(out, strings.TrimSpace(k))
			}
		}
		slices.Sort(out)
		return out
	}
	if en, ja := raw("narration.en.md"), raw("narration.ja.md"); !slices.Equal(en, ja) || len(en) == 0 {
		t.Errorf("raw @@ keys differ:\n en %v\n ja %v", en, ja)
	}
}

func TestLoadErrors(t *testing.T) {
	tok := tokenizer(t)
	type broken struct {
		file  string // the file that is broken, and that the error must name
		text  string // its broken text
		line  int    // expected 1-based line; 0 when not on one line
		field string // expected in Field (or in Msg when Field is empty)
	}
	tests := []struct {
		name   string
		break_ func(t *testing.T, files map[string]string) broken
	}{
		{"wrong type", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "window: 50000 ", "window: abc   ")
			return broken{"lesson.yaml", s, lineOf(t, s, "window: abc", 1), "window"}
		}},
		{"wrong type in a message", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "tokens: 800\n        content: |\n          Noted", "tokens: 0.8k\n        content: |\n          Noted")
			return broken{"lesson.yaml", s, lineOf(t, s, "tokens: 0.8k", 1), "trace[1].messages[1].tokens"}
		}},
		{"unknown field", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "order: 1\n", "order: 1\ncolour: red\n")
			return broken{"lesson.yaml", s, lineOf(t, s, "colour: red", 1), "colour"}
		}},
		{"missing tokens on a message", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "        tokens: 500\n        content: |\n          The parser test",
				"        content: |\n          The parser test")
			// The message without tokens is the one whose item starts here.
			return broken{"lesson.yaml", s, lineOf(t, s, "- id: m-task", 1), "trace[1].messages[0].tokens"}
		}},
		{"bad role", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "id: m-ack\n        role: assistant", "id: m-ack\n        role: robot")
			return broken{"lesson.yaml", s, lineOf(t, s, "role: robot", 1), "trace[1].messages[1].role"}
		}},
		{"duplicate message id", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "- id: m-ack\n", "- id: m-task\n")
			return broken{"lesson.yaml", s, lineOf(t, s, "- id: m-task", 2), "trace[1].messages[1].id"}
		}},
		{"unknown fact in an answer", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "tokens: 600\n        answer:\n          fact: pnpm-rule",
				"tokens: 600\n        answer:\n          fact: no-such-fact")
			return broken{"lesson.yaml", s, lineOf(t, s, "fact: no-such-fact", 1), "trace[4].messages[0].answer.fact"}
		}},
		{"card covers an unknown block", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["summaries.yaml"], "covers: [m-task, m-ack, m-read, m-file, m-diag]",
				"covers: [m-task, m-ghost, m-read, m-file, m-diag]")
			return broken{"summaries.yaml", s, lineOf(t, s, "m-ghost", 1), "cards[0].covers[1]"}
		}},
		{"card with 4 recordings", func(t *testing.T, f map[string]string) broken {
			s := cut(t, f["summaries.yaml"], "      - content: |\n          [compacted summary]\n          - Objective: make `parses nested arrays` pass.\n          - Instruction: Always pnpm, never npm. Do not suggest npm commands.",
				"\n  # 50%, first compaction")
			// The field named is the first card's recordings list.
			return broken{"summaries.yaml", s, lineOf(t, s, "    recordings:", 1), "cards[0].recordings"}
		}},
		{"narration missing a key in ja", func(t *testing.T, f map[string]string) broken {
			s := cut(t, f["narration.ja.md"], "@@ remember\n", "@@ remember@no-memory\n")
			return broken{"narration.ja.md", s, 0, "remember"}
		}},
		{"narration section without a headline", func(t *testing.T, f map[string]string) broken {
			s := cut(t, f["narration.en.md"], "# remember() writes the pnpm rule", "\nLook at the MEMORY.md panel")
			// The line where the headline should be, now body text.
			return broken{"narration.en.md", s, lineOf(t, s, "Look at the MEMORY.md panel", 1), "remember"}
		}},
		{"narration section that is empty", func(t *testing.T, f map[string]string) broken {
			s := f["narration.en.md"] + "\n@@ empty-at-end\n\n"
			return broken{"narration.en.md", s, lineOf(t, s, "@@ empty-at-end", 1), "empty-at-end"}
		}},
		{"empty lesson.yaml", func(t *testing.T, f map[string]string) broken {
			return broken{"lesson.yaml", "", 0, "empty"}
		}},
		{"id not matching the directory", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "id: context-memory\n", "id: other-lesson\n")
			return broken{"lesson.yaml", s, lineOf(t, s, "id: other-lesson", 1), "id"}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := original(t)
			b := tc.break_(t, files)
			files[b.file] = b.text
			ls, err := scenarios.Load(mapFS(files), "lessons", tok)
			if err == nil {
				t.Fatalf("Load(%s) = %d lessons, nil error; want an error", tc.name, len(ls))
			}
			var e *scenarios.Error
			if !errors.As(err, &e) {
				t.Fatalf("Load(%s) error = %v (%T); want *scenarios.Error", tc.name, err, err)
			}
			if want := path.Join("lessons", lessonDir, b.file); e.File != want {
				t.Errorf("Load(%s) error file = %q; want %q", tc.name, e.File, want)
			}
			if e.Line != b.line {
				t.Errorf("Load(%s) error line = %d; want %d (%v)", tc.name, e.Line, b.line, e)
			}
			// The field is named in Field; a problem that is not about one
			// field (an empty file) says what it is in Msg.
			if b.line == 0 && e.Field == "" {
				if !strings.Contains(e.Msg, b.field) {
					t.Errorf("Load(%s) error msg %q; want it to say %q", tc.name, e.Msg, b.field)
				}
			} else if e.Field != b.field {
				t.Errorf("Load(%s) error field = %q (msg %q); want %q", tc.name, e.Field, e.Msg, b.field)
			}
			if !strings.Contains(e.Error(), b.file) {
				t.Errorf("Load(%s) error text %q does not name %s", tc.name, e.Error(), b.file)
			}
		})
	}
}

func TestLoadUnchangedCopy(t *testing.T) {
	// The fixtures above start from this copy; it must load.
	if _, err := scenarios.Load(mapFS(original(t)), "lessons", tokenizer(t)); err != nil {
		t.Fatalf("Load(copy of the built-in lesson) = %v; want nil", err)
	}
}

func TestMarkdownSafety(t *testing.T) {
	files := original(t)
	const evil = "\n<script>alert(1)</script>\n\nA [x](javascript:alert(1)) link, <script>alert(2)</script> inline, and <a href=\"javascript:alert(3)\">y</a>.\n\n[z]: javascript:alert(4)\n\nSee [z].\n"
	for _, f := range []string{"narration.en.md", "narration.ja.md"} {
		files[f] = strings.Replace(files[f], "@@ tokens-note\n", evil+"\n@@ tokens-note\n", 1)
	}
	ls, err := scenarios.Load(mapFS(files), "lessons", tokenizer(t))
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	for _, lang := range scenarios.Languages {
		body := ls[0].Narration[lang]["intro"].Body
		// The injected text reached the renderer: the link is kept without
		// its target and the raw HTML is replaced by goldmark's marker.
		if !strings.Contains(body, `<a href="">x</a>`) || !strings.Contains(body, "raw HTML omitted") {
			t.Fatalf("%s intro body does not show the injected text was rendered safely:\n%s", lang, body)
		}
		for _, bad := range []string{"<script", "javascript:"} {
			if strings.Contains(strings.ToLower(body), bad) {
				t.Errorf("%s intro body contains %q:\n%s", lang, bad, body)
			}
		}
	}
	// And nothing of the built-in narration renders either.
	ls, err = scenarios.Load(scenarios.Builtin(), "scenarios", tokenizer(t))
	if err != nil {
		t.Fatalf("Load(Builtin) = %v", err)
	}
	for _, l := range ls {
		for lang, secs := range l.Narration {
			for k, s := range secs {
				if b := strings.ToLower(s.Body + s.Headline); strings.Contains(b, "<script") || strings.Contains(b, "javascript:") {
					t.Errorf("%s %s section %s renders unsafe HTML", l.ID, lang, k)
				}
			}
		}
	}
}
