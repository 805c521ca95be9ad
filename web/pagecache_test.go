package web

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"ctxsim/web/internal/lru"
)

// uncachedServer keeps no page and no replay: every request renders its
// page and replays its typed policies, as before the caches. Tests compare
// it with the cached server; benchmarks measure rendering with it.
var uncachedServer = sync.OnceValues(func() (*Server, error) {
	cfg, err := builtins()
	if err != nil {
		return nil, err
	}
	cfg.PageCacheBytes, cfg.ReplayCacheRuns = -1, -1
	return New(cfg)
})

func newUncachedServer(t testing.TB) *Server {
	t.Helper()
	s, err := uncachedServer()
	if err != nil {
		t.Fatalf("build server: %v", err)
	}
	return s
}

// TestStatePageHeaders checks what a state page varies on: its language is
// in its path, so it varies on Accept-Encoding only, and still remembers the
// language in a cookie. The index at "/" varies on the cookie and
// Accept-Language too.
func TestStatePageHeaders(t *testing.T) {
	s := newTestServer(t)
	rec := get(t, s, "/ja/context-memory/compaction-on.memory-on.threshold-92.rec-1/3", "Accept-Encoding", "gzip")
	if v := rec.Header().Get("Vary"); v != "Accept-Encoding" {
		t.Errorf("state page Vary = %q; want Accept-Encoding", v)
	}
	if ck := rec.Header().Get("Set-Cookie"); !strings.HasPrefix(ck, "lang=ja") {
		t.Errorf("state page Set-Cookie = %q; want lang=ja", ck)
	}
	if v := get(t, s, "/").Header().Get("Vary"); !strings.Contains(v, "Accept-Language") || !strings.Contains(v, "Cookie") {
		t.Errorf("index Vary = %q; want Accept-Encoding, Accept-Language, Cookie", v)
	}
	if v := get(t, s, "/en").Header().Get("Vary"); v != "Accept-Encoding" {
		t.Errorf("/en Vary = %q; want Accept-Encoding", v)
	}
}

func TestHeadOfKeptPage(t *testing.T) {
	s := newTestServer(t)
	path := defaultState + "/6/notes"
	for _, accept := range []string{"", "gzip", "gzip, br"} {
		g := get(t, s, path, "Accept-Encoding", accept)
		req := httptest.NewRequest(http.MethodHead, path, nil)
		req.Header.Set("Accept-Encoding", accept)
		h := httptest.NewRecorder()
		s.Handler().ServeHTTP(h, req)
		if h.Code != g.Code || h.Body.Len() != 0 {
			t.Errorf("HEAD %s (%q) = %d with %d bytes; want %d and no body", path, accept, h.Code, h.Body.Len(), g.Code)
		}
		for _, k := range []string{"Content-Type", "Content-Encoding", "Content-Length", "ETag", "Vary"} {
			if h.Header().Get(k) != g.Header().Get(k) {
				t.Errorf("HEAD %s (%q) %s = %q; GET has %q", path, accept, k, h.Header().Get(k), g.Header().Get(k))
			}
		}
	}
}

// keptPages lists the pages of every kind, each under its canonical path.
func keptPages() []string {
	vs := defaultState + "/vs/compaction-off.memory-on.threshold-92.rec-1/8"
	return []string{
		defaultState + "/8", defaultState + "/8/present", defaultState + "/8/notes", vs, vs + "/present",
		defaultState + "/handout", "/en", "/ja",
		"/en/context-memory/compaction-on.memory-on.threshold-73.rec-2/8",
		"/ja/context-memory/compaction-on.memory-off.threshold-41.rec-1/vs/compaction-off.memory-on.threshold-73.rec-1/5/present",
		"/en/status-bar/status-append.counter-off.clock-off.alpha-10/8",
		"/en/tiered-compaction/strategy-tiered.floor-on.summarizer-ok.budget-attempts.pairs-kept/12",
	}
}

// TestKeptPageEqualsFreshRender serves every kind of page from the cache
// and compares it byte for byte with a render by a server that keeps
// nothing.
func TestKeptPageEqualsFreshRender(t *testing.T) {
	s, fresh := newTestServer(t), newUncachedServer(t)
	for _, path := range keptPages() {
		first := get(t, s, path)
		if first.Code != 200 {
			t.Fatalf("GET %s = %d", path, first.Code)
		}
		if _, ok := s.caches.pages.Get(path); !ok {
			t.Errorf("GET %s: page not kept under its path", path)
		}
		hit, want := get(t, s, path, "Accept-Encoding", "br"), get(t, fresh, path)
		if got := decode(t, hit); !bytes.Equal(got, want.Body.Bytes()) || !bytes.Equal(first.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("GET %s: kept page (%d bytes) differs from a fresh render (%d bytes)", path, len(got), want.Body.Len())
		}
	}
	for _, tt := range []struct{ header, value, page string }{{"Accept-Language", "ja", "/ja"}, {"Cookie", "lang=en", "/en"}, {"Cookie", "lang=ja", "/ja"}} {
		got, want := get(t, s, "/", tt.header, tt.value), get(t, fresh, tt.page)
		if !bytes.Equal(got.Body.Bytes(), want.Body.Bytes()) {
			t.Errorf("GET / with %s %s differs from %s", tt.header, tt.value, tt.page)
		}
	}
}

// TestNonCanonicalPathSharesThePage: a policy spelled in another order is
// the same state, kept once under the canonical path.
func TestNonCanonicalPathSharesThePage(t *testing.T) {
	s := newTestServer(t)
	canon := "/en/context-memory/compaction-on.memory-on.threshold-64.rec-3/4"
	other := "/en/context-memory/rec-3.threshold-64.memory-on.compaction-on/4"
	a, b := get(t, s, canon), get(t, s, other)
	if a.Code != 200 || b.Code != 200 || !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
		t.Fatalf("GET %s = %d, GET %s = %d; want the same page", canon, a.Code, other, b.Code)
	}
	if _, ok := s.caches.pages.Get(other); ok {
		t.Errorf("page kept under the non-canonical path %s", other)
	}
}

func TestErrorsAndRedirectsAreNotKept(t *testing.T) {
	s := newServerWith(t, Config{})
	for _, tt := range []struct {
		path string
		want int
	}{
		{defaultState + "/99", 400},
		{defaultState + "/0", 400},
		{"/en/context-memory/compaction-on.memory-on.threshold-101.rec-1/1", 400},
		{"/en/nope/compaction-on.memory-on.threshold-92.rec-1/1", 404},
		{"/xx/context-memory/compaction-on.memory-on.threshold-92.rec-1/1", 404},
		{defaultState + "/8/slides", 400},
		{defaultState + "/vs/compaction-off.memory-on.threshold-92.rec-1/8/notes", 400},
		{"/en/context-memory/compaction-on.memory-on.threshold-92.rec-9/handout", 400},
		{defaultState + "/4?threshold=50", 302},
		{"/en/context-memory", 302},
		{"/context-memory", 302},
		{"/nope", 404},
	} {
		for range 2 { // a second visit must not find anything either
			if rec := get(t, s, tt.path, "Accept-Encoding", "gzip"); rec.Code != tt.want {
				t.Errorf("GET %s = %d; want %d", tt.path, rec.Code, tt.want)
			}
		}
	}
	if n, used := s.caches.pages.Stats(); n != 0 || used != 0 {
		t.Errorf("after errors and redirects: %d pages kept (%d bytes); want none", n, used)
	}
}

// TestPageCacheBound fills a cache of 100 KB with ~37 KB pages: it never
// holds more than its bound, keeps the most recent pages, and counts the
// encodings made after a page was kept.
func TestPageCacheBound(t *testing.T) {
	const limit = 100_000
	s := newServerWith(t, Config{PageCacheBytes: limit})
	var paths []string
	for step := 1; step <= 6; step++ {
		paths = append(paths, defaultState+"/"+strconv.Itoa(step))
	}
	for _, p := range paths {
		rec := get(t, s, p, "Accept-Encoding", "gzip")
		if rec.Code != 200 {
			t.Fatalf("GET %s = %d", p, rec.Code)
		}
		if _, used := s.caches.pages.Stats(); used > limit {
			t.Fatalf("after GET %s: %d bytes kept; want at most %d", p, used, limit)
		}
		b, ok := s.caches.pages.Get(p)
		if !ok {
			t.Fatalf("GET %s: the page just served is not kept", p)
		}
		if got, want := costOf(s.caches.pages, p), int64(len(p)+len(b.raw)+rec.Body.Len()); got != want {
			t.Errorf("GET %s: cost %d; want path + page + gzip = %d", p, got, want)
		}
	}
	n, _ := s.caches.pages.Stats()
	if n >= len(paths) || n == 0 {
		t.Errorf("%d of %d pages kept under a %d-byte bound; want some evicted", n, len(paths), limit)
	}
	if _, ok := s.caches.pages.Get(paths[len(paths)-1]); !ok {
		t.Error("the page just served was evicted")
	}
	if _, ok := s.caches.pages.Get(paths[0]); ok {
		t.Error("the least recently used page is still kept")
	}
	if rec := get(t, s, paths[0]); rec.Code != 200 {
		t.Errorf("GET %s after its eviction = %d; want 200", paths[0], rec.Code)
	}
}

// costOf is the cost an lru counts for key.
func costOf[V comparable](c *lru.Cache[V], key string) int64 {
	if n, ok := c.Cost(key); ok {
		return n
	}
	return -1
}

func TestReplaysAreShared(t *testing.T) {
	s := newTestServer(t)
	l := s.lib().byID["context-memory"]
	typed, err := l.ParsePolicy("compaction-on.memory-on.threshold-77.rec-4")
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.runs.Run(l, typed)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := s.runs.Run(l, typed); a != b {
		t.Error("a typed policy replayed twice; want the kept replay")
	}
	if s.runs.replays.Limit() != defaultReplayCacheRuns {
		t.Errorf("replay bound = %d; want %d", s.runs.replays.Limit(), defaultReplayCacheRuns)
	}
	if r, _ := s.runs.Run(l, l.DefaultPolicy()); r != s.lib().presets[runKey{l.ID, l.DefaultPolicy()}] {
		t.Error("a preset policy did not come from the start-up runs")
	}
}

// TestConcurrentFirstVisits: many visitors of a page nobody has seen yet,
// asking for different codings at once, all get the same page.
func TestConcurrentFirstVisits(t *testing.T) {
	s := newTestServer(t)
	path := "/en/context-memory/compaction-off.memory-off.threshold-37.rec-5/6"
	want := get(t, newUncachedServer(t), path).Body.Bytes()
	var wg sync.WaitGroup
	for i := range 16 {
		accept := []string{"", "gzip", "gzip, br"}[i%3]
		wg.Go(func() {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			req.Header.Set("Accept-Encoding", accept)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != 200 {
				t.Errorf("GET %s (%q) = %d", path, accept, rec.Code)
				return
			}
			got, err := decodeBody(rec.Header().Get("Content-Encoding"), rec.Body)
			if err != nil || !bytes.Equal(got, want) {
				t.Errorf("GET %s (%q): %d bytes (%v) differ from a fresh render", path, accept, len(got), err)
			}
		})
	}
	wg.Wait()
}
