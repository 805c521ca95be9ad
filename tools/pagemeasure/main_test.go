package main

// Real-browser tests: Debian chromium, a loopback httptest server, no
// network. They fail, never skip, when chromium is missing.

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"ctxsim/internal/cli"
	"ctxsim/internal/testbrowser"
)

const (
	testTimeout = 90 * time.Second // whole test, browser included
	headerSlack = 2 * 1024         // allowed response-header bytes per request
	// jsDelay holds the async script back so that the load event comes
	// well after the first paint (a tiny page can fire load before its
	// first paint), making load ≥ FCP deterministic.
	jsDelay = 500 * time.Millisecond
)

// testChromium returns the Chromium binary of the tests, failing the test
// (never skipping it) with an installation hint when it is missing.
func testChromium(t *testing.T) string {
	t.Helper()
	p, err := testbrowser.Path()
	if err != nil {
		t.Fatal(err)
	}
	if err := checkChromium(p); err != nil {
		t.Fatalf("pagemeasure tests need Chromium: %v", err)
	}
	return p
}

// testOptions are the measuring options of the tests.
func testOptions(t *testing.T, runs int) options {
	return options{runs: runs, chromium: testChromium(t), width: 1024, height: 768, timeout: 30 * time.Second}
}

// testChrome is the package's one measuring Chromium, started by the
// first test that measures and closed by TestMain: a start costs seconds
// of CPU, and the tests share nothing but the process (each visit has a
// browser context of its own). Its size is the tests' (testOptions).
func testChrome(t *testing.T, opts options) *chrome {
	t.Helper()
	sharedChrome.once.Do(func() { sharedChrome.c, sharedChrome.err = startChrome(context.Background(), opts) })
	if sharedChrome.err != nil {
		t.Fatal(sharedChrome.err)
	}
	return sharedChrome.c
}

// sharedChrome holds testChrome's Chromium.
var sharedChrome struct {
	once sync.Once
	c    *chrome
	err  error
}

// TestMain closes the shared Chromium after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if sharedChrome.c != nil {
		sharedChrome.c.close()
	}
	os.Exit(code)
}

// gz compresses s with gzip.
func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// asset is one gzip-encoded response of the test site.
type asset struct {
	contentType string
	body        []byte // gzip bytes, sent as they are
	delay       time.Duration
}

// site is a small page with one stylesheet and one script, every response
// gzip-encoded, and a data: icon so that Chromium asks for no favicon. It
// records what the browser asked for.
type site struct {
	assets map[string]asset

	mu        sync.Mutex
	hits      map[string]int
	encodings map[string]bool // Accept-Encoding values seen
}

// newSite builds the site's responses.
func newSite(t *testing.T) *site {
	t.Helper()
	css := "body { font: 16px/1.5 sans-serif; margin: 2rem; }\nh1 { color: #234; }\n" + strings.Repeat("p.x { color: #333; }\n", 40)
	js := "document.documentElement.dataset.ready = 'yes';\n" + strings.Repeat("console.debug('pagemeasure test');\n", 30)
	html := `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>pagemeasure test</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/style.css">
<script src="/app.js" async></script>
</head><body><h1>Cold visit</h1><p>` + strings.Repeat("Some text to paint. ", 50) + `</p></body></html>`
	return &site{
		assets: map[string]asset{
			"/":          {contentType: "text/html; charset=utf-8", body: gz(t, html)},
			"/style.css": {contentType: "text/css", body: gz(t, css)},
			"/app.js":    {contentType: "text/javascript", body: gz(t, js), delay: jsDelay},
		},
		hits:      map[string]int{},
		encodings: map[string]bool{},
	}
}

// bodyBytes is the sum of the compressed bodies of the page's responses.
func (s *site) bodyBytes() int64 {
	var n int64
	for _, a := range s.assets {
		n += int64(len(a.body))
	}
	return n
}

// ServeHTTP serves the assets, cacheable for an hour (so that a visit
// that is not cold would skip them), a 404 page at /missing, and 404 for
// anything else.
func (s *site) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.hits[r.URL.Path]++
	s.encodings[r.Header.Get("Accept-Encoding")] = true
	s.mu.Unlock()
	a, ok := s.assets[r.URL.Path]
	if !ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprint(w, "<!doctype html><title>Not found</title><h1>Not found</h1>")
		return
	}
	if a.delay > 0 {
		select {
		case <-time.After(a.delay):
		case <-r.Context().Done():
			return
		}
	}
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("Content-Encoding", "gzip")
	h.Set("Content-Length", fmt.Sprint(len(a.body)))
	h.Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write(a.body)
}

// snapshot returns copies of the hits and Accept-Encoding values so far.
func (s *site) snapshot() (map[string]int, map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	hits := make(map[string]int, len(s.hits))
	for k, v := range s.hits {
		hits[k] = v
	}
	enc := make(map[string]bool, len(s.encodings))
	for k, v := range s.encodings {
		enc[k] = v
	}
	return hits, enc
}

// startSite serves a new test site on loopback for one test.
func startSite(t *testing.T) (*site, string) {
	t.Helper()
	s := newSite(t)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts.URL
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

func TestMeasureColdVisit(t *testing.T) {
	const runs = 3
	opts := testOptions(t, runs)
	c := testChrome(t, opts)
	s, base := startSite(t)

	r, err := measure(testContext(t), c, opts, base+"/")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v (bodies %d B)", r, s.bodyBytes())

	if r.Requests != 3 || r.Failed != 0 {
		t.Errorf("requests = %d, failed = %d; want 3 and 0 (page, CSS, JS)", r.Requests, r.Failed)
	}
	// encodedDataLength counts the response headers too: each of the
	// three responses may add up to headerSlack bytes.
	lo, hi := s.bodyBytes(), s.bodyBytes()+3*headerSlack
	if r.Bytes < lo || r.Bytes > hi {
		t.Errorf("bytes = %d; want the compressed bodies plus headers, %d to %d", r.Bytes, lo, hi)
	}
	if r.FCPMS <= 0 {
		t.Errorf("FCP = %v ms; want > 0", r.FCPMS)
	}
	if r.LoadMS < r.FCPMS {
		t.Errorf("load = %v ms < FCP = %v ms", r.LoadMS, r.FCPMS)
	}
	if r.LoadMS < float64(jsDelay.Milliseconds()) {
		t.Errorf("load = %v ms; want ≥ %v (the script is held back that long)", r.LoadMS, jsDelay)
	}
	if r.Runs != runs || r.URL != base+"/" {
		t.Errorf("runs, url = %d, %q; want %d, %q", r.Runs, r.URL, runs, base+"/")
	}

	// Cold visits: every visit fetched everything again, although the
	// responses are cacheable, and asked for nothing else.
	hits, enc := s.snapshot()
	for path := range s.assets {
		if hits[path] != runs {
			t.Errorf("%s fetched %d times in %d visits; want once a visit", path, hits[path], runs)
		}
	}
	if len(hits) != len(s.assets) {
		t.Errorf("server saw %v; want only %d asset paths", hits, len(s.assets))
	}
	// Chromium's default Accept-Encoding is kept.
	if len(enc) != 1 || !enc["gzip, deflate, br, zstd"] {
		t.Errorf("Accept-Encoding values %v; want only Chromium's default \"gzip, deflate, br, zstd\"", enc)
	}
}

func TestMeasureMainDocument404(t *testing.T) {
	opts := testOptions(t, 2)
	c := testChrome(t, opts)
	_, base := startSite(t)
	url := base + "/missing"

	_, err := measure(testContext(t), c, opts, url)
	if err == nil {
		t.Fatal("measure of a 404 page succeeded; want an error")
	}
	t.Log(err)
	for _, want := range []string{url, "404"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestMeasureHangingPageTimesOut(t *testing.T) {
	opts := testOptions(t, 1)
	opts.timeout = 2 * time.Second
	c := testChrome(t, opts)
	release := make(chan struct{})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // never answers while the test runs
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(ts.Close)
	t.Cleanup(func() { close(release) }) // runs before ts.Close

	start := time.Now()
	_, err := measure(testContext(t), c, opts, ts.URL+"/slow")
	if err == nil {
		t.Fatal("measure of a page that never answers succeeded")
	}
	t.Log(err)
	if d := time.Since(start); d > opts.timeout+5*time.Second {
		t.Errorf("measure gave up after %v; want about the visit timeout %v", d, opts.timeout)
	}
	if !strings.Contains(err.Error(), ts.URL+"/slow") {
		t.Errorf("error %q does not name the URL", err)
	}
}

func TestRunJSON(t *testing.T) {
	exe := testChromium(t)
	_, base := startSite(t)
	var out, errOut bytes.Buffer
	err := run(testContext(t), []string{"-chromium", exe, "-n", "1", "-width", "800", "-height", "600", "-json", base + "/"}, &out, &errOut)
	if err != nil {
		t.Fatalf("run: %v (stderr %q)", err, errOut.String())
	}
	var got []map[string]any
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("output is not a JSON array: %v\n%s", err, out.String())
	}
	if len(got) != 1 {
		t.Fatalf("got %d results; want 1:\n%s", len(got), out.String())
	}
	for _, field := range []string{"url", "bytes", "requests", "failed", "fcp_ms", "load_ms", "runs"} {
		if _, ok := got[0][field]; !ok {
			t.Errorf("result has no %q field: %v", field, got[0])
		}
	}
	if got[0]["requests"] != 3.0 || got[0]["runs"] != 1.0 {
		t.Errorf("requests, runs = %v, %v; want 3, 1", got[0]["requests"], got[0]["runs"])
	}
}

func TestRunMissingChromium(t *testing.T) {
	var out, errOut bytes.Buffer
	missing := t.TempDir() + "/no-chromium"
	err := run(context.Background(), []string{"-chromium", missing, "http://127.0.0.1:1/"}, &out, &errOut)
	if err == nil {
		t.Fatal("run with no chromium succeeded")
	}
	for _, want := range []string{missing, "apt-get install chromium", "CTXSIM_CHROMIUM"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

func TestRunBadArgs(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-n", "0", "http://x/"},
		{"ftp://x/"},
		{"-timeout", "0s", "http://x/"},
	} {
		var out, errOut bytes.Buffer
		if err := run(context.Background(), args, &out, &errOut); err != cli.ErrUsage {
			t.Errorf("run %q = %v; want cli.ErrUsage", args, err)
		}
	}
}

func TestWriteTable(t *testing.T) {
	var b bytes.Buffer
	err := writeTable(&b, []result{
		{URL: "http://h/a", Bytes: 90948, Requests: 8, FCPMS: 170.4, LoadMS: 64.2, Runs: 5},
		{URL: "http://h/long/path", Bytes: 512, Requests: 2, Failed: 1, FCPMS: 12, LoadMS: 1234.6, Runs: 5},
	}, 5, "148.0.7778.167")
	if err != nil {
		t.Fatal(err)
	}
	want := `URL                              BYTES       REQUESTS  FCP ms  LOAD ms
http://h/a          90.9 KB (90,948 B)              8     170       64
http://h/long/path      0.5 KB (512 B)  2 (+1 failed)      12     1235
median of 5 cold visits, cache disabled, Chromium 148.0.7778.167
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v; want %v", c.in, got, c.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 90948: "90,948", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q; want %q", n, got, want)
		}
	}
}
