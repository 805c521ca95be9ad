package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/fsnotify/fsnotify"

	"ctxsim/web/rooms/store/natsembed"
)

// TestBrowserUploadSession: a presenter opens their own session in the
// page, as a workshop does. Two servers share NATS (one load balancer's
// worth). On A, the index's form takes the real Claude Code session and
// the two files beside it; the report comes first (the home directory
// replaced), then step 1; the presenter steps to the compaction, opens
// the presenter view and a room; a follower on B joins and follows a
// step. The presenter presses "Forget this session now": afterwards its
// URL, its report and its room answer 404 on both servers, and no file in
// the servers' temporary directory, the NATS server's store or the
// package's directory holds the session's words.
func TestBrowserUploadSession(t *testing.T) {
	start := time.Now()
	origTmp := os.TempDir()
	t.TempDir() // the test's own directories (browser profiles) stay in origTmp
	serverTmp, err := os.MkdirTemp(origTmp, "ctxsim-server-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(serverTmp) })
	t.Setenv("TMPDIR", serverTmp) // whatever the servers write to a temporary file lands here
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	// A temporary file removed before the end (as ParseMultipartForm's are)
	// is caught as it is written.
	written := watchWrites(t, serverTmp, cwd)
	natsDir := t.TempDir()
	ns, err := natsembed.Start(natsDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	url := ns.ClientURL()
	a := newServerWith(t, Config{Rooms: natsRooms(t, url), Uploads: natsUploads(t, url)})
	b := newServerWith(t, Config{Rooms: natsRooms(t, url), Uploads: natsUploads(t, url)})
	tsA, tsB := startRoomHTTP(t, a.Handler()), startRoomHTTP(t, b.Handler())
	// The shared Chromium keeps its files in the TMPDIR the test binary
	// started with (browserTmp), never in serverTmp.
	pres, aud := roomTab(t, tsA.URL), roomTab(t, tsB.URL)

	pres.open("/en/")
	files := []string{
		filepath.Join(realSessionDir, realSession+".jsonl"),
		filepath.Join(realSessionDir, realSession, "subagents", "agent-a2898e3.jsonl"),
		filepath.Join(realSessionDir, realSession, "subagents", "agent-acompact-e1f845.jsonl"),
	}
	for i, f := range files {
		if files[i], err = filepath.Abs(f); err != nil {
			t.Fatal(err)
		}
	}
	pres.do("choose the session's files", chromedp.SetUploadFiles(tid("upload-file"), files))
	pres.clickID("upload-submit")
	if _, err := pres.pollJS(`String(!!document.querySelector('[data-testid="session-report-page"]'))`, func(s string) bool { return s == "true" }); err != nil {
		t.Fatalf("the report did not come after the upload: %v", err)
	}
	if got := pres.text(`[data-testid="redactions"] tbody th`); got != "your home directory" {
		t.Errorf("the report's first redaction is %q; want the home directory", got)
	}
	report := pres.path()
	id := strings.Split(report, "/")[2]
	pres.clickID("report-start")
	if _, err := pres.pollJS(jsStateURL, func(s string) bool { return stepOneRE.MatchString(s) }); err != nil {
		t.Fatalf("report-start did not open step 1: %v", err)
	}
	first := pres.stateURL()
	if !pres.exists(tid("session-bar")) {
		t.Error("step 1 has no session bar")
	}

	// The compaction: the first summary frame of the session as it happened.
	var doc struct {
		Frames []struct{ Kind string } `json:"frames"`
	}
	if err := json.Unmarshal(call(a.Handler(), http.MethodGet, "/api/lessons/"+id+"/frames", nil).Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	summary := 0
	for i, f := range doc.Frames {
		if f.Kind == "summary" {
			summary = i + 1
			break
		}
	}
	if summary == 0 {
		t.Fatal("the real session's run has no summary frame")
	}
	pres.do("jump to the compaction", chromedp.SetValue(`form.jump input[name="step"]`, fmt.Sprint(summary)), chromedp.Submit(`form.jump input[name="step"]`))
	pres.waitStep(summary, len(doc.Frames))
	if !pres.exists(tid("summary-card")) {
		t.Errorf("step %d (the compaction) shows no summary", summary)
	}
	atCompaction := pres.stateURL()

	code := presenterOpensRoom(t, pres, tsA.URL)
	aud.open("/join/" + code)
	aud.waitState("follower on B after join", atCompaction)
	pres.key(kb.ArrowRight)
	pres.waitStep(summary+1, len(doc.Frames))
	aud.waitState("follower on B after the presenter's step", pres.stateURL())

	pres.clickID("forget")
	if _, err := pres.pollJS(`String(!!document.querySelector('[data-testid="forgotten"]'))`, func(s string) bool { return s == "true" }); err != nil {
		t.Fatalf("forget did not answer the page that says the session is gone: %v", err)
	}
	for name, base := range map[string]string{"A": tsA.URL, "B": tsB.URL} {
		for _, p := range []string{first, atCompaction, report, "/api/lessons/" + id + "/frames", "/rooms/" + code, "/join/" + code} {
			res, err := http.Get(base + p)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("GET %s on %s after forget = %d; want 404", p, name, res.StatusCode)
			}
		}
	}
	pres.noCSPViolations("presenter")
	aud.noCSPViolations("follower")

	if w := written(); len(w) > 0 {
		t.Errorf("files written in the servers' temporary or working directory during the test: %q", w)
	}
	// Words of the session: its first message, and a line of a tool result deep in it.
	for _, words := range []string{"Run bd show spotter-dov", "spotter-worktrees/spotter-dov"} {
		if !bytes.Contains(realSessionFiles(t)[0].data, []byte(words)) {
			t.Fatalf("the session does not hold %q", words)
		}
		for _, dir := range []string{serverTmp, natsDir, cwd} {
			noFileSince(t, dir, start, words)
		}
	}
}

// noFileSince fails if a file under dir written since start holds s.
func noFileSince(t *testing.T, dir string, start time.Time, s string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil || info.ModTime().Before(start) || !info.Mode().IsRegular() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("%s holds %q", p, s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d files written during the test, none holds %q", dir, n, s)
}

// watchWrites records every file created or written in dirs (not their
// subdirectories) from now on; the function returns them.
func watchWrites(t *testing.T, dirs ...string) func() []string {
	t.Helper()
	w, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if err := w.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	var seen []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev := range w.Events {
			if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Write) {
				mu.Lock()
				if !slices.Contains(seen, ev.Name) {
					seen = append(seen, ev.Name)
				}
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { w.Close(); <-done })
	return func() []string {
		time.Sleep(100 * time.Millisecond) // events under way
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(seen)
	}
}

// TestBrowserUploadForm: the index's form, with scripts. Files dropped on
// it go into the picker; files over 32 MiB are said in the page's
// language before anything is sent, and the form is not sent; a session
// dropped then is sent, and the report comes (in the page's language).
func TestBrowserUploadForm(t *testing.T) {
	s := newTestServer(t)
	var posts atomic.Int32
	ts := startRoomHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/sessions" {
			posts.Add(1)
		}
		s.Handler().ServeHTTP(w, r)
	}))
	b := roomTab(t, ts.URL)
	b.open("/ja/")
	index := b.path()
	drop := func(name, content string, size int) {
		t.Helper()
		mustEval[bool](b, fmt.Sprintf(`(() => {
			const dt = new DataTransfer();
			const parts = %s.length ? [%s] : [new Uint8Array(%d)];
			dt.items.add(new File(parts, %s));
			const zone = document.querySelector("[data-drop]");
			zone.dispatchEvent(new DragEvent("dragover", {bubbles: true, cancelable: true, dataTransfer: dt}));
			return zone.dispatchEvent(new DragEvent("drop", {bubbles: true, cancelable: true, dataTransfer: dt})) === false;
		})()`, jsQuote(content), jsQuote(content), size, jsQuote(name)))
	}
	drop("big.jsonl", "", 33<<20)
	if n := mustEval[int](b, `document.querySelector('[data-testid="upload-file"]').files.length`); n != 1 {
		t.Fatalf("after a drop the picker holds %d files; want 1", n)
	}
	msg := b.text(tid("upload-error"))
	if !strings.Contains(msg, "33.0 MiB ですが、アップロードは 32 MiB まで") || mustEval[bool](b, `document.querySelector('[data-testid="upload-error"]').hidden`) {
		t.Errorf("the message before sending 33 MiB = %q (hidden: %v); want it shown, in ja", msg, mustEval[bool](b, `document.querySelector('[data-testid="upload-error"]').hidden`))
	}
	b.clickID("upload-submit")
	b.do("a moment", chromedp.Sleep(300*time.Millisecond))
	if p := b.path(); p != index || posts.Load() != 0 {
		t.Errorf("the form over the limit was sent: at %s, %d POSTs", p, posts.Load())
	}
	plain := fixture(t, "cc_plain.jsonl")
	drop("cc_plain.jsonl", string(plain.data), 0)
	if !mustEval[bool](b, `document.querySelector('[data-testid="upload-error"]').hidden`) {
		t.Error("the message stays for a session under the limit")
	}
	b.clickID("upload-submit")
	if _, err := b.pollJS(`location.pathname`, func(p string) bool { return strings.HasSuffix(p, "/report") }); err != nil {
		t.Fatalf("the session dropped was not sent: %v", err)
	}
	// The report's heading, once it has replaced the index's (a loaded
	// machine can read the path before the new page's heading).
	const heading = "ステップ 1 の前に：あなたのセッション"
	h1, _ := b.pollJS(`(document.querySelector("h1")||{}).textContent||""`, func(h string) bool { return strings.TrimSpace(h) == heading })
	if p := b.path(); !strings.HasPrefix(p, "/ja/u-") || strings.TrimSpace(h1) != heading {
		t.Errorf("after the upload: %s, %q; want the report in ja", p, h1)
	}
	b.noCSPViolations("uploader")
}

// TestBrowserUploadNoJavaScript: without scripts the form is a plain
// form: the file chosen is sent, the report comes, step 1 opens, and the
// bar's button forgets the session.
func TestBrowserUploadNoJavaScript(t *testing.T) {
	b := browser(t, 1440, 900, false)
	b.open("/en/")
	f, err := filepath.Abs(filepath.Join("..", "authoring", "transcript", "testdata", "cc_compaction.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	b.do("choose a file", chromedp.SetUploadFiles(tid("upload-file"), []string{f}))
	b.clickID("upload-submit")
	if _, err := b.pollJS(`location.pathname`, func(p string) bool { return strings.HasSuffix(p, "/report") }); err != nil {
		t.Fatalf("no report after the upload: %v", err)
	}
	b.clickID("report-start")
	if _, err := b.pollJS(`location.pathname`, stepOneRE.MatchString); err != nil {
		t.Fatalf("report-start: %v", err)
	}
	first := b.path()
	// The path changes when the new page commits; its button is there
	// once it has loaded (a click in between found a node of the page
	// going away: "Could not find node with given id", make test at load 12).
	b.waitJS("the first step loaded", `String(document.readyState === "complete" && !!document.querySelector('[data-testid="forget"]'))`, "true")
	b.clickID("forget")
	if _, err := b.pollJS(`String(!!document.querySelector('[data-testid="forgotten"]'))`, func(s string) bool { return s == "true" }); err != nil {
		t.Fatalf("the bar's button did not forget the session: %v", err)
	}
	if rec := call(newTestServer(t).Handler(), http.MethodGet, first, nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET %s after the form = %d; want 404", first, rec.Code)
	}
}
