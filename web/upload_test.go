package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"math"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"ctxsim/authoring/transcript"
	"ctxsim/web/httperr"
	"ctxsim/web/uploads"
)

// The tests upload the real Claude Code session the repository ships for
// the transcript package (transcript/testdata/claude-code-real: Claude
// Code 2.1.39, MIT, see its README and LICENSE), read where it is, with
// the two files Claude Code wrote beside it, and the hand-written
// fixtures of that package.
var realSessionDir = filepath.Join("..", "authoring", "transcript", "testdata", "claude-code-real")

const realSession = "4d5611e5-241a-462a-8d15-5122611a9569"

// upFile is a file a test uploads.
type upFile struct {
	name string
	data []byte
}

func readUpFile(t testing.TB, path string) upFile {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return upFile{filepath.Base(path), data}
}

// realSessionFiles are the real session and its sub-agents' files, as a
// browser sends them (base names).
func realSessionFiles(t testing.TB) []upFile {
	t.Helper()
	return []upFile{
		readUpFile(t, filepath.Join(realSessionDir, realSession+".jsonl")),
		readUpFile(t, filepath.Join(realSessionDir, realSession, "subagents", "agent-a2898e3.jsonl")),
		readUpFile(t, filepath.Join(realSessionDir, realSession, "subagents", "agent-acompact-e1f845.jsonl")),
	}
}

// fixture is a file of transcript/testdata.
func fixture(t testing.TB, name string) upFile {
	t.Helper()
	return readUpFile(t, filepath.Join("..", "authoring", "transcript", "testdata", name))
}

// formBody is a multipart form: fields (name, value pairs), then files
// as the field file.
func formBody(t testing.TB, fields []string, files ...upFile) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for i := 0; i+1 < len(fields); i += 2 {
		if err := w.WriteField(fields[i], fields[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		fw, err := w.CreateFormFile("file", f.name)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write(f.data)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return &buf, w.FormDataContentType()
}

// call sends one request to h; header is name, value pairs.
func call(h http.Handler, method, path string, body io.Reader, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, body)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// postForm sends an upload form of fields and files; a lang field goes
// where the index's form puts it, in the query.
func postForm(t testing.TB, h http.Handler, fields []string, files ...upFile) *httptest.ResponseRecorder {
	t.Helper()
	path := "/sessions"
	for i := 0; i+1 < len(fields); i += 2 {
		if fields[i] == "lang" {
			path += "?lang=" + fields[i+1]
		}
	}
	body, ctype := formBody(t, fields, files...)
	return call(h, http.MethodPost, path, body, "Content-Type", ctype)
}

// uploadedAt uploads files and returns where the 303 sends the browser.
func uploadedAt(t testing.TB, h http.Handler, fields []string, files ...upFile) string {
	t.Helper()
	rec := postForm(t, h, fields, files...)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("POST /sessions = %d %s; want 303", rec.Code, errorMessage(rec.Body.String()))
	}
	return rec.Header().Get("Location")
}

var errorMessageRE = regexp.MustCompile(`data-testid="error-message">([^<]*)<`)

// errorMessage is the message of an error page.
func errorMessage(body string) string {
	if m := errorMessageRE.FindStringSubmatch(body); m != nil {
		return html.UnescapeString(m[1])
	}
	return body
}

// stepOneRE is the first step of an uploaded session under its default
// policy.
var stepOneRE = regexp.MustCompile(`^/(en|ja)/(u-[a-z2-7]{32})/([a-z0-9.-]+)/1$`)

// TestUploadSession: the real session, uploaded as a form with the files
// beside it, answers 303 to its first step, which serves with every view
// (step pages, presenter view, comparison, handout, report, frames API),
// privately and unlisted; its pages and runs are kept in its own caches,
// never the server's; DELETE forgets it, and everything of it answers 404.
func TestUploadSession(t *testing.T) {
	s := newTestServer(t)
	h := s.Handler()
	loc := uploadedAt(t, h, nil, realSessionFiles(t)...)
	m := stepOneRE.FindStringSubmatch(loc)
	if m == nil || m[1] != "en" {
		t.Fatalf("Location = %q; want /en/u-<32 base32>/<policy>/1", loc)
	}
	id, def := m[2], m[3]
	l, err := s.lesson(id)
	if err != nil {
		t.Fatal(err)
	}
	if def != l.DefaultPolicy().String() {
		t.Errorf("the first step's policy is %s; want the default %s", def, l.DefaultPolicy())
	}
	other := l.PresetPolicies()[1].String()
	paths := []string{loc, "/en/" + id + "/" + def + "/5", "/ja/" + id + "/" + def + "/5", loc + "/present", loc + "/notes",
		"/en/" + id + "/" + def + "/vs/" + other + "/1", "/en/" + id + "/" + def + "/handout", "/en/" + id + "/report", "/ja/" + id + "/report",
		"/api/lessons/" + id + "/frames"}
	for _, p := range paths {
		rec := call(h, http.MethodGet, p, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d %s", p, rec.Code, errorMessage(rec.Body.String()))
		}
		if cc := rec.Header().Get("Cache-Control"); cc != "private, no-store" {
			t.Errorf("GET %s: Cache-Control %q; want private, no-store", p, cc)
		}
		bar := strings.Contains(rec.Body.String(), `data-testid="session-bar"`)
		if wantBar := !strings.HasSuffix(p, "/present") && !strings.HasSuffix(p, "/notes") && !strings.Contains(p, "/api/") && !strings.HasSuffix(p, "/report"); bar != wantBar {
			t.Errorf("GET %s: session bar shown %v; want %v", p, bar, wantBar)
		}
	}
	for _, redirect := range []string{"/en/" + id, "/" + id} {
		if rec := call(h, http.MethodGet, redirect, nil); rec.Code != http.StatusFound || rec.Header().Get("Location") != loc {
			t.Errorf("GET %s = %d to %q; want 302 to %s", redirect, rec.Code, rec.Header().Get("Location"), loc)
		}
	}
	page1 := call(h, http.MethodGet, loc, nil).Body.String()
	if !strings.Contains(page1, `action="/en/`+id+`"`) || !strings.Contains(page1, `name="_method" value="DELETE"`) {
		t.Errorf("the first step has no form that forgets the session")
	}
	for _, p := range []string{"/api/lessons", "/en/", "/ja/", "/"} {
		if body := call(h, http.MethodGet, p, nil).Body.String(); strings.Contains(body, id) {
			t.Errorf("GET %s lists the uploaded session", p)
		}
	}
	if _, kept := s.caches.pages.Cost(loc); kept {
		t.Errorf("the server's shared page cache keeps %s", loc)
	}
	if n, _ := s.runs.replays.Stats(); n > 0 {
		for _, p := range l.PresetPolicies() {
			if _, kept := s.runs.replays.Cost(id + "/" + p.String()); kept {
				t.Errorf("the server's shared replay cache keeps the session's run under %s", p)
			}
		}
	}
	rep := call(h, http.MethodGet, "/en/"+id+"/report", nil).Body.String()
	files := transcript.Files{}
	for _, f := range realSessionFiles(t) {
		files[transcript.SidecarName(realSession+".jsonl", f.name)] = f.data
	}
	files[realSession+".jsonl"] = realSessionFiles(t)[0].data
	sess, err := transcript.ReadFS(files, realSession+".jsonl", transcript.Options{Redact: true, Home: "/home/USER"})
	if err != nil {
		t.Fatal(err)
	}
	if home := sess.Redactions[transcript.ClassHome]; home == 0 || !strings.Contains(rep, fmt.Sprintf("<th scope=\"row\">your home directory</th><td>%d</td>", home)) {
		t.Errorf("the report does not say the home directory was replaced %d times", home)
	}
	if !strings.Contains(rep, `href="`+loc+`"`) {
		t.Errorf("the report has no link to step 1 (%s)", loc)
	}

	if rec := call(h, http.MethodDelete, loc, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE %s = %d %s; want 204", loc, rec.Code, rec.Body.String())
	}
	for _, p := range append(paths, "/en/"+id) {
		if rec := call(h, http.MethodGet, p, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s after DELETE = %d; want 404", p, rec.Code)
		}
	}
	if rec := call(h, http.MethodDelete, loc, nil); rec.Code != http.StatusNotFound {
		t.Errorf("DELETE again = %d; want 404", rec.Code)
	}
	if _, ok := s.uploads.Local(id); ok {
		t.Error("the server still holds the session")
	}
}

// TestUploadRawBody: the file may be the whole body; ?name=, ?keep=1 and
// ?lang= stand for the form's fields.
func TestUploadRawBody(t *testing.T) {
	h := newTestServer(t).Handler()
	f := fixture(t, "cc_secrets.jsonl")
	rec := call(h, http.MethodPost, "/sessions?name=secrets.jsonl&lang=ja", bytes.NewReader(f.data), "Content-Type", "application/x-ndjson")
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !stepOneRE.MatchString(loc) || !strings.HasPrefix(loc, "/ja/") {
		t.Fatalf("POST /sessions (raw) = %d to %q; want 303 to a first step in ja", rec.Code, loc)
	}
	id := stepOneRE.FindStringSubmatch(loc)[2]
	rep := call(h, http.MethodGet, "/en/"+id+"/report", nil).Body.String()
	if !strings.Contains(rep, "secrets.jsonl") || !strings.Contains(rep, `data-testid="redactions"`) {
		t.Errorf("the report of cc_secrets.jsonl names no file or no redaction")
	}
	// Kept as recorded: nothing redacted, and the report says it was the uploader's choice.
	rec = call(h, http.MethodPost, "/sessions?keep=1", bytes.NewReader(f.data))
	id2 := stepOneRE.FindStringSubmatch(rec.Header().Get("Location"))
	if rec.Code != http.StatusSeeOther || id2 == nil {
		t.Fatalf("POST /sessions?keep=1 = %d", rec.Code)
	}
	if rep := call(h, http.MethodGet, "/en/"+id2[2]+"/report", nil).Body.String(); !strings.Contains(rep, `data-testid="report-kept"`) {
		t.Error("the report of a session kept as recorded does not say so")
	}
	frames := call(h, http.MethodGet, "/api/lessons/"+id2[2]+"/frames", nil).Body.String()
	redacted := call(h, http.MethodGet, "/api/lessons/"+id+"/frames", nil).Body.String()
	if !strings.Contains(frames, "sk-ant-") || strings.Contains(redacted, "sk-ant-") {
		t.Errorf("kept as recorded the key is there: %v; redacted it is gone: %v", strings.Contains(frames, "sk-ant-"), !strings.Contains(redacted, "sk-ant-"))
	}
}

// TestUploadReportFirst: the index's form asks for the report first
// (next=report): it lists what was redacted, then links step 1.
func TestUploadReportFirst(t *testing.T) {
	h := newTestServer(t).Handler()
	for _, lang := range []string{"en", "ja"} {
		loc := uploadedAt(t, h, []string{"lang", lang, "next", "report"}, fixture(t, "cc_secrets.jsonl"))
		if !regexp.MustCompile(`^/` + lang + `/u-[a-z2-7]{32}/report$`).MatchString(loc) {
			t.Fatalf("%s: Location = %q; want the report", lang, loc)
		}
		body := call(h, http.MethodGet, loc, nil).Body.String()
		ui := newTestServer(t).cat.For(lang)
		for _, want := range []string{ui.T("upload.report.title"), ui.T("upload.class.anthropic-key"), ui.T("upload.class.email"), ui.T("upload.forget")} {
			if !strings.Contains(body, html.EscapeString(want)) {
				t.Errorf("%s: the report lacks %q", lang, want)
			}
		}
		if !strings.Contains(body, `data-testid="report-start"`) {
			t.Errorf("%s: the report has no link to step 1", lang)
		}
	}
}

// TestUploadForgetForm: the pages' "Forget this session now" is a form
// (POST _method=DELETE), from this site only; it answers a page that
// says the session is gone.
func TestUploadForgetForm(t *testing.T) {
	h := newTestServer(t).Handler()
	loc := uploadedAt(t, h, nil, fixture(t, "cc_plain.jsonl"))
	id := stepOneRE.FindStringSubmatch(loc)[2]
	form := func(body string, header ...string) *httptest.ResponseRecorder {
		return call(h, http.MethodPost, "/ja/"+id, strings.NewReader(body), append([]string{"Content-Type", "application/x-www-form-urlencoded"}, header...)...)
	}
	if rec := form("_method=DELETE", "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusForbidden {
		t.Errorf("the form from another site = %d; want 403", rec.Code)
	}
	if rec := call(h, http.MethodDelete, loc, nil, "Sec-Fetch-Site", "cross-site"); rec.Code != http.StatusForbidden {
		t.Errorf("DELETE from another site = %d; want 403", rec.Code)
	}
	if rec := form("_method=PUT"); rec.Code != http.StatusBadRequest {
		t.Errorf("_method=PUT = %d; want 400", rec.Code)
	}
	if rec := call(h, http.MethodGet, loc, nil); rec.Code != http.StatusOK {
		t.Fatalf("the refused requests forgot the session: GET = %d", rec.Code)
	}
	rec := form("_method=DELETE", "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin")
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `data-testid="forgotten"`) || !strings.Contains(rec.Body.String(), `lang="ja"`) {
		t.Fatalf("the form = %d; want 200 with the page that says it is gone, in ja", rec.Code)
	}
	if rec := call(h, http.MethodGet, loc, nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET after the form = %d; want 404", rec.Code)
	}
}

// TestUploadBadInput: every kind of bad upload gets a message in the
// page's language that names what is wrong and where (file and line); the
// server is unchanged (the next upload works).
func TestUploadBadInput(t *testing.T) {
	s := newTestServer(t)
	h := s.Handler()
	two := []upFile{fixture(t, "cc_plain.jsonl"), fixture(t, "cx_plain.jsonl")}
	tests := []struct {
		name   string
		files  []upFile
		status int
		want   map[string][]string // lang → fragments of the message
	}{
		{"broken at a line", []upFile{fixture(t, "cc_broken.jsonl")}, 400, map[string][]string{
			"en": {"cc_broken.jsonl is broken at line 3", "broken JSON"}, "ja": {"cc_broken.jsonl の 3 行目が壊れています", "broken JSON"}}},
		{"broken at a message", []upFile{fixture(t, "oa_broken.json")}, 400, map[string][]string{
			"en": {"oa_broken.json is broken at message 3"}, "ja": {"oa_broken.json の 3 番目のメッセージが壊れています"}}},
		{"not a session", []upFile{fixture(t, "unknown.txt")}, 400, map[string][]string{
			"en": {"unknown.txt is not a session ctxsim reads (line 1)"}, "ja": {"unknown.txt は ctxsim が読めるセッションではありません（1 行目）"}}},
		{"JSON, not a session", []upFile{fixture(t, "unknown_object.jsonl")}, 400, map[string][]string{
			"en": {"unknown_object.jsonl is not a session"}, "ja": {"unknown_object.jsonl は ctxsim が読めるセッションではありません"}}},
		{"empty", []upFile{fixture(t, "empty.jsonl")}, 400, map[string][]string{"en": {"empty.jsonl is empty."}, "ja": {"empty.jsonl は空です。"}}},
		{"a session without messages", []upFile{readUpFile(t, filepath.Join("..", "authoring", "transcript", "testdata", "shapes", "codex", "schema_drift.jsonl"))}, 400,
			map[string][]string{"en": {"schema_drift.jsonl was read, but ctxsim could not make a lesson of it", "no user or assistant message"},
				"ja": {"schema_drift.jsonl は読み取れましたが、レッスンにできませんでした"}}},
		{"two sessions", two, 400, map[string][]string{"en": {"Upload one session at a time: cc_plain.jsonl and cx_plain.jsonl"},
			"ja": {"cc_plain.jsonl と cx_plain.jsonl はどちらもセッションファイルです"}}},
		{"no file", nil, 400, map[string][]string{"en": {"Choose a session file to upload."}, "ja": {"アップロードするセッションファイルを選んでください。"}}},
		{"the same file twice", []upFile{fixture(t, "cc_plain.jsonl"), {"agent-x.jsonl", []byte("{}")}, {"agent-x.jsonl", []byte("{}")}}, 400,
			map[string][]string{"en": {"agent-x.jsonl was uploaded twice"}, "ja": {"agent-x.jsonl が二度アップロードされました"}}},
	}
	held, _ := s.uploads.Held()
	for _, tc := range tests {
		for _, lang := range []string{"en", "ja"} {
			rec := postForm(t, h, []string{"lang", lang}, tc.files...)
			msg := errorMessage(rec.Body.String())
			if rec.Code != tc.status || !strings.Contains(rec.Body.String(), `lang="`+lang+`"`) {
				t.Errorf("%s (%s): %d, lang %s; want %d", tc.name, lang, rec.Code, lang, tc.status)
			}
			for _, w := range tc.want[lang] {
				if !strings.Contains(msg, w) {
					t.Errorf("%s (%s): message %q; want %q in it", tc.name, lang, msg, w)
				}
			}
		}
	}
	// Not a form with a file, nor a file: a multipart body that breaks.
	rec := call(h, http.MethodPost, "/sessions", strings.NewReader("--x\r\nbroken"), "Content-Type", "multipart/form-data; boundary=x")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `data-testid="error-param">body<`) {
		t.Errorf("a broken multipart body = %d; want 400 naming body", rec.Code)
	}
	if now, _ := s.uploads.Held(); now != held {
		t.Errorf("bad uploads changed what the server holds: %d sessions, was %d", now, held)
	}
	if rec := postForm(t, h, nil, fixture(t, "cc_plain.jsonl")); rec.Code != http.StatusSeeOther {
		t.Errorf("an upload after the bad ones = %d; want 303", rec.Code)
	}
}

// TestUploadTooLarge: past 32 MiB, 413, whether the request says its
// size (Content-Length) or not (the body is cut where it goes over); a
// session past the reader's limits is refused at the line where it goes
// over, 413 too; in the page's language.
func TestUploadTooLarge(t *testing.T) {
	h := newTestServer(t).Handler()
	big := upFile{"big.jsonl", bytes.Repeat([]byte(`{"type":"user"}`+"\n"), uploads.MaxBytes/16+1)}
	for _, lang := range []string{"en", "ja"} {
		body, ctype := formBody(t, []string{"lang", lang}, big)
		size := body.Len()
		rec := call(h, http.MethodPost, "/sessions", body, "Content-Type", ctype)
		mib := fmt.Sprintf("%.1f", math.Ceil(float64(size)*10/(1<<20))/10)
		if mib == "32.0" {
			t.Fatalf("the body of %d bytes reads %s MiB", size, mib)
		}
		want := map[string]string{"en": "This upload is " + mib + " MiB; an upload may be at most 32 MiB", "ja": "このアップロードは " + mib + " MiB ですが、32 MiB までです"}[lang]
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(errorMessage(rec.Body.String()), want) {
			t.Errorf("%s: %d %q; want 413 with %q", lang, rec.Code, errorMessage(rec.Body.String()), want)
		}
		// Without a Content-Length, the body is read up to the limit.
		body, ctype = formBody(t, []string{"lang", lang}, big)
		req := httptest.NewRequest(http.MethodPost, "/sessions", io.MultiReader(body))
		req.ContentLength = -1
		req.Header.Set("Content-Type", ctype)
		rec = httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		want = map[string]string{"en": "An upload may be at most 32 MiB", "ja": "アップロードは 32 MiB までです"}[lang]
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(errorMessage(rec.Body.String()), want) {
			t.Errorf("%s, no Content-Length: %d %q; want 413 with %q", lang, rec.Code, errorMessage(rec.Body.String()), want)
		}
	}
	// The reader's limits, on a server of its own with small ones.
	s := newServerWith(t, Config{})
	s.uploadRead = transcript.Options{MaxRecords: 5}
	for lang, want := range map[string]string{"en": "cc_plain.jsonl, line 6: the session is larger than this server reads", "ja": "cc_plain.jsonl の 6 行目"} {
		rec := postForm(t, s.Handler(), []string{"lang", lang}, fixture(t, "cc_plain.jsonl"))
		if msg := errorMessage(rec.Body.String()); rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, want) {
			t.Errorf("%s: a session past 5 records = %d %q; want 413 with %q", lang, rec.Code, msg, want)
		}
	}
}

// TestUploadOrigin: uploads come from this site's pages only (or from
// clients that are not browsers).
func TestUploadOrigin(t *testing.T) {
	h := newTestServer(t).Handler()
	for lang, want := range map[string]string{"en": "from this site's own pages only", "ja": "このサイト自身のページから"} {
		body, ctype := formBody(t, nil, fixture(t, "cc_plain.jsonl"))
		rec := call(h, http.MethodPost, "/sessions?lang="+lang, body, "Content-Type", ctype, "Origin", "http://evil.example", "Sec-Fetch-Site", "cross-site")
		if rec.Code != http.StatusForbidden || !strings.Contains(errorMessage(rec.Body.String()), want) {
			t.Errorf("%s: an upload from another site = %d %q; want 403 with %q", lang, rec.Code, errorMessage(rec.Body.String()), want)
		}
	}
	body, ctype := formBody(t, nil, fixture(t, "cc_plain.jsonl"))
	if rec := call(h, http.MethodPost, "/sessions", body, "Content-Type", ctype, "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"); rec.Code != http.StatusSeeOther {
		t.Errorf("an upload from this site's page = %d; want 303", rec.Code)
	}
}

// TestUploadLimits: per client, uploads per minute and bytes held (429
// with Retry-After); per server, memory, pushing out the least recently
// used idle session first, else 503 with Retry-After; a session larger
// than the whole budget, 413. In the page's language.
func TestUploadLimits(t *testing.T) {
	f := fixture(t, "cc_plain.jsonl")
	t.Run("rate", func(t *testing.T) {
		h := newServerWith(t, Config{UploadLimits: uploads.Limits{Burst: 2, Every: 30e9}}).Handler()
		for range 2 {
			uploadedAt(t, h, nil, f)
		}
		for _, lang := range []string{"en", "ja"} {
			rec := postForm(t, h, []string{"lang", lang}, f)
			want := map[string]string{"en": "Too many uploads from your address", "ja": "このアドレスからのアップロードが多すぎます"}[lang]
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || !strings.Contains(errorMessage(rec.Body.String()), want) {
				t.Errorf("%s: third upload = %d, Retry-After %q, %q; want 429 with Retry-After and %q", lang, rec.Code, rec.Header().Get("Retry-After"),
					errorMessage(rec.Body.String()), want)
			}
		}
	})
	t.Run("client bytes", func(t *testing.T) {
		h := newServerWith(t, Config{UploadLimits: uploads.Limits{ClientBytes: int64(len(f.data)) * 3 / 2}}).Handler()
		uploadedAt(t, h, nil, f)
		for _, lang := range []string{"en", "ja"} {
			rec := postForm(t, h, []string{"lang", lang}, f)
			want := map[string]string{"en": "forget one, or try again in 7200 seconds", "ja": "どれかを消すか、7200 秒後に"}[lang]
			if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "7200" || !strings.Contains(errorMessage(rec.Body.String()), want) {
				t.Errorf("%s: = %d, Retry-After %q, %q; want 429, 7200 and %q", lang, rec.Code, rec.Header().Get("Retry-After"), errorMessage(rec.Body.String()), want)
			}
		}
		// Another client is not limited by this one's bytes.
		body, ctype := formBody(t, nil, f)
		req := httptest.NewRequest(http.MethodPost, "/sessions", body)
		req.Header.Set("Content-Type", ctype)
		req.RemoteAddr = "198.51.100.7:4000"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusSeeOther {
			t.Errorf("another client = %d; want 303", rec.Code)
		}
	})
	t.Run("uploads in progress", func(t *testing.T) {
		s := newTestServer(t)
		for range maxReceiving {
			s.receiving <- struct{}{}
		}
		rec := postForm(t, s.Handler(), []string{"lang", "ja"}, f)
		for range maxReceiving {
			<-s.receiving
		}
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "5" || !strings.Contains(errorMessage(rec.Body.String()), "一度に受け取れる数") {
			t.Errorf("an upload with %d in progress = %d, Retry-After %q, %q; want 503, 5, in ja", maxReceiving, rec.Code, rec.Header().Get("Retry-After"), errorMessage(rec.Body.String()))
		}
	})
	t.Run("memory", func(t *testing.T) {
		s := newServerWith(t, Config{})
		u, _, cost, err := s.importUpload(context.Background(), "u-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", &uploadForm{files: transcript.Files{"a.jsonl": f.data}, main: "a.jsonl", size: int64(len(f.data))})
		if err != nil || u == nil {
			t.Fatal(err)
		}
		// Room for two sessions; the first becomes idle (Idle 0 s), the second is in use.
		lim := uploads.Limits{Memory: 2*cost + cost/2, Idle: 3600e9}
		s = newServerWith(t, Config{UploadLimits: lim})
		h := s.Handler()
		uploadedAt(t, h, nil, f)
		uploadedAt(t, h, nil, f)
		for _, lang := range []string{"en", "ja"} {
			rec := postForm(t, h, []string{"lang", lang}, f)
			want := map[string]string{"en": "full of sessions in use", "ja": "使用中のセッションでいっぱいです"}[lang]
			if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(errorMessage(rec.Body.String()), want) {
				t.Errorf("%s: a third session with two in use = %d, Retry-After %q, %q; want 503 with %q", lang, rec.Code,
					rec.Header().Get("Retry-After"), errorMessage(rec.Body.String()), want)
			}
		}
		// With no idle time required, the least recently used leaves.
		s2 := newServerWith(t, Config{UploadLimits: uploads.Limits{Memory: lim.Memory, Idle: 1}})
		h2 := s2.Handler()
		first, second := uploadedAt(t, h2, nil, f), uploadedAt(t, h2, nil, f)
		call(h2, http.MethodGet, first, nil) // first is now the more recently used
		third := uploadedAt(t, h2, nil, f)
		for p, want := range map[string]int{first: 200, second: 404, third: 200} {
			if rec := call(h2, http.MethodGet, p, nil); rec.Code != want {
				t.Errorf("GET %s = %d; want %d (the least recently used left)", p, rec.Code, want)
			}
		}
		// A session larger than the whole budget: 413.
		h3 := newServerWith(t, Config{UploadLimits: uploads.Limits{Memory: cost / 2}}).Handler()
		rec := postForm(t, h3, []string{"lang", "ja"}, f)
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(errorMessage(rec.Body.String()), "メモリーに保持できる大きさを超えています") {
			t.Errorf("a session over the budget = %d %q; want 413 in ja", rec.Code, errorMessage(rec.Body.String()))
		}
	})
}

// TestUploadRooms: a presenter opens a room on an uploaded session and the
// audience follows its URL; once it is forgotten, the room answers 404.
func TestUploadRooms(t *testing.T) {
	h := newTestServer(t).Handler()
	loc := uploadedAt(t, h, nil, fixture(t, "cc_compaction.jsonl"))
	room := openTestRoom(t, h, loc)
	if rec := roomCall(t, h, http.MethodGet, "/rooms/"+room.Code, ""); rec.Code != http.StatusOK || decodeRoom(t, rec).State != loc {
		t.Fatalf("GET /rooms/%s = %d; want the session's state", room.Code, rec.Code)
	}
	if rec := call(h, http.MethodGet, "/join/"+room.Code, nil); rec.Code != http.StatusFound || rec.Header().Get("Location") != loc+"#follow="+room.Code {
		t.Errorf("join = %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := call(h, http.MethodDelete, loc, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE = %d", rec.Code)
	}
	for _, p := range []string{"/rooms/" + room.Code, "/join/" + room.Code, "/rooms/" + room.Code + "/events"} {
		if rec := call(h, http.MethodGet, p, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s after the session was forgotten = %d; want 404", p, rec.Code)
		}
	}
	if rec := roomCall(t, h, http.MethodPut, "/rooms/"+room.Code, roomBody(room.Key, loc)); rec.Code != http.StatusBadRequest {
		t.Errorf("publishing the forgotten session = %d; want 400", rec.Code)
	}
}

// TestUploadLogsNoID: no log line names an uploaded session, even one
// about a request on its path that failed.
func TestUploadLogsNoID(t *testing.T) {
	var buf bytes.Buffer
	s := newServerWith(t, Config{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	h := s.Handler()
	loc := uploadedAt(t, h, nil, fixture(t, "cc_compaction.jsonl"))
	id := stepOneRE.FindStringSubmatch(loc)[2]
	c := s.echo.NewContext(httptest.NewRequest(http.MethodGet, loc, nil), httptest.NewRecorder())
	s.handleError(fmt.Errorf("render %s: %w", loc, errors.New("boom")), c)
	s.log.Info("a line that names "+id, "lesson", id)
	call(h, http.MethodDelete, loc, nil)
	if !strings.Contains(buf.String(), "request failed") || strings.Contains(buf.String(), id) {
		t.Errorf("the log names the session's id (or logged nothing):\n%s", buf.String())
	}
	if rec := call(h, http.MethodGet, loc, nil); rec.Code != http.StatusNotFound {
		t.Fatalf("GET = %d", rec.Code)
	}
	var he *httperr.Error
	if !errors.As(uploadErr(uploads.ErrNotFound), &he) || he.Code != httperr.NotFound {
		t.Error("uploadErr(ErrNotFound) is not a 404")
	}
}
