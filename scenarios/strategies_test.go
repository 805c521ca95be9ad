package scenarios_test

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// builtinDir returns the files of a built-in lesson directory by name.
func builtinDir(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := fs.WalkDir(scenarios.Builtin(), dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(scenarios.Builtin(), p)
		out[strings.TrimPrefix(p, dir+"/")] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func dirFS(dir string, files map[string]string) fstest.MapFS {
	m := fstest.MapFS{}
	for f, s := range files {
		m[path.Join(dir, f)] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// TestStrategyLessonErrors: the fields the compression, history and
// subagent mechanisms, needs, agents and result sizes add are checked,
// with the file, line and field of the problem.
func TestStrategyLessonErrors(t *testing.T) {
	tok := tokenizer(t)
	tests := []struct {
		name, dir, file string
		old, new        string
		at              string // the text on the line the error names (its nth occurrence)
		nth             int
		field           string
	}{
		{"unknown strategy", "compression-strategies", "lesson.yaml",
			"    trigger: 80               # adaptive", "    strategies: [none, zip]\n    trigger: 80               # adaptive",
			"strategies: [none, zip]", 1, "mechanisms.compression.strategies[1]"},
		{"trigger out of range", "compression-strategies", "lesson.yaml",
			"    trigger: 80               # adaptive", "    trigger: 180              # adaptive", "trigger: 180", 1, "mechanisms.compression.trigger"},
		{"a card for no strategy", "compression-strategies", "summaries.yaml",
			"  - id: pr-1\n    strategy: per-result\n", "  - id: pr-1\n    strategy: zip\n", "strategy: zip", 1, "cards[0].strategy"},
		{"a card that covers a call", "compression-strategies", "summaries.yaml",
			"  - id: pr-1\n    strategy: per-result\n    covers: [r-1]\n", "  - id: pr-1\n    strategy: per-result\n    covers: [c-1]\n",
			"covers: [c-1]", 1, "cards[0].covers[0]"},
		{"two cards for one result", "compression-strategies", "summaries.yaml",
			"  - id: pr-2\n    strategy: per-result\n    covers: [r-2]\n", "  - id: pr-2\n    strategy: per-result\n    covers: [r-1]\n",
			"covers: [r-1]", 2, "cards[1].covers"},
		{"a prompt for no strategy", "compression-strategies", "summaries.yaml",
			"  per-result: \"Summarize this web page", "  zip: \"x\"\n  per-result: \"Summarize this web page", "zip:", 1, "prompts.zip"},
		{"chars on a call", "compression-strategies", "lesson.yaml",
			"        tokens: 28\n        content: 'search_web", "        tokens: 28\n        chars: 40\n        content: 'search_web",
			"chars: 40", 1, "trace[1].messages[0].chars"},
		{"chars below the excerpt", "compression-strategies", "lesson.yaml", "chars: 24000\n", "chars: 10\n", "chars: 10", 1, "trace[1].messages[1].chars"},
		{"tool on a result", "compression-strategies", "lesson.yaml",
			"      - id: r-1\n        role: tool\n", "      - id: r-1\n        tool: search_nothing\n        role: tool\n", "tool: search_nothing", 1, "trace[1].messages[1].tool"},
		{"a need keyed like a step", "compression-strategies", "lesson.yaml", "step: fetch-founders\n", "step: search-1\n",
			"        step: search-1", 1, "trace[7].needs[0].step"},
		{"a need of an unknown fact", "compression-strategies", "lesson.yaml", "- fact: founders-all\n", "- fact: no-such-fact\n",
			"fact: no-such-fact", 1, "trace[7].needs[0].fact"},
		{"a need that starts with a result", "compression-strategies", "lesson.yaml",
			"        step: fetch-founders\n        messages:\n          - id: c-f1\n            role: assistant\n            kind: tool_call\n            tool: fetch_webpage\n",
			"        step: fetch-founders\n        messages:\n          - id: c-f1\n            role: user\n            kind: text\n",
			"        messages:\n          - id: c-f1", 1, "trace[7].needs[0].messages"},
		{"a sliding window of one", "sliding-window", "lesson.yaml", "    messages: 10        # the seed", "    messages: 1         # the seed",
			"messages: 1 ", 1, "mechanisms.history.messages"},
		{"an unknown history", "sliding-window", "lesson.yaml", "choices: [sliding, full, adaptive]", "choices: [sliding, all]",
			"choices: [sliding, all]", 1, "mechanisms.history.choices[1]"},
		{"an unknown agent", "subagent-isolation", "lesson.yaml", "  - step: explore-2\n    agent: sub\n", "  - step: explore-2\n    agent: helper\n",
			"agent: helper", 1, "trace[2].agent"},
		{"a sub-agent's steps apart", "subagent-isolation", "lesson.yaml", "  - step: explore-2\n    agent: sub\n", "  - step: explore-2\n",
			"agent: sub", 2, "trace[3].agent"},
		{"a sub-agent ending on a result", "subagent-isolation", "lesson.yaml",
			"  - step: conclude\n    agent: sub\n", "  - step: conclude\n", "    messages:", 7, "trace[6].messages"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files := builtinDir(t, tc.dir)
			s := replaceOnce(t, files[tc.file], tc.old, tc.new)
			files[tc.file] = s
			_, err := scenarios.Load(dirFS(tc.dir, files), "lessons", tok)
			var e *scenarios.Error
			if !errors.As(err, &e) {
				t.Fatalf("Load = %v; want a *scenarios.Error", err)
			}
			line := lineOf(t, s, tc.at, tc.nth)
			if want := path.Join("lessons", tc.dir, tc.file); e.File != want || e.Field != tc.field || e.Line != line {
				t.Errorf("error %v (file %s, line %d, field %q); want %s:%d field %q", e, e.File, e.Line, e.Field, want, line, tc.field)
			}
		})
	}
}

// recordings is a recordings.yaml for context-memory's three cards, n
// recordings each.
func recordings(n int) string {
	var b strings.Builder
	b.WriteString("recordings:\n")
	for _, card := range []string{"s92", "s50a", "s50b"} {
		for i := range n {
			b.WriteString("  - card: " + card + "\n    content: \"Recorded summary " + string(rune('1'+i)) + " of " + card + ": always pnpm.\"\n" +
				"    model: qwen3-8b\n    endpoint: http://127.0.0.1:8081/v1/chat/completions\n    api: openai\n    date: 2026-12-01T10:00:00Z\n    prompt: \"Summarize.\"\n")
		}
	}
	return b.String()
}

// TestRecordingsLoad: the summaries ctxsim record stores beside a lesson
// become recorded versions of its cards, after the authored ones, with
// where they came from; a broken recordings file is named.
func TestRecordingsLoad(t *testing.T) {
	tok := tokenizer(t)
	files := original(t)
	files["recordings.yaml"] = recordings(2)
	ls, err := scenarios.Load(mapFS(files), "lessons", tok)
	if err != nil {
		t.Fatalf("Load with recordings: %v", err)
	}
	l := ls[0]
	m, _ := l.Mechanism("compaction")
	c := m.(sim.Compaction)
	if c.Versions != 7 {
		t.Fatalf("versions = %d; want 5 authored + 2 recorded", c.Versions)
	}
	v := c.Cards[0].Versions[5]
	if !v.ModelWritten || v.Content != "Recorded summary 1 of s92: always pnpm." || !strings.Contains(v.Provenance["en"], "qwen3-8b") ||
		!strings.Contains(v.Provenance["en"], "2026-12-01") || !strings.Contains(v.Provenance["ja"], "qwen3-8b") {
		t.Errorf("recorded version %+v", v)
	}
	if c.Cards[0].Versions[4].ModelWritten {
		t.Error("an authored version is marked recorded")
	}
	if pr, _ := l.Param("rec"); pr.Max != 7 {
		t.Errorf("rec goes to %d; want 7", pr.Max)
	}
	// Replayed with a recording, the summary is the recording, sized by
	// its own count.
	p, _ := l.PolicyOf(map[string]string{"rec": "6"})
	r, err := sim.Run(l.Lesson, p, tok)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range r.Frames {
		if b, ok := f.Block("s92"); ok {
			found = true
			if !b.Summary.ModelWritten || b.Tokens != tok.Count(b.Content) {
				t.Errorf("s92 under rec 6: recorded %v, %d tokens (count %d)", b.Summary.ModelWritten, b.Tokens, tok.Count(b.Content))
			}
		}
	}
	if !found {
		t.Error("no frame shows s92")
	}

	for _, tc := range []struct{ name, text, field string }{
		{"unknown card", strings.Replace(recordings(1), "card: s92", "card: s99", 1), "recordings[0].card"},
		{"bad date", strings.Replace(recordings(1), "date: 2026-12-01T10:00:00Z", "date: yesterday", 1), "recordings[0].date"},
		{"uneven", recordings(1) + "  - card: s92\n    content: x\n    model: m\n    endpoint: http://x/v1/messages\n    api: anthropic\n    date: 2026-12-01T10:00:00Z\n", "recordings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := original(t)
			files["recordings.yaml"] = tc.text
			_, err := scenarios.Load(mapFS(files), "lessons", tok)
			var e *scenarios.Error
			if !errors.As(err, &e) || e.Field != tc.field || !strings.HasSuffix(e.File, "recordings.yaml") {
				t.Errorf("Load = %v; want an error on recordings.yaml field %s", err, tc.field)
			}
		})
	}
}
