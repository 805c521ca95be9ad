package importer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"ctxsim/authoring/summarizer"
	"ctxsim/authoring/transcript"
	"ctxsim/authoring/transcript/synth"
	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/sim"
)

var (
	tokOnce sync.Once
	tok     *tokens.Counter
	tokErr  error
)

func counter(t testing.TB) *tokens.Counter {
	t.Helper()
	tokOnce.Do(func() { tok, tokErr = tokens.New() })
	if tokErr != nil {
		t.Fatal(tokErr)
	}
	return tok
}

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// read reads a session file of the transcript package's test data,
// redacting as `ctxsim import` does (with alice's home).
func read(t testing.TB, name string) *transcript.Session {
	t.Helper()
	s, err := transcript.Read(filepath.Join("..", "transcript", "testdata", name), transcript.Options{Redact: true, Home: "/home/alice"})
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return s
}

// load loads the lesson directory an import wrote, as serve does.
func load(t testing.TB, dir, id string) *scenarios.Lesson {
	t.Helper()
	l, err := scenarios.LoadDir(os.DirFS(dir), id, dir, nil, counter(t))
	if err != nil {
		t.Fatalf("load %s: %v", id, err)
	}
	return l
}

// replayAll runs every preset policy and fails on a request that breaks a
// tool pair; it returns the replays by policy.
func replayAll(t testing.TB, l *scenarios.Lesson) map[string]*sim.Replay {
	t.Helper()
	out := map[string]*sim.Replay{}
	for _, p := range l.PresetPolicies() {
		r, err := sim.Run(l.Lesson, p, counter(t))
		if err != nil {
			t.Fatalf("run %s under %s: %v", l.ID, p, err)
		}
		for _, f := range r.Frames {
			if strings.Contains(f.Error, "tool_use") {
				t.Fatalf("%s under %s, frame %d: %s", l.ID, p, f.Step, f.Error)
			}
			for i, b := range f.Blocks() {
				if b.Role == sim.RoleTool && (i == 0 || f.Blocks()[i-1].ToolUseID != b.ToolUseID) {
					t.Fatalf("%s under %s, frame %d: result %s without its call before it", l.ID, p, f.Step, b.ID)
				}
			}
		}
		out[p.String()] = r
	}
	return out
}

func TestWriteFixtures(t *testing.T) {
	tests := []struct {
		file                                  string
		id                                    string
		steps, calls, compactions, usageCalls int
		window                                int
		draw                                  string
	}{
		{"cc_plain.jsonl", "session-cc-plain", 5, 3, 0, 4, 200000, "pairs"},
		{"cc_compaction.jsonl", "session-cc-compaction", 6, 2, 1, 4, 200000, "pairs"},
		{"cc_thinking.jsonl", "session-cc-thinking", 2, 0, 0, 1, 200000, "blocks"},
		{"oa_tools.json", "session-oa-tools", 3, 2, 0, 2, 128000, "pairs"},
		{"oa_array.json", "session-oa-array", 4, 1, 0, 0, 128000, "pairs"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			dir := t.TempDir()
			rep, err := Write(context.Background(), read(t, tt.file), Options{Dir: dir, Redacted: true, Now: now, Tokens: counter(t)})
			if err != nil {
				t.Fatal(err)
			}
			if rep.ID != tt.id || rep.Steps != tt.steps || rep.Calls != tt.calls || rep.Compactions != tt.compactions ||
				rep.UsageCalls != tt.usageCalls || rep.Window != tt.window {
				t.Errorf("report %+v; want id %s, %d steps, %d calls, %d compactions, %d usage calls, window %d",
					rep, tt.id, tt.steps, tt.calls, tt.compactions, tt.usageCalls, tt.window)
			}
			l := load(t, dir, tt.id)
			if l.Draw != tt.draw || l.Window != tt.window || len(l.Trace) != tt.steps {
				t.Errorf("lesson draw %s, window %d, %d steps; want %s, %d, %d", l.Draw, l.Window, len(l.Trace), tt.draw, tt.window, tt.steps)
			}
			rs := replayAll(t, l)
			if rep.Presets != len(rs) || rep.Policies != 1 || len(rs) < 27 {
				t.Errorf("the report says %d presets, %d replayed; the lesson has %d presets (want at least 27, 1 replayed)", rep.Presets, rep.Policies, len(rs))
			}
			for _, m := range l.Trace[0].Messages {
				if m.Origin != sim.OriginImported {
					t.Errorf("message %s has origin %q; want recorded", m.ID, m.Origin)
				}
			}
			leftovers, _ := filepath.Glob(filepath.Join(dir, ".import-*"))
			if len(leftovers) != 0 {
				t.Errorf("temporary directories left behind: %v", leftovers)
			}
		})
	}
}

// TestRecordedCompaction: the default policy replays the session's own
// compaction where it happened, with its recorded summary; the summary
// frame says where the text comes from and what of the range it kept.
func TestRecordedCompaction(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), read(t, "cc_compaction.jsonl"), Options{Dir: dir, Redacted: true, Now: now, Tokens: counter(t)}); err != nil {
		t.Fatal(err)
	}
	l := load(t, dir, "session-cc-compaction")
	r, err := sim.Run(l.Lesson, l.DefaultPolicy(), counter(t))
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var summary *sim.Block
	var panels []string
	for _, f := range r.Frames {
		kinds = append(kinds, string(f.Kind))
		if f.Kind == sim.FrameSummary {
			summary = f.Pending
			for _, p := range f.Panels {
				panels = append(panels, p.ID)
			}
		}
	}
	// Each step is shown as its model call's request; the last frame shows
	// the answer to the last one.
	want := "step step selected summary replaced step step step"
	if strings.Join(kinds, " ") != want {
		t.Errorf("frames %v; want %s", kinds, want)
	}
	if summary == nil || summary.Summary == nil || !summary.Summary.ModelWritten || summary.Summary.Card != "c1" ||
		!strings.HasPrefix(summary.Content, "This session is being continued") ||
		!strings.Contains(summary.Summary.Provenance.In("en"), "cc_compaction.jsonl (line 5)") {
		t.Fatalf("summary %+v; want card c1, recorded, the file's text and line", summary)
	}
	if !strings.Contains(strings.Join(panels, " "), "loss") {
		t.Errorf("the summary frame's panels are %v; want the loss view", panels)
	}
	last := r.Frames[len(r.Frames)-1]
	var ids []string
	for _, b := range last.Blocks() {
		ids = append(ids, b.ID)
	}
	if got := strings.Join(ids, " "); got != "system c1 u5 call-toolu_c2 result-toolu_c2 a8" {
		t.Errorf("the last request holds %s; want the header, the summary and what came after it", got)
	}
}

// TestProviderUsage: each model call with recorded usage carries it: the
// frame of its request has the provider's count, which is the window's
// total as the session happened, and the usage panel says both.
func TestProviderUsage(t *testing.T) {
	dir := t.TempDir()
	if _, err := Write(context.Background(), read(t, "cc_plain.jsonl"), Options{Dir: dir, Redacted: true, Now: now, Tokens: counter(t)}); err != nil {
		t.Fatal(err)
	}
	l := load(t, dir, "session-cc-plain")
	r, err := sim.Run(l.Lesson, l.DefaultPolicy(), counter(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, f := range r.Frames {
		for _, p := range f.Panels {
			if p.ID != "usage" {
				continue
			}
			seen++
			if len(p.Rows) != 2 || p.Rows[0].Key != "provider" || p.Rows[1].Key != "window" || f.Provider == nil ||
				p.Rows[0].Values[0].Value != f.Total || f.Provider.Tokens != f.Total {
				t.Errorf("frame %d (total %d): usage rows %+v, provider %+v; want provider and window, both the frame's total", f.Step, f.Total, p.Rows, f.Provider)
			}
		}
	}
	if seen != 4 {
		t.Errorf("%d frames show provider usage; want 4 (one per recorded model call)", seen)
	}
}

// TestWriteNeverOverwrites: importing onto an existing lesson fails, names
// the directory and leaves the lesson as it was.
func TestWriteNeverOverwrites(t *testing.T) {
	dir := t.TempDir()
	s := read(t, "cc_plain.jsonl")
	opt := Options{Dir: dir, Redacted: true, Now: now, Tokens: counter(t)}
	if _, err := Write(context.Background(), s, opt); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, filepath.Join(dir, "session-cc-plain"))
	opt.Now = now.Add(time.Hour)
	_, err := Write(context.Background(), s, opt)
	if err == nil || !strings.Contains(err.Error(), "session-cc-plain already exists") || !strings.Contains(err.Error(), "-id") {
		t.Fatalf("second import: %v; want an error naming the directory and -id", err)
	}
	if after := snapshot(t, filepath.Join(dir, "session-cc-plain")); after != before {
		t.Error("the second import changed the existing lesson")
	}
	opt.ID = "Bad ID"
	if _, err := Write(context.Background(), s, opt); err == nil || !strings.Contains(err.Error(), `"Bad ID"`) {
		t.Errorf("import with a bad id: %v; want an error naming it", err)
	}
	opt.ID = "second-copy"
	if _, err := Write(context.Background(), s, opt); err != nil {
		t.Errorf("import under another id: %v", err)
	}
}

// Braces in what the session names itself (its title, its file name)
// are text in the narration, never a placeholder: the lesson loads and
// shows them.
func TestBracesInTitle(t *testing.T) {
	dir := t.TempDir()
	s := read(t, "cc_plain.jsonl")
	s.Title, s.File = "Fix {config loader and {x}", "a{b}.jsonl"
	if _, err := Write(context.Background(), s, Options{Dir: dir, ID: "braces", Redacted: true, Now: now, Tokens: counter(t)}); err != nil {
		t.Fatal(err)
	}
	l := load(t, dir, "braces")
	sec, _ := l.Section("en", "about:intro")
	if !strings.Contains(sec.Headline, `Fix \{config loader and \{x}`) {
		t.Errorf("about:intro headline %q; want the title with its braces as text", sec.Headline)
	}
}

// An import that crashed or was killed left its hidden directory with the
// generated lesson; the next import into the same directory removes it,
// and leaves one a run that started after it holds.
func TestWriteRemovesCrashedImport(t *testing.T) {
	dir := t.TempDir()
	crashed := filepath.Join(dir, ".import-session-x-123")
	if err := os.MkdirAll(filepath.Join(crashed, "session-x"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(crashed, "session-x", "lesson.yaml"), []byte("id: session-x\n"), 0o644)
	past := time.Now().Add(-10 * time.Minute)
	os.Chtimes(crashed, past, past)
	later := filepath.Join(dir, ".import-session-y-456")
	os.Mkdir(later, 0o755)
	future := time.Now().Add(time.Hour)
	os.Chtimes(later, future, future)
	if _, err := Write(context.Background(), read(t, "cc_plain.jsonl"), Options{Dir: dir, Redacted: true, Now: now, Tokens: counter(t)}); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != ".import-session-y-456 session-cc-plain" {
		t.Errorf("after the import %s holds %q; want the lesson and the later run's directory only", dir, names)
	}
}

func snapshot(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		fmt.Fprintf(&b, "%s\n%s\n", p, data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestStartsFromSummary: a file that begins after a compaction starts the
// window with the summary it went on from.
func TestStartsFromSummary(t *testing.T) {
	s := &transcript.Session{Format: transcript.ClaudeCode, File: "resumed.jsonl", Model: "claude-sonnet-4-5",
		Messages: []transcript.Message{
			{Role: transcript.User, Text: "Go on with the migration."},
			{Role: transcript.Assistant, Text: "Done: both tables are migrated."},
		},
		Compactions: []transcript.Compaction{{Before: 0, Summary: "Summary: the user is migrating two tables; one is done.", Trigger: "manual", Line: 1}},
	}
	dir := t.TempDir()
	rep, err := Write(context.Background(), s, Options{Dir: dir, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	l := load(t, dir, rep.ID)
	first := l.Trace[0].Messages[0]
	if first.ID != "c1" || !strings.HasPrefix(first.Content, "Summary: the user is migrating") || len(l.Trace) != 3 {
		t.Errorf("first message %s %q, %d steps; want the summary c1 first and 3 steps", first.ID, first.Content, len(l.Trace))
	}
	if l.System.Origin != sim.OriginAuthored || !strings.Contains(l.System.Content, "does not record the system prompt") {
		t.Errorf("system %q (origin %s); want ctxsim's stand-in, authored", l.System.Content, l.System.Origin)
	}
	if l.Trace[1].Messages[0].Origin != sim.OriginImported {
		t.Errorf("the session's messages have origin %q; want recorded", l.Trace[1].Messages[0].Origin)
	}
}

// TestInterruptedCall: a call the session never got a result for gets a
// result that says so, and the pair stays whole under every policy.
func TestInterruptedCall(t *testing.T) {
	s := &transcript.Session{Format: transcript.ClaudeCode, File: "interrupted.jsonl",
		Messages: []transcript.Message{
			{Role: transcript.User, Text: "Run the build."},
			{Role: transcript.Assistant, Calls: []transcript.Call{{ID: "toolu_1", Name: "Bash", Args: `{"command":"make"}`}}},
			{Role: transcript.User, Text: "[Request interrupted by user]"},
		},
	}
	dir := t.TempDir()
	rep, err := Write(context.Background(), s, Options{Dir: dir, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	l := load(t, dir, rep.ID)
	replayAll(t, l)
	res := l.Trace[0].Messages[2] // the user's message, the call and its result: one step
	if res.Role != sim.RoleTool || res.Content != noResult {
		t.Errorf("the call's result is %s %q; want the no-result text", res.Role, res.Content)
	}
}

// TestWindowGrows: a session whose provider input went past the model
// family's window gets the next window up; -window keeps what it is given
// and warns when the replay does not fit.
func TestWindowGrows(t *testing.T) {
	big := strings.Repeat("lorem ipsum dolor sit amet ", 9000) // 12,182 tokens
	s := &transcript.Session{Format: transcript.ClaudeCode, File: "big.jsonl",
		Messages: []transcript.Message{
			{Role: transcript.User, Text: big},
			{Role: transcript.Assistant, Text: "Read it.", Usage: &transcript.Usage{Input: 10, CacheRead: 250000, Output: 5}},
		},
	}
	dir := t.TempDir()
	rep, err := Write(context.Background(), s, Options{Dir: dir, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Window != 1000000 {
		t.Errorf("window %d; want 1000000 (the provider counted 250010)", rep.Window)
	}
	rep, err = Write(context.Background(), s, Options{Dir: dir, ID: "small", Window: 8000, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Window != 8000 || rep.Peak < 8000 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "over the 8000-token window") {
		t.Errorf("window %d, peak %d, warnings %q; want 8000, a peak over it and a warning", rep.Window, rep.Peak, rep.Warnings)
	}
}

// TestSummarizer: with a summarizer, every range a preset compacts gets a
// model's summary (through a real HTTP fake), with its provenance; none
// is left to a mechanical excerpt.
func TestSummarizer(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		last := req.Messages[len(req.Messages)-1].Content
		fmt.Fprintf(w, `{"model":"fake-summarizer-1","choices":[{"message":{"role":"assistant","content":"Summary %d of %d characters: fixed cases; go test passes."}}]}`, n, len(last))
	}))
	defer fake.Close()
	c, err := summarizer.New(fake.URL+"/v1/chat/completions", "fake-summarizer", "")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "synthetic.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Write(f, synth.Options{Turns: 30, CompactEvery: 0, ResultChars: 1500, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := transcript.Read(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rep, err := Write(context.Background(), s, Options{Dir: dir, Window: 24000, Now: now, Tokens: counter(t), Summarizer: c})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Summarized == 0 || rep.Summarized != calls || rep.Mechanical != 0 {
		t.Fatalf("report: %d summarized (%d calls to the fake), %d mechanical; want every range summarized", rep.Summarized, calls, rep.Mechanical)
	}
	l := load(t, dir, rep.ID)
	found := false
	for _, r := range replayAll(t, l) {
		for _, fr := range r.Frames {
			if b := fr.Pending; b != nil && b.Summary != nil {
				if b.Summary.Mechanical {
					t.Fatalf("frame %d: a mechanical excerpt is left", fr.Step)
				}
				prov := b.Summary.Provenance.In("en")
				if !strings.HasPrefix(b.Content, "Summary ") || !strings.Contains(prov, "fake-summarizer-1") || !strings.Contains(prov, "not a summary the session itself recorded") {
					t.Errorf("frame %d: summary %q, provenance %q", fr.Step, b.Content, prov)
				}
				found = true
			}
		}
	}
	if !found {
		t.Fatal("no preset compacts: the test session is too small for its window")
	}
}

// TestWithoutSummarizer: the same session without a summarizer is compacted
// to mechanical excerpts under the threshold policies, and the report says
// how many ranges.
func TestWithoutSummarizer(t *testing.T) {
	path := filepath.Join(t.TempDir(), "synthetic.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Write(f, synth.Options{Turns: 30, ResultChars: 1500, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s, err := transcript.Read(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Write(context.Background(), s, Options{Dir: t.TempDir(), Window: 24000, Now: now, Tokens: counter(t), AllPresets: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mechanical == 0 || rep.Summarized != 0 || rep.Compactions != 0 || rep.Policies != rep.Presets {
		t.Errorf("report %+v; want every preset replayed, mechanical ranges, no summaries", rep)
	}
}

// TestLongResultCut: a tool result longer than an imported session's
// message may be (a 2 MiB build log) is cut to that size on a UTF-8
// boundary, says where it was cut, and the report warns; the lesson loads.
func TestLongResultCut(t *testing.T) {
	log := strings.Repeat("ビルドのログ line\n", (2<<20)/22)
	s := &transcript.Session{Format: transcript.ClaudeCode, File: "longlog.jsonl",
		Messages: []transcript.Message{
			{Role: transcript.User, Text: "Run the build."},
			{Role: transcript.Assistant, Calls: []transcript.Call{{ID: "toolu_1", Name: "Bash", Args: `{"command":"make"}`}}},
			{Role: transcript.Tool, CallID: "toolu_1", Text: log},
			{Role: transcript.Assistant, Text: "It built."},
		},
	}
	dir := t.TempDir()
	rep, err := Write(context.Background(), s, Options{Dir: dir, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	limit := scenarios.Imported().MessageBytes
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], fmt.Sprintf("1 texts longer than %d bytes were cut", limit)) {
		t.Errorf("warnings %q; want one saying a text was cut", rep.Warnings)
	}
	l := load(t, dir, rep.ID)
	res := l.Trace[0].Messages[2].Content // the user's message, the call and its result: one step
	if len(res) > limit || !utf8.ValidString(res) || !strings.HasSuffix(res, fmt.Sprintf("[… %d bytes cut by ctxsim import: a message of an imported session may have at most %d]", len(log), limit)) {
		t.Errorf("the result has %d bytes, valid UTF-8 %v, ends %q; want at most %d, valid, with the cut said", len(res), utf8.ValidString(res), res[max(0, len(res)-120):], limit)
	}
}

// TestTooLarge: a session whose lesson would hold more messages than an
// imported session may (20,000; a text, a tool call and its result each
// count one) is refused at the record of the first message past the
// limit, before the lesson is made; read with ReadLimits, a session with
// more messages than that is refused by the reader at the first record
// past them. The lines are found in the file itself.
func TestTooLarge(t *testing.T) {
	lim := scenarios.Imported().Messages
	// A turn of rounds 1 is 4 records and 5 messages of the lesson: the
	// prompt, the model's text and its call, the result, the answer.
	turns := lim/5 + 1
	path := filepath.Join(t.TempDir(), "long.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := synth.Write(f, synth.Options{Turns: lim/4 + 1, Rounds: 1, ResultChars: 10, Seed: 1}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(text string) int {
		i := strings.Index(string(data), text)
		if i < 0 {
			t.Fatalf("%q is not in the file", text)
		}
		return strings.Count(string(data[:i]), "\n") + 1
	}

	_, err = transcript.Read(path, ReadLimits(transcript.Options{}))
	var te *transcript.Error
	if !errors.As(err, &te) || !errors.Is(err, transcript.ErrTooLarge) || te.Line != lineOf(fmt.Sprintf("Synthetic turn %d:", lim/4+1)) {
		t.Errorf("Read with ReadLimits = %v; want ErrTooLarge at the record of turn %d (message %d of the session)", err, lim/4+1, lim+1)
	}

	s, err := transcript.Read(path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = Build(context.Background(), s, Options{Dir: t.TempDir(), Now: now, Tokens: counter(t)})
	if !errors.As(err, &te) || !errors.Is(err, transcript.ErrTooLarge) || te.Line != lineOf(fmt.Sprintf("Synthetic turn %d:", turns)) ||
		!strings.Contains(err.Error(), "more than 20000 messages") || strings.Contains(err.Error(), "a bug") {
		t.Errorf("Build = %v; want ErrTooLarge at the record of turn %d (lesson message %d), saying so", err, turns, lim+1)
	}
}
