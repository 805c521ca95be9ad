package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ctxsim/scenarios"
	"ctxsim/web/rooms/store"
	"ctxsim/web/rooms/store/natsembed"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// copyLesson copies the built-in context-memory lesson into dir/id, with
// its id (and, optionally, one line) changed.
func copyLesson(t *testing.T, dir, id string, edit func(string) string) {
	t.Helper()
	src := scenarios.Builtin()
	if err := os.MkdirAll(filepath.Join(dir, id), 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := fs.ReadDir(src, "context-memory")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := fs.ReadFile(src, "context-memory/"+e.Name())
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		if e.Name() == "lesson.yaml" {
			s = strings.Replace(s, "id: context-memory", "id: "+id, 1)
			s = strings.Replace(s, "order: 1", "order: 9", 1)
			if edit != nil {
				s = edit(s)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, id, e.Name()), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestServeExtraLessons(t *testing.T) {
	dir := t.TempDir()
	copyLesson(t, dir, "my-lesson", nil)
	srv, err := newServer(dir, nil)
	if err != nil {
		t.Fatalf("newServer(%s) = %v", dir, err)
	}
	rec := httpGet(t, srv.Handler(), "/api/lessons")
	if !strings.Contains(rec, `"id":"my-lesson"`) || !strings.Contains(rec, `"id":"context-memory"`) {
		t.Errorf("/api/lessons = %s; want both lessons", rec)
	}
}

func TestServeMalformedLessons(t *testing.T) {
	tests := []struct {
		name string
		edit func(string) string
		want []string // in the error
	}{
		{"bad type", func(s string) string { return strings.Replace(s, "window: 50000", "window: fifty", 1) },
			[]string{"bad/lesson.yaml:", "window"}},
		{"missing tokens", func(s string) string { return strings.Replace(s, "        tokens: 19000\n", "", 1) },
			[]string{"bad/lesson.yaml:", "tokens"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			copyLesson(t, dir, "bad", tt.edit)
			_, err := newServer(dir, nil)
			if err == nil {
				t.Fatal("newServer accepted a malformed lesson")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if _, err := newServer(t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), "no */lesson.yaml") {
		t.Errorf("empty lessons dir: err = %v; want 'no */lesson.yaml'", err)
	}
	copyDup := t.TempDir()
	copyLesson(t, copyDup, "context-memory", nil)
	if _, err := newServer(copyDup, nil); err == nil || !strings.Contains(err.Error(), "defined twice") {
		t.Errorf("duplicate lesson id: err = %v; want 'defined twice'", err)
	}
}

func TestRunServesAndShutsDown(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0"}, pw, io.Discard) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read start-up line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	resp, err := http.Get(url + "healthz")
	if err != nil {
		t.Fatalf("GET healthz: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("GET healthz = %d", resp.StatusCode)
	}
	cancel() // what SIGINT/SIGTERM do through signal.NotifyContext
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run after cancel = %v; want nil (graceful shutdown)", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after its context was cancelled")
	}
	if _, err := http.Get(url + "healthz"); err == nil {
		t.Error("server still answers after shutdown")
	}
}

func TestRunUsage(t *testing.T) {
	if err := run(context.Background(), nil, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "usage") {
		t.Errorf("run() = %v; want usage error", err)
	}
	if err := run(context.Background(), []string{"serve", "-addr", "bad::addr::"}, io.Discard, io.Discard); err == nil {
		t.Error("run with a bad address succeeded")
	}
}

func httpGet(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	req.Host = "localhost" // a name serve answers to without -host
	h.ServeHTTP(rec, req)
	return rec.Body.String()
}

// Bad room flags stop `serve` before it loads anything, naming the flag.
func TestRunRoomFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-rooms", "redis://127.0.0.1:6379"}, "-rooms"},
		{[]string{"-rooms", "nats://"}, "-rooms"},
		{[]string{"-trusted-proxy", "10.0.0.0/33"}, "-trusted-proxy"},
		{[]string{"-trusted-proxy", "proxy.example"}, "-trusted-proxy"},
		{[]string{"-max-streams", "-1"}, "-max-streams"},
		{[]string{"-upload-memory", "-1"}, "-upload-memory"},
		{[]string{"-rooms", "nats://127.0.0.1:1"}, "connect to NATS"},
	} {
		err := run(context.Background(), append([]string{"serve", "-addr", "127.0.0.1:0"}, tt.args...), io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("serve %q = %v; want an error naming %s", tt.args, err, tt.want)
		}
	}
}

// serve -rooms wires NATS: a room opened and a session uploaded on a
// server started with it are in that NATS (its room bucket and upload
// object store), read here past the server. That a second server on the
// same NATS serves them is web's TestRoomsAcrossServersOnNATS and
// TestUploadAcrossServersOnNATS; what the stores keep, their own tests'.
func TestRunRoomsOnNATS(t *testing.T) {
	ns, err := natsembed.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-rooms", ns.ClientURL()}, pw, io.Discard)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read start-up line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	a := strings.TrimSpace(line[strings.Index(line, "http://"):])
	resp, err := http.Post(a+"rooms", "application/json", strings.NewReader(`{"state":""}`))
	if err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /rooms = %v, %v", resp, err)
	}
	var room struct{ Code string }
	json.NewDecoder(resp.Body).Decode(&room)
	resp.Body.Close()
	session, err := os.ReadFile("authoring/transcript/testdata/cc_compaction.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err = noRedirect.Post(a+"sessions", "application/x-ndjson", bytes.NewReader(session))
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /sessions = %v, %v; want 303", resp, err)
	}
	resp.Body.Close()

	st, err := store.OpenNATS(t.Context(), store.NATSConfig{URL: ns.ClientURL(), Limits: store.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Shutdown()
	if _, err := st.Current(t.Context(), room.Code); err != nil {
		t.Errorf("room %s is not in NATS: %v", room.Code, err)
	}
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := js.ObjectStore(t.Context(), "ctxsim_uploads")
	if err != nil {
		t.Fatalf("no upload object store in NATS: %v", err)
	}
	if infos, err := obj.List(t.Context()); err != nil || len(infos) != 1 {
		t.Errorf("upload object store lists %d sessions (%v); want the one uploaded", len(infos), err)
	}
}

// TestExportUsage: ctxsim export needs one directory and a path for -base,
// and says so before it loads anything.
func TestExportUsage(t *testing.T) {
	full := t.TempDir()
	if err := os.WriteFile(filepath.Join(full, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"export"}, "give one output directory"},
		{[]string{"export", "a", "b"}, "give one output directory"},
		{[]string{"export", "-base", "ctxsim/", t.TempDir()}, `-base "ctxsim/"`},
		{[]string{"export", "-base", "/a/../b/", t.TempDir()}, "-base"},
		{[]string{"export", "-nope", t.TempDir()}, "not defined: -nope"},
		{[]string{"export", full}, "is not empty"},
		{[]string{"export", filepath.Join(full, "file")}, "not a directory"},
	} {
		var stderr strings.Builder
		err := run(context.Background(), c.args, io.Discard, &stderr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("run %q = %v; want an error with %q", c.args, err, c.want)
		}
	}
	if err := run(context.Background(), nil, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "ctxsim export [-lessons DIR] [-base /PATH/] DIR") {
		t.Errorf("usage: %v; want it to name ctxsim export", err)
	}
}

// TestServePreparesImportedLater: serve listens before it prepares the
// imported sessions of -lessons; each joins when ready, and one that
// fails to load is logged with its file, line and field and answers 404,
// while the others serve.
func TestServePreparesImportedLater(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lessons")
	if err := run(context.Background(), []string{"import", "-o", dir, "authoring/transcript/testdata/cc_compaction.jsonl"}, io.Discard, io.Discard); err != nil {
		t.Fatalf("import: %v", err)
	}
	good, err := os.ReadFile(filepath.Join(dir, "session-cc-compaction", "lesson.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	broken := filepath.Join(dir, "session-broken")
	if err := os.CopyFS(broken, os.DirFS(filepath.Join(dir, "session-cc-compaction"))); err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(strings.Replace(string(good), "id: session-cc-compaction", "id: session-broken", 1), "window: 200000", "window: lots", 1)
	if err := os.WriteFile(filepath.Join(broken, "lesson.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	var logs syncBuffer
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"serve", "-addr", "127.0.0.1:0", "-lessons", dir}, pw, &logs) }()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("read start-up line: %v", err)
	}
	go io.Copy(io.Discard, pr)
	url := strings.TrimSpace(line[strings.Index(line, "http://"):])
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	status := func(path string) int {
		resp, err := client.Get(url + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(20 * time.Second)
	for status("en/session-cc-compaction") != http.StatusFound || status("en/session-broken") != http.StatusNotFound {
		if time.Now().After(deadline) {
			t.Fatalf("after 20 s: session-cc-compaction %d (want 302), session-broken %d (want 404); log:\n%s",
				status("en/session-cc-compaction"), status("en/session-broken"), logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if want := filepath.Join(dir, "session-broken", "lesson.yaml") + ":" + strconv.Itoa(lineIn(text, "window: lots")) + ": field window"; !strings.Contains(logs.String(), want) {
		t.Errorf("the log does not name %q:\n%s", want, logs.String())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run after cancel = %v", err)
	}
}

// lineIn is the 1-based line of s that holds needle.
func lineIn(s, needle string) int {
	return strings.Count(s[:strings.Index(s, needle)], "\n") + 1
}

// syncBuffer is a bytes.Buffer safe for a logger and a test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestServeLessonLinkOut: a lesson file that links out of the -lessons
// directory is not read, even when it names a readable regular file.
func TestServeLessonLinkOut(t *testing.T) {
	dir := t.TempDir()
	copyLesson(t, dir, "my-lesson", nil)
	outside := filepath.Join(t.TempDir(), "narration.en.md")
	b, err := os.ReadFile(filepath.Join(dir, "my-lesson", "narration.en.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outside, b, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "my-lesson", "narration.en.md")
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	_, err = newServer(dir, nil)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "my-lesson", "narration.en.md")) || !strings.Contains(err.Error(), "escapes") {
		t.Errorf("newServer with a link out = %v; want an error naming my-lesson/narration.en.md and the escape", err)
	}
}
