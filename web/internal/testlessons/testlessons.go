// Package testlessons loads, once per test binary, the lessons the tests of
// web and web/page serve and check: the built-in ones, a data-only lesson
// that combines mechanisms, and imported sessions (real transcripts and
// synthetic ones). Only tests import it.
package testlessons

import (
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"ctxsim/authoring/importer"
	"ctxsim/authoring/transcript"
	"ctxsim/authoring/transcript/synth"
	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/sim"
)

// root is the module's directory: the test data lives beside the packages
// that read it, wherever the test runs.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// Builtin is the tokenizer and the built-in lessons.
var Builtin = sync.OnceValues(func() (Builtins, error) {
	tok, err := tokens.New()
	if err != nil {
		return Builtins{}, err
	}
	lessons, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	return Builtins{Tokens: tok, Lessons: lessons}, err
})

// Builtins are the built-in lessons and the tokenizer they were loaded
// with.
type Builtins struct {
	Tokens  sim.Tokenizer
	Lessons []*scenarios.Lesson
}

// Testdata loads the lesson dir of scenarios/testdata (such as
// tiered-memory, which combines the tiered compressor with memory across
// two sessions, written as data only).
func Testdata(dir string) (*scenarios.Lesson, error) {
	base, err := Builtin()
	if err != nil {
		return nil, err
	}
	return scenarios.LoadDir(os.DirFS(filepath.Join(root(), "scenarios", "testdata")), dir, "testdata", nil, base.Tokens)
}

// ImportedIDs are the ids of the Imported sessions.
var ImportedIDs = []string{"session-cc-compaction", "session-oa-tools", "session-synthetic", "session-grouped"}

// Imported are four imported sessions: a Claude Code file with a recorded
// compaction and provider usage, an OpenAI chat file with a system prompt
// and parallel calls, a synthetic Claude Code session long enough for
// every policy to compact and the compressor to run in a small window,
// and one with several model responses to a step and requests refused
// inside a step.
var Imported = sync.OnceValues(func() ([]*scenarios.Lesson, error) {
	return importSessions("ctxsim-imported-", func(dir string) ([]session, error) {
		synthetic := filepath.Join(dir, "synthetic.jsonl")
		if err := writeSynthetic(synthetic, synth.Options{Turns: 9, CompactEvery: 6, ResultChars: 1500, Seed: 5}); err != nil {
			return nil, err
		}
		// Several model responses to a step, and requests refused inside a
		// step: the narration names only the blocks each frame has seen.
		grouped := filepath.Join(dir, "grouped.jsonl")
		if err := writeSynthetic(grouped, synth.Options{Turns: 6, Rounds: 6, CompactEvery: 3, ResultChars: 1500, Seed: 7}); err != nil {
			return nil, err
		}
		testdata := filepath.Join(root(), "authoring", "transcript", "testdata")
		return []session{
			{path: filepath.Join(testdata, "cc_compaction.jsonl")},
			{path: filepath.Join(testdata, "oa_tools.json")},
			{path: synthetic, window: 6000},
			{path: grouped, window: 6000, steps: 12},
		}, nil
	})
})

// session is a session file importSessions imports: the window and the
// step cap it is imported with (0: the importer's), and its lesson id
// ("": the importer's).
type session struct {
	path          string
	window, steps int
	id            string
}

// importSessions imports the sessions list gives, as `ctxsim import` does
// with redaction (the home directory /home/alice) on a fixed date, and
// loads the lessons they become. list may write session files
// into dir, a temporary directory removed after the lessons are loaded.
func importSessions(prefix string, list func(dir string) ([]session, error)) ([]*scenarios.Lesson, error) {
	base, err := Builtin()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	sessions, err := list(dir)
	if err != nil {
		return nil, err
	}
	lessons := filepath.Join(dir, "lessons")
	for _, in := range sessions {
		s, err := transcript.Read(in.path, transcript.Options{Redact: true, Home: "/home/alice"})
		if err != nil {
			return nil, err
		}
		if _, err := importer.Write(context.Background(), s, importer.Options{Dir: lessons, ID: in.id, Window: in.window, MaxSteps: in.steps, Redacted: true,
			Now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), Tokens: base.Tokens}); err != nil {
			return nil, err
		}
	}
	return scenarios.Load(os.DirFS(lessons), "lessons", base.Tokens)
}

// writeSynthetic writes a synthetic Claude Code session to path.
func writeSynthetic(path string, o synth.Options) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := synth.Write(f, o); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// RealSession is the shared real Claude Code session (marot/spotter,
// MIT) in the transcript package's test data.
const RealSession = "claude-code-real/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

// CalibratedFile is a session file Calibrated imports, with the window
// it is imported at (0: the model family's) and the lesson id.
type CalibratedFile struct {
	Path   string // in transcript/testdata
	Window int
	ID     string
}

// CalibratedFiles are the sessions Calibrated imports: the shared real
// session, the shapes fixtures of Claude Code (unknown fields included),
// Codex and Gemini, and small Codex and Claude files with compactions,
// at their model family's window and at small windows that refuse and
// compact early.
var CalibratedFiles = []CalibratedFile{
	{RealSession, 0, "real"},
	{RealSession, 60000, "real-60k"},
	{"shapes/claude/small.jsonl", 0, "shape-cc-small"},
	{"shapes/claude/large.jsonl", 0, "shape-cc-large"},
	{"shapes/claude/large.jsonl", 2103, "shape-cc-large-2103"},
	{"shapes/claude/schema_drift.jsonl", 0, "shape-cc-drift"},
	{"shapes/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl", 0, "shape-cc-subagent"},
	{"shapes/codex/small.jsonl", 0, "shape-cx-small"},
	{"shapes/codex/small.jsonl", 2103, "shape-cx-small-2103"},
	{"shapes/codex/large.jsonl", 0, "shape-cx-large"},
	{"shapes/gemini/jsonl_v040.jsonl", 0, "shape-gemini"},
	{"cx_compaction.jsonl", 0, "cx-compaction"},
	{"cx_compaction.jsonl", 5000, "cx-compaction-5000"},
	{"cx_local_compaction.jsonl", 0, "cx-local-compaction"},
	{"cc_compaction.jsonl", 2103, "cc-compaction-2103"},
	{"cc_plain.jsonl", 5000, "cc-plain-5000"},
}

// Calibrated are the CalibratedFiles imported, by the importer, as serve
// loads them (in that order).
var Calibrated = sync.OnceValues(func() ([]*scenarios.Lesson, error) {
	testdata := filepath.Join(root(), "authoring", "transcript", "testdata")
	ls, err := importSessions("ctxsim-calibrated-", func(string) ([]session, error) {
		var sessions []session
		for _, in := range CalibratedFiles {
			sessions = append(sessions, session{path: filepath.Join(testdata, in.Path), window: in.Window, id: in.ID})
		}
		return sessions, nil
	})
	if err != nil {
		return nil, err
	}
	byID := map[string]*scenarios.Lesson{}
	for _, l := range ls {
		byID[l.ID] = l
	}
	out := make([]*scenarios.Lesson, len(CalibratedFiles))
	for i, in := range CalibratedFiles {
		out[i] = byID[in.ID]
	}
	return out, nil
})

// keyAt is what a missing catalog message reads like on a page: its key
// (catalog.Messages.T returns the key when the message is missing),
// matched from a start where a word begins.
var keyAt = regexp.MustCompile(`^(?:ui|panel|event|badge|kind|role|param|value|origin|cache|diff|legend|line|rules|counters|pass|cost|block|help|js)\.[a-z][a-z0-9_=-]*(?:\.[a-z0-9_=-]+)*`)

// keyPrefixes are the first words of catalogKey.
var keyPrefixes = map[string]bool{"ui": true, "panel": true, "event": true, "badge": true, "kind": true, "role": true, "param": true, "value": true, "origin": true,
	"cache": true, "diff": true, "legend": true, "line": true, "rules": true, "counters": true, "pass": true, "cost": true, "block": true, "help": true, "js": true}

// MissingKey is a catalog key a page shows as text (its message is
// missing), or "". What looks like a key inside one of texts (a lesson's
// own texts: a recorded session's code may read line.line_number) is not
// one.
func MissingKey(page string, texts ...string) string {
	for _, k := range catalogKeys(pageText(page)) {
		if !slices.ContainsFunc(texts, func(t string) bool { return strings.Contains(t, k) }) {
			return k
		}
	}
	return ""
}

// pageText is page's text: from each < to the next > a space (a > on
// its own too), entities decoded. The brackets are ASCII, so the page is
// cut only between characters.
func pageText(page string) string {
	var b strings.Builder
	b.Grow(len(page))
	for {
		i := strings.IndexAny(page, "<>")
		if i < 0 {
			b.WriteString(page)
			break
		}
		b.WriteString(page[:i])
		if page[i] == '<' {
			j := strings.IndexByte(page[i:], '>')
			if j < 0 {
				break // a tag open to the end: no more text
			}
			i += j
		}
		b.WriteByte(' ')
		page = page[i+1:]
	}
	return html.UnescapeString(b.String())
}

// catalogKeys are the matches of keyAt in text, each where a word begins
// (\b), in order and not overlapping, as FindAllString finds them, found without running the pattern over the
// whole page (its \b makes Go's regexp slow on a long text): a key starts
// with one of keyPrefixes followed by a dot, so each dot is a place to
// look. The word before a dot is its run of a–z letters; a match starts
// there when that run is a prefix and no letter, digit or _ comes before
// it (the \b).
func catalogKeys(text string) []string {
	var out []string
	end := 0 // where the last match ended: matches do not overlap
	for d := strings.IndexByte(text, '.'); d >= 0; {
		s := d
		for s > end && text[s-1] >= 'a' && text[s-1] <= 'z' {
			s--
		}
		if s >= end && keyPrefixes[text[s:d]] && (s == 0 || !wordByte(text[s-1])) {
			j := d
			for j < len(text) && keyByte(text[j]) {
				j++
			}
			if k := keyAt.FindString(text[s:j]); k != "" {
				out = append(out, k)
				end = s + len(k)
			}
		}
		next := strings.IndexByte(text[max(d+1, end):], '.')
		if next < 0 {
			break
		}
		d = max(d+1, end) + next
	}
	return out
}

// keyByte is a byte a key may hold.
func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("_=-.", c) >= 0
}

// wordByte is an ASCII letter, digit or _: what \b counts as a word.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
