package recorder

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ctxsim/authoring/summarizer"
	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
)

var loadTok = sync.OnceValues(tokens.New)

// copyLesson copies a built-in lesson directory to a temporary lessons
// directory and returns that directory.
func copyLesson(t *testing.T, id string) string {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(scenarios.Builtin(), id, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dir, p), 0o755)
		}
		data, err := fs.ReadFile(scenarios.Builtin(), p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dir, p), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// request is what a fake endpoint was sent.
type request struct {
	system, user string
}

// fakeEndpoint answers like an OpenAI- or Anthropic-compatible endpoint:
// each reply names the call's number; fail makes the call with that
// number return 500.
func fakeEndpoint(t *testing.T, api summarizer.API, fail int) (string, *[]request) {
	t.Helper()
	var mu sync.Mutex
	var got []request
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			System   string `json:"system"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &body); err != nil {
			t.Errorf("not JSON: %s", data)
		}
		rq := request{system: body.System}
		for _, m := range body.Messages {
			if m.Role == "system" {
				rq.system = m.Content
			} else {
				rq.user = m.Content
			}
		}
		mu.Lock()
		got = append(got, rq)
		n := len(got)
		mu.Unlock()
		if n == fail {
			w.WriteHeader(http.StatusInternalServerError)
			io.WriteString(w, `{"error":"down"}`)
			return
		}
		text := fmt.Sprintf("Recorded summary number %d: always pnpm, the fix is i < n.", n)
		if api == summarizer.Anthropic {
			fmt.Fprintf(w, `{"model":"claude-test","content":[{"type":"text","text":%q}]}`, text)
			return
		}
		fmt.Fprintf(w, `{"model":"qwen3-test","choices":[{"message":{"role":"assistant","content":%q}}]}`, text)
	}))
	t.Cleanup(ts.Close)
	path := "/v1/chat/completions"
	if api == summarizer.Anthropic {
		path = "/v1/messages"
	}
	return ts.URL + path, &got
}

func client(t *testing.T, url string) *summarizer.Client {
	t.Helper()
	c, err := summarizer.New(url, "asked-model", "")
	if err != nil {
		t.Fatal(err)
	}
	c.Now = func() time.Time { return time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC) }
	return c
}

// TestRecordCompaction: two recordings of each of context-memory's three
// cards, from an OpenAI-compatible endpoint, stored with their provenance;
// the lesson then offers them after its five authored versions.
func TestRecordCompaction(t *testing.T) {
	tok, _ := loadTok()
	dir := copyLesson(t, "context-memory")
	url, got := fakeEndpoint(t, summarizer.OpenAI, 0)
	rep, err := Record(context.Background(), Options{Dir: dir, ID: "context-memory", N: 2, Summarizer: client(t, url), Tokens: tok})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cards != 3 || rep.Takes != 6 || rep.Authored != 5 || rep.Versions != 7 || len(*got) != 6 {
		t.Errorf("report %+v, %d calls; want 3 cards, 6 recordings, 5 + 2 versions", rep, len(*got))
	}
	var file lessonfile.Recordings
	data, err := os.ReadFile(filepath.Join(dir, "context-memory", File))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lessonfile.Decode(File, data, &file); err != nil {
		t.Fatal(err)
	}
	first := file.Recordings[0]
	if len(file.Recordings) != 6 || first.Card != "s92" || first.Model != "qwen3-test" || first.Endpoint != url || first.API != "openai" ||
		first.Date != "2026-12-01T09:30:00Z" || first.Prompt != summarizer.Prompt || first.Content != "Recorded summary number 1: always pnpm, the fix is i < n." {
		t.Errorf("first recording %+v", first)
	}
	// The first card covers five trace messages; the conversation holds them.
	if c := (*got)[0]; c.system != summarizer.Prompt || !strings.Contains(c.user, "247") || !strings.Contains(c.user, "[tool] ") {
		t.Errorf("first request: system %q, user %.200q", c.system, c.user)
	}
	// The card that covers an earlier card sends that card's text.
	l, err := scenarios.LoadDir(os.DirFS(dir), "context-memory", dir, nil, tok)
	if err != nil {
		t.Fatal(err)
	}
	last := (*got)[len(*got)-1]
	if !strings.Contains(last.user, "[summary] ") {
		t.Errorf("the resummarized card's request lacks the earlier summary: %.200q", last.user)
	}
	v := l.Cards()[0].Versions[5]
	if !v.ModelWritten || !strings.Contains(v.Provenance["en"], "qwen3-test") || !strings.Contains(v.Provenance["ja"], "2026-12-01") {
		t.Errorf("version 6 %+v", v)
	}
}

// TestRecordStrategyPrompts: for a compression lesson, each card is asked
// with its strategy's prompt and the result it summarizes, here over an
// Anthropic-compatible endpoint.
func TestRecordStrategyPrompts(t *testing.T) {
	tok, _ := loadTok()
	dir := copyLesson(t, "compression-strategies")
	url, got := fakeEndpoint(t, summarizer.Anthropic, 0)
	rep, err := Record(context.Background(), Options{Dir: dir, ID: "compression-strategies", N: 1, Summarizer: client(t, url), Tokens: tok})
	if err != nil {
		t.Fatal(err)
	}
	l, err := scenarios.LoadDir(os.DirFS(dir), "compression-strategies", dir, nil, tok)
	if err != nil {
		t.Fatal(err)
	}
	cards := l.Cards()
	if rep.Takes != len(cards) || len(*got) != len(cards) {
		t.Fatalf("%d recordings for %d cards", rep.Takes, len(cards))
	}
	for i, c := range cards {
		rq := (*got)[i]
		if rq.system != c.Prompt || c.Prompt == "" {
			t.Errorf("card %s (%s) asked with %q; want its strategy's prompt", c.ID, c.Strategy, rq.system)
		}
		m, _ := l.Message(c.Covers[0])
		if !strings.Contains(rq.user, strings.SplitN(m.Content, "\n", 2)[0]) {
			t.Errorf("card %s: the request lacks its result's text", c.ID)
		}
		if v := c.Versions[len(c.Versions)-1]; !v.ModelWritten || !strings.Contains(v.Provenance["en"], "claude-test") {
			t.Errorf("card %s: last version %+v", c.ID, v)
		}
	}
}

// TestRecordFails: a failing call, or a bad count, writes nothing; an
// earlier recordings file stays as it was.
func TestRecordFails(t *testing.T) {
	tok, _ := loadTok()
	dir := copyLesson(t, "context-memory")
	path := filepath.Join(dir, "context-memory", File)
	url, _ := fakeEndpoint(t, summarizer.OpenAI, 0)
	if _, err := Record(context.Background(), Options{Dir: dir, ID: "context-memory", N: 1, Summarizer: client(t, url), Tokens: tok}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	down, _ := fakeEndpoint(t, summarizer.OpenAI, 3)
	_, err := Record(context.Background(), Options{Dir: dir, ID: "context-memory", N: 2, Summarizer: client(t, down), Tokens: tok})
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Errorf("Record with a failing endpoint = %v; want the 500", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("a failed run changed the recordings file")
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Dir: dir, ID: "context-memory", N: 0}, "-n must be"},
		{Options{Dir: dir, ID: "no-such-lesson", N: 1}, "load"},
	} {
		tc.o.Summarizer, tc.o.Tokens = client(t, url), tok
		if _, err := Record(context.Background(), tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Record(%s, n %d) = %v; want %q", tc.o.ID, tc.o.N, err, tc.want)
		}
	}
}
