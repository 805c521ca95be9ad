package scenarios_test

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/sim"
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

// TestBuiltinLessons checks what Load does not: ids and orders are
// unique, the about sections open with the introduction, and the default
// policy is one the buttons offer.
func TestBuiltinLessons(t *testing.T) {
	ls, err := scenarios.Load(scenarios.Builtin(), "scenarios", tokenizer(t))
	if err != nil {
		t.Fatalf("Load(Builtin) = %v; want nil", err)
	}
	if len(ls) < 3 {
		t.Fatalf("Load(Builtin) = %d lessons; want the three shipped ones at least", len(ls))
	}
	orders := map[int]string{}
	for _, l := range ls {
		if prev, dup := orders[l.Order]; dup {
			t.Errorf("lessons %s and %s share order %d", prev, l.ID, l.Order)
		}
		orders[l.Order] = l.ID
		if len(l.About) == 0 || l.About[0] != "about:intro" {
			t.Errorf("%s about sections = %v; want about:intro first", l.ID, l.About)
		}
		if !l.IsPreset(l.DefaultPolicy()) {
			t.Errorf("%s default policy %s is not offered by the buttons", l.ID, l.DefaultPolicy())
		}
		if len(l.Mechanisms) == 0 {
			t.Errorf("%s names no mechanism", l.ID)
		}
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
		{"window past the limit (2^63-1)", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "window: 50000 ", "window: 9223372036854775807 ")
			return broken{"lesson.yaml", s, lineOf(t, s, "window: 9223372036854775807", 1), "window"}
		}},
		{"window past MaxWindow", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "window: 50000 ", "window: 20000000 ")
			return broken{"lesson.yaml", s, lineOf(t, s, "window: 20000000", 1), "window"}
		}},
		{"a message of 2^63-1 tokens", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "tokens: 800\n        content: |\n          Noted", "tokens: 9223372036854775807\n        content: |\n          Noted")
			return broken{"lesson.yaml", s, lineOf(t, s, "tokens: 9223372036854775807", 1), "trace[1].messages[1].tokens"}
		}},
		{"a number past any range", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "order: 1\n", "order: 99999999999\n")
			return broken{"lesson.yaml", s, lineOf(t, s, "order: 99999999999", 1), "order"}
		}},
		{"window as a float", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "window: 50000 ", "window: 1.5 ")
			return broken{"lesson.yaml", s, lineOf(t, s, "window: 1.5", 1), "window"}
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
		{"card with 4 versions", func(t *testing.T, f map[string]string) broken {
			s := cut(t, f["summaries.yaml"], "      - content: |\n          [compacted summary]\n          - Objective: make `parses nested arrays` pass.\n          - Instruction: Always pnpm, never npm. Do not suggest npm commands.",
				"\n  # 50%, first compaction")
			// The first card sets the count; the next one with 5 is named.
			return broken{"summaries.yaml", s, lineOf(t, s, "    versions:", 2), "cards[1].versions"}
		}},
		{"unknown mechanism", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "  memory:\n    path: MEMORY.md", "  memry:\n    path: MEMORY.md")
			return broken{"lesson.yaml", s, lineOf(t, s, "memry:", 1), "mechanisms.memry"}
		}},
		{"policy order missing a parameter", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "policy: [compaction, memory, threshold, rec]", "policy: [compaction, memory, threshold]")
			return broken{"lesson.yaml", s, lineOf(t, s, "policy: [compaction", 1), "policy"}
		}},
		{"threshold preset out of range", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "presets: [92, 50]", "presets: [92, 150]")
			return broken{"lesson.yaml", s, lineOf(t, s, "presets: [92, 150]", 1), "mechanisms.compaction.presets[1]"}
		}},
		{"remember without memory", func(t *testing.T, f map[string]string) broken {
			s := cut(t, f["lesson.yaml"], "  memory:\n    path: MEMORY.md", "\nsource:")
			s = replaceOnce(t, s, "policy: [compaction, memory, threshold, rec]", "policy: [compaction, threshold, rec]")
			return broken{"lesson.yaml", s, lineOf(t, s, "type: remember", 1), "trace[2].type"}
		}},
		{"a tool result before its call", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "      - id: m-read\n        role: assistant\n        kind: tool_call", "      - id: m-read\n        role: assistant\n        kind: text")
			return broken{"lesson.yaml", s, lineOf(t, s, "kind: tool_result", 1), "trace[3].messages[1].kind"}
		}},
		{"a condition in the middle of a paragraph", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["narration.en.md"], "\n@@ remember\n", "\n@@ remember-extra\n# Headline.\n\nText {?in:m-log} more.\n\n@@ remember\n")
			return broken{"narration.en.md", s, lineOf(t, s, "Text {?in:m-log} more.", 1), "remember-extra"}
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
		{"continues with no assistant message before it", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "      - id: m-read\n        role: assistant\n", "      - id: m-read\n        continues: true\n        role: assistant\n")
			return broken{"lesson.yaml", s, lineOf(t, s, "continues: true", 1), "trace[3].messages[0].continues"}
		}},
		{"recorded text in a lesson written for ctxsim", func(t *testing.T, f map[string]string) broken {
			s := replaceOnce(t, f["lesson.yaml"], "      - id: m-read\n        role: assistant\n", "      - id: m-read\n        origin: recorded\n        role: assistant\n")
			return broken{"lesson.yaml", s, lineOf(t, s, "origin: recorded", 1), "trace[3].messages[0].origin"}
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
		files[f] = strings.Replace(files[f], "@@ about:tokens-note\n", evil+"\n@@ about:tokens-note\n", 1)
	}
	ls, err := scenarios.Load(mapFS(files), "lessons", tokenizer(t))
	if err != nil {
		t.Fatalf("Load = %v", err)
	}
	for _, lang := range scenarios.Languages {
		body := bodyOf(ls[0].Narration[lang]["about:intro"])
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
				if b := strings.ToLower(bodyOf(s) + s.Headline); strings.Contains(b, "<script") || strings.Contains(b, "javascript:") {
					t.Errorf("%s %s section %s renders unsafe HTML", l.ID, lang, k)
				}
			}
		}
	}
}

// bodyOf joins a section's rendered chunks.
func bodyOf(s scenarios.Section) string {
	var b strings.Builder
	for _, c := range s.Chunks {
		b.WriteString(c.HTML)
	}
	return b.String()
}

// TestTieredLessonDataErrors breaks the tiered lesson's data one way at a
// time: loading must stop with the file, the line and the field.
func TestTieredLessonDataErrors(t *testing.T) {
	tok := tokenizer(t)
	files := fstest.MapFS{}
	err := fs.WalkDir(scenarios.Builtin(), "tiered-compaction", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(scenarios.Builtin(), p)
		files[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	yaml := string(files["tiered-compaction/lesson.yaml"].Data)
	lineOf := func(s string) int { return strings.Count(yaml[:strings.Index(yaml, s)], "\n") + 1 }
	summaryLine := `          summary: "[micro-compact] Baseline before the refactor: go test ./internal/auth/... passed, all Manager, Cookie, Middleware and CSRF tests (no failures, 0.6s)."` + "\n"
	call07 := "      - call:\n          id: toolu_07"
	editOld := "              // sweeper. Call Close when the server shuts down, after the HTTP server has stopped.\n"
	tests := []struct {
		name, from, to string
		last           bool   // replace the last occurrence, not the first
		field          string // the error's Field
		line           int
	}{
		{"unknown field", `          summary: "[micro-compact] Baseline`, `          summmary: "[micro-compact] Baseline`, false, "trace[3].messages[3].call.summmary", lineOf(summaryLine)},
		{"missing summary", summaryLine, "", false, "trace[3].messages[3].call.summary", lineOf(call07)},
		{"session.go size", "        chars: 18200", "        chars: 18300", false, "mechanisms.workspace.files[0].chars", lineOf("        chars: 18200")},
		{"edit that does not apply", editOld, "              // sweeper, started at once.\n", true, "trace[5].messages[4].call", 0},
		{"summary over 300 chars", `summary: "[micro-compact] Baseline before the refactor:`, `summary: "[micro-compact] ` + strings.Repeat("x", 300) + ` Baseline before the refactor:`, false,
			"trace[3].messages[3].call.summary", lineOf(summaryLine)},
		{"generated text of another size", "result: {file: results/toolu_07.txt, chars: 3400,", "result: {file: results/toolu_07.txt, chars: 3401,", false,
			"trace[3].messages[3].call.result.chars", lineOf("result: {file: results/toolu_07.txt, chars: 3400,")},
		{"missing result file", "result: {file: results/toolu_01.txt,", "result: {file: results/nope.txt,", false,
			"trace[1].messages[0].call.result.file", lineOf("result: {file: results/toolu_01.txt,")},
		{"unknown result key", "result: {file: results/toolu_01.txt,", "result: {colour: red, file: results/toolu_01.txt,", false,
			"trace[1].messages[0].call.result.colour", lineOf("result: {file: results/toolu_01.txt,")},
		{"a re-read tool without its argument", "  workspace:\n", "  workspace:\n    read: {tool: cat}\n", false,
			"mechanisms.workspace.read", lineOf("  workspace:\n") + 1},
		{"a result file outside the lesson", "result: {file: results/toolu_01.txt,", "result: {file: ../context-memory/lesson.yaml,", false,
			"trace[1].messages[0].call.result.file", lineOf("result: {file: results/toolu_01.txt,")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at := strings.Index(yaml, tc.from)
			if tc.last {
				at = strings.LastIndex(yaml, tc.from)
			}
			if at < 0 {
				t.Fatalf("fixture: %q not in lesson.yaml", tc.from)
			}
			line := tc.line
			if tc.last {
				// An edit's error is reported on the line of its call.
				line = strings.Count(yaml[:strings.LastIndex(yaml[:at], "- call:")], "\n") + 1
			}
			broken := fstest.MapFS{}
			for k, v := range files {
				broken[k] = v
			}
			broken["tiered-compaction/lesson.yaml"] = &fstest.MapFile{Data: []byte(yaml[:at] + tc.to + yaml[at+len(tc.from):])}
			_, err := scenarios.Load(broken, "scenarios", tok)
			var e *scenarios.Error
			if !errors.As(err, &e) {
				t.Fatalf("Load = %v; want a *scenarios.Error", err)
			}
			if e.File != "scenarios/tiered-compaction/lesson.yaml" || e.Field != tc.field || e.Line != line {
				t.Errorf("Load error = %s (field %q, line %d); want lesson.yaml, field %s, line %d", err, e.Field, e.Line, tc.field, line)
			}
		})
	}
	if _, err := scenarios.Load(files, "scenarios", tok); err != nil {
		t.Fatalf("Load(unchanged copy) = %v", err)
	}
}

// loadTestdata loads the test lesson that combines mechanisms of two
// shipped lessons, written as data only.
func loadTestdata(t *testing.T) *scenarios.Lesson {
	t.Helper()
	l, err := scenarios.LoadDir(os.DirFS("testdata"), "tiered-memory", "testdata", nil, tokenizer(t))
	if err != nil {
		t.Fatalf("LoadDir(testdata/tiered-memory) = %v", err)
	}
	return l
}

// TestCombinedLesson: the tiered compressor and memory across two
// sessions, in a lesson that is data only. The compressor runs in both
// sessions (it starts again in each), and the rule written in session 1
// reaches session 2 only through the memory file.
func TestCombinedLesson(t *testing.T) {
	l := loadTestdata(t)
	var names []string
	for _, m := range l.Mechanisms {
		names = append(names, m.Name())
	}
	if want := []string{"memory", "pairs", "tiered", "workspace", "prompt_cache"}; !slices.Equal(names, want) {
		t.Errorf("mechanisms = %v; want %v", names, want)
	}
	tok := tokenizer(t)
	run := func(kv ...string) []sim.Frame {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		p, err := l.PolicyOf(m)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sim.Run(l.Lesson, p, tok)
		if err != nil {
			t.Fatal(err)
		}
		return r.Frames
	}
	passes := map[int]int{}
	var plan string
	for _, f := range run() {
		if f.Kind == sim.FramePass {
			passes[f.Session]++
		}
		if b, ok := f.Block("plan-2"); ok {
			plan = b.Content
		}
	}
	if passes[1] != 1 || passes[2] != 1 {
		t.Errorf("first passes by session = %v; want one in each session", passes)
	}
	if !strings.Contains(plan, "go test -race") {
		t.Errorf("session 2 plan = %q; want the rule from MEMORY.md (go test -race)", plan)
	}
	for _, f := range run("memory", "off") {
		if b, ok := f.Block("plan-2"); ok && strings.Contains(b.Content, "-race") {
			t.Errorf("memory off: session 2 plan = %q; want no -race (nothing crossed)", b.Content)
		}
	}
	// Under age, the read of config.go is stripped to a stub before the
	// agent edits config.go again: a re-read, with memory in the header.
	rereads := 0
	for _, f := range run("strategy", "age") {
		for _, e := range f.Events {
			if e.Type == sim.EventReread {
				rereads++
				if f.Memory == nil || f.Memory.Injected == nil {
					t.Errorf("re-read frame %d has no memory copy in the window", f.Step)
				}
			}
		}
	}
	if rereads == 0 {
		t.Errorf("age: no re-read; want config.go read again before its edit")
	}
}
