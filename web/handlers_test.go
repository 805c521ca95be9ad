package web

import (
	"context"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const defaultState = "/en/context-memory/compaction-on.memory-on.threshold-92.rec-1"

func get(t *testing.T, s *Server, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	return rec
}

func TestRoutes(t *testing.T) {
	s := newTestServer(t)
	tests := []struct {
		name     string
		path     string
		header   []string
		status   int
		location string   // for redirects
		contains []string // in the body
	}{
		{"index", "/", nil, 200, "", []string{`data-testid="lesson-list"`, "/en/context-memory/compaction-on.memory-on.threshold-92.rec-1/1"}},
		{"index ja by Accept-Language", "/", []string{"Accept-Language", "ja,en;q=0.8"}, 200, "", []string{`lang="ja"`, "/ja/context-memory/"}},
		{"index en when ja has lower q", "/", []string{"Accept-Language", "fr, en;q=0.9, ja;q=0.5"}, 200, "", []string{`lang="en"`}},
		{"index en fallback", "/", []string{"Accept-Language", "de-DE"}, 200, "", []string{`lang="en"`}},
		{"index by cookie", "/", []string{"Cookie", "lang=ja"}, 200, "", []string{`lang="ja"`}},
		{"index /en", "/en", nil, 200, "", []string{`lang="en"`}},
		{"trailing slash on a language", "/en/", nil, 301, "/en", nil},
		{"trailing slash on a lesson", "/en/status-bar/", nil, 301, "/en/status-bar", nil},
		{"trailing slash on a state keeps the query", defaultState + "/4/?threshold=50", nil, 301, defaultState + "/4?threshold=50", nil},
		{"index /ja", "/ja", nil, 200, "", []string{`lang="ja"`}},
		{"lesson without language", "/context-memory", []string{"Accept-Language", "ja"}, 302, "/ja/context-memory/compaction-on.memory-on.threshold-92.rec-1/1", nil},
		{"lesson default", "/en/context-memory", nil, 302, defaultState + "/1", nil},
		{"lesson policy", "/en/context-memory/compaction-off.memory-on.threshold-92.rec-1", nil, 302, "/en/context-memory/compaction-off.memory-on.threshold-92.rec-1/1", nil},
		{"lesson query", "/en/context-memory?compaction=off", nil, 302, "/en/context-memory/compaction-off.memory-on.threshold-92.rec-1/1", nil},
		{"query on a state keeps the point of the trace", defaultState + "/4?threshold=50", nil, 302, "/en/context-memory/compaction-on.memory-on.threshold-50.rec-1/4", nil},
		{"state step 4", defaultState + "/4", nil, 200, "", []string{`data-testid="meter"`, "47.9k / 50k", "92% · 46.0k", "Step 4 of 14"}},
		{"state step 8", defaultState + "/8", nil, 200, "", []string{"27.2k / 50k", `data-id="s92"`, "Written for this lesson"}},
		{"state ja", "/ja/context-memory/compaction-on.memory-on.threshold-92.rec-1/1", nil, 200, "", []string{`lang="ja"`, "ステップ 1 / 14"}},
		{"overflow state", "/en/context-memory/compaction-off.memory-on.threshold-92.rec-1/8", nil, 200, "", []string{"53.5k / 50k", "context_length_exceeded", `data-testid="overflow"`}},
		{"custom threshold", "/en/context-memory/compaction-on.memory-on.threshold-96.rec-1/9", nil, 200, "", []string{"mechanical excerpt"}},
		{"jump to a step", defaultState + "/4?step=11", nil, 302, defaultState + "/11", nil},
		{"jump to a step of a comparison", "/en/context-memory/" + cmPolicy + "/vs/" + cmOverflow + "/2?step=9", nil, 302, "/en/context-memory/" + cmPolicy + "/vs/" + cmOverflow + "/9", nil},
		{"healthz", "/healthz", nil, 200, "", []string{`{"lessons":"ok","rooms":"ok"}`}},
		{"api lessons", "/api/lessons", nil, 200, "", []string{`"id":"context-memory"`, `"title":`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(t, s, tt.path, tt.header...)
			if rec.Code != tt.status {
				t.Fatalf("GET %s = %d; want %d\n%s", tt.path, rec.Code, tt.status, rec.Body.String())
			}
			if tt.location != "" {
				if got := rec.Header().Get("Location"); got != tt.location {
					t.Errorf("GET %s Location = %q; want %q", tt.path, got, tt.location)
				}
			}
			body := rec.Body.String()
			for _, want := range tt.contains {
				if !strings.Contains(body, want) {
					t.Errorf("GET %s body lacks %q", tt.path, want)
				}
			}
		})
	}
}

// TestTypedThresholdModeLinks: on a page with a typed threshold, a mode
// option whose policy is a preset links to its canonical URL at the same
// point of the trace; one whose policy is not links to this state with the
// parameter as a query, which redirects to the same point of the trace.
func TestTypedThresholdModeLinks(t *testing.T) {
	s := newTestServer(t)
	page := "/en/context-memory/compaction-on.memory-on.threshold-73.rec-1/8"
	body := get(t, s, page).Body.String()
	href := func(testid string) string {
		m := regexp.MustCompile(`href="([^"]+)"[^>]*data-testid="` + testid + `"`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("%s: no %s link", page, testid)
		}
		return html.UnescapeString(m[1])
	}
	if got := href("mode-threshold-92"); !strings.HasPrefix(got, "/en/context-memory/compaction-on.memory-on.threshold-92.rec-1/") {
		t.Errorf("threshold 92 (a preset) links to %q; want its canonical URL", got)
	}
	off := href("mode-compaction-off")
	if off != page+"?compaction=off" {
		t.Fatalf("compaction off (not a preset at 73%%) links to %q; want %s?compaction=off", off, page)
	}
	rec := get(t, s, off)
	want := "/en/context-memory/compaction-off.memory-on.threshold-73.rec-1/"
	if rec.Code != http.StatusFound || !strings.HasPrefix(rec.Header().Get("Location"), want) {
		t.Errorf("GET %s = %d → %q; want 302 to %s…", off, rec.Code, rec.Header().Get("Location"), want)
	}
}

func TestBadInput(t *testing.T) {
	s := newTestServer(t)
	tests := []struct {
		name   string
		path   string
		status int
		param  string // named in the 400 page or JSON
		want   string // also in the body
	}{
		{"api threshold abc", "/api/lessons/context-memory/frames?threshold=abc", 400, "threshold", "1 to 100"},
		{"api threshold 250", "/api/lessons/context-memory/frames?threshold=250", 400, "threshold", "1 to 100"},
		{"api threshold 0", "/api/lessons/context-memory/frames?threshold=0", 400, "threshold", "1 to 100"},
		{"api threshold +50", "/api/lessons/context-memory/frames?threshold=%2B50", 400, "threshold", "1 to 100"},
		{"api compaction maybe", "/api/lessons/context-memory/frames?compaction=maybe", 400, "compaction", "on|off"},
		{"api memory yes", "/api/lessons/context-memory/frames?memory=yes", 400, "memory", "on|off"},
		{"api rec 99", "/api/lessons/context-memory/frames?rec=99", 400, "rec", "1 to 5"},
		{"api rec twice", "/api/lessons/context-memory/frames?rec=1&rec=2", 400, "rec", "1 to 5"},
		{"api unknown lesson", "/api/lessons/nope/frames", 404, "", `"lessons":[{"id":"context-memory"`},
		{"api from 0", "/api/lessons/context-memory/frames?from=0", 400, "from", "an integer from 1"},
		{"api from abc", "/api/lessons/context-memory/frames?from=abc", 400, "from", "an integer from 1"},
		{"api from twice", "/api/lessons/context-memory/frames?from=1&from=2", 400, "from", "an integer from 1"},
		{"api from past the end", "/api/lessons/context-memory/frames?from=15", 400, "from", "1 to 14"},
		{"api to past the end", "/api/lessons/context-memory/frames?to=15", 400, "to", "1 to 14"},
		{"api to before from", "/api/lessons/context-memory/frames?from=5&to=4", 400, "to", "5 to 14"},
		{"api to +3", "/api/lessons/context-memory/frames?to=%2B3", 400, "to", "an integer from 1"},
		{"page threshold 250", "/en/context-memory/compaction-on.memory-on.threshold-250.rec-1/1", 400, "threshold", "1 to 100"},
		{"page compaction maybe", "/en/context-memory/compaction-maybe.memory-on.threshold-92.rec-1/1", 400, "compaction", "on|off"},
		{"page rec 99", "/en/context-memory/compaction-on.memory-on.threshold-92.rec-99/1", 400, "rec", "1 to 5"},
		{"page missing param", "/en/context-memory/compaction-on.memory-on.threshold-92/1", 400, "rec", "missing"},
		{"page junk policy", "/en/context-memory/whatever/1", 400, "policy", "compaction-on.memory-on"},
		{"page step 0", defaultState + "/0", 400, "step", "1 to 14"},
		{"page step 99", defaultState + "/99", 400, "step", "1 to 14"},
		{"page step abc", defaultState + "/abc", 400, "step", "1 to 14"},
		{"page query threshold abc", defaultState + "/1?threshold=abc", 400, "threshold", "1 to 100"},
		{"jump past the end", defaultState + "/1?step=15", 400, "step", "1 to 14"},
		{"jump to nothing", defaultState + "/1?step=", 400, "step", "1 to 14"},
		{"jump twice", defaultState + "/1?step=2&step=3", 400, "step", "1 to 14"},
		{"unknown lesson", "/en/nope", 404, "", "context-memory"},
		{"unknown lesson state", "/en/nope/compaction-on.memory-on.threshold-92.rec-1/1", 404, "", "context-memory"},
		{"unknown language", "/xx/context-memory", 404, "", "context-memory"},
		{"unknown page", "/nope", 404, "", "context-memory"},
		{"too deep", "/en/context-memory/a/b/c", 400, "policy", "context-memory"},
		{"static dot segments", "/static/..%2Fgo.mod", 404, "", ""},
		{"static unhashed name", "/static/app.css", 404, "", ""},
		{"static embed source", "/static/embed.go", 404, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(t, s, tt.path)
			if rec.Code != tt.status {
				t.Fatalf("GET %s = %d; want %d\n%s", tt.path, rec.Code, tt.status, rec.Body.String())
			}
			body := rec.Body.String()
			if strings.Contains(body, "go.mod") && strings.Contains(body, "module ctxsim") {
				t.Fatalf("GET %s leaked a file", tt.path)
			}
			if tt.param != "" && !strings.Contains(body, tt.param) {
				t.Errorf("GET %s body does not name parameter %q:\n%s", tt.path, tt.param, body)
			}
			if tt.want != "" && !strings.Contains(body, tt.want) {
				t.Errorf("GET %s body lacks %q", tt.path, tt.want)
			}
			if strings.HasPrefix(tt.path, "/api/") {
				var e errorBody
				if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error == "" {
					t.Errorf("GET %s: want a JSON error, got %q (%v)", tt.path, body, err)
				}
				if tt.param != "" && e.Param != tt.param {
					t.Errorf("GET %s JSON param = %q; want %q", tt.path, e.Param, tt.param)
				}
			} else if tt.status == 400 && !strings.Contains(body, `data-testid="error-param"`) {
				t.Errorf("GET %s: the 400 page does not show the parameter block", tt.path)
			}
		})
	}
}

func TestSecurityHeaders(t *testing.T) {
	s := newTestServer(t)
	rec := get(t, s, defaultState+"/1")
	csp := rec.Header().Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "style-src 'self'", "default-src 'none'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") {
		t.Errorf("CSP allows unsafe-inline: %q", csp)
	}
	body := rec.Body.String()
	// No inline script: every <script> has a src, no on* handler, no style attribute.
	for _, bad := range []string{"<script>", " onclick=", " onload=", " style=\""} {
		if strings.Contains(body, bad) {
			t.Errorf("page contains %q", bad)
		}
	}
	if n := strings.Count(body, "<script src=\"/static/"); n != 1 {
		t.Errorf("page has %d local scripts; want 1 (app.js): room.js loads only where a room is used, messages.js when a script first needs a word", n)
	}
	present := get(t, s, defaultState+"/1/present").Body.String()
	if !strings.Contains(present, `<script src="`+s.assets.urls.Room+`"`) {
		t.Errorf("the presenter view does not load room.js")
	}
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("page links to another host")
	}
	if got := rec.Header().Get("X-Frame-Options"); got != "DENY" {
		t.Errorf("X-Frame-Options = %q; want DENY", got)
	}
}

func TestStaticAssets(t *testing.T) {
	s := newTestServer(t)
	for _, url := range []string{s.assets.urls.CSS, s.assets.urls.JS, s.assets.urls.Room, s.assets.urls.Messages} {
		rec := get(t, s, url)
		if rec.Code != 200 {
			t.Fatalf("GET %s = %d; want 200", url, rec.Code)
		}
		if cc := rec.Header().Get("Cache-Control"); !strings.Contains(cc, "immutable") {
			t.Errorf("GET %s Cache-Control = %q; want immutable", url, cc)
		}
		etag := rec.Header().Get("ETag")
		rec2 := get(t, s, url, "If-None-Match", etag)
		if rec2.Code != http.StatusNotModified {
			t.Errorf("GET %s with its ETag = %d; want 304", url, rec2.Code)
		}
	}
}

func TestHeadHasNoBody(t *testing.T) {
	s := newTestServer(t)
	for _, path := range []string{defaultState + "/1", "/en/nope"} {
		req := httptest.NewRequest(http.MethodHead, path, nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Body.Len() != 0 {
			t.Errorf("HEAD %s wrote %d bytes of body", path, rec.Body.Len())
		}
	}
}

// apiFrames fetches and decodes the frames document.
func apiFrames(t *testing.T, s *Server, query string) map[string]any {
	t.Helper()
	rec := get(t, s, "/api/lessons/context-memory/frames"+query)
	if rec.Code != 200 {
		t.Fatalf("GET frames%s = %d\n%s", query, rec.Code, rec.Body.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return doc
}

func TestFramesAPIContract(t *testing.T) {
	s := newTestServer(t)
	doc := apiFrames(t, s, "")
	if doc["lesson"] != "context-memory" || doc["window"] != 50000.0 || doc["threshold_tokens"] != 46000.0 {
		t.Fatalf("header = %v %v %v; want context-memory 50000 46000", doc["lesson"], doc["window"], doc["threshold_tokens"])
	}
	frames := doc["frames"].([]any)
	var totals []int
	compactions := 0
	for i, fa := range frames {
		f := fa.(map[string]any)
		for _, k := range []string{"step", "total_tokens", "error", "blocks", "memory_file", "memory_injected", "events"} {
			if _, ok := f[k]; !ok {
				t.Fatalf("frame %d lacks %q", i+1, k)
			}
		}
		if int(f["step"].(float64)) != i+1 {
			t.Errorf("frame %d step = %v", i+1, f["step"])
		}
		totals = append(totals, int(f["total_tokens"].(float64)))
		for _, ba := range f["blocks"].([]any) {
			b := ba.(map[string]any)
			for _, k := range []string{"id", "role", "kind", "tokens", "content"} {
				if _, ok := b[k]; !ok {
					t.Fatalf("frame %d block lacks %q", i+1, k)
				}
			}
			switch b["role"] {
			case "system", "user", "assistant", "tool":
			default:
				t.Errorf("block role %v not allowed", b["role"])
			}
		}
		for _, ea := range f["events"].([]any) {
			if ea.(map[string]any)["type"] == "compaction" {
				compactions++
			}
		}
	}
	for _, want := range []int{4000, 5300, 47900, 27200, 4100} {
		if !containsInt(totals, want) {
			t.Errorf("totals %v lack %d", totals, want)
		}
	}
	if compactions != 1 {
		t.Errorf("default mode has %d compaction events; want 1", compactions)
	}
	// The summary and the memory copy carry their kinds.
	f8 := frames[7].(map[string]any)
	kinds := map[string]bool{}
	for _, ba := range f8["blocks"].([]any) {
		kinds[ba.(map[string]any)["kind"].(string)] = true
	}
	if !kinds["memory"] || !kinds["summary"] {
		t.Errorf("frame 8 kinds = %v; want memory and summary", kinds)
	}
}

func TestFramesAPIOverflow(t *testing.T) {
	s := newTestServer(t)
	doc := apiFrames(t, s, "?compaction=off")
	refused := 0
	for _, fa := range doc["frames"].([]any) {
		f := fa.(map[string]any)
		overflow := false
		for _, ea := range f["events"].([]any) {
			if ea.(map[string]any)["type"] == "overflow" {
				overflow = true
			}
		}
		if overflow {
			refused++
			if f["error"] != "context_length_exceeded" || f["total_tokens"] != 53500.0 {
				t.Errorf("overflow frame error = %v, total = %v; want context_length_exceeded, 53500", f["error"], f["total_tokens"])
			}
		} else if f["error"] != nil {
			t.Errorf("frame %v has error %v without an overflow event", f["step"], f["error"])
		}
	}
	if refused != 1 {
		t.Errorf("no-compaction run has %d refused frames; want 1", refused)
	}
}

func TestFramesAPIModes(t *testing.T) {
	s := newTestServer(t)
	count := func(q string) int {
		n := 0
		for _, fa := range apiFrames(t, s, q)["frames"].([]any) {
			for _, ea := range fa.(map[string]any)["events"].([]any) {
				if ea.(map[string]any)["type"] == "compaction" {
					n++
				}
			}
		}
		return n
	}
	tests := []struct {
		query string
		want  int
	}{{"", 1}, {"?threshold=50", 2}, {"?compaction=off", 0}, {"?threshold=50&memory=off", 1}, {"?rec=4", 1}}
	for _, tt := range tests {
		if got := count(tt.query); got != tt.want {
			t.Errorf("compactions(%q) = %d; want %d", tt.query, got, tt.want)
		}
	}
	last := func(q string) string {
		frames := apiFrames(t, s, q)["frames"].([]any)
		blocks := frames[len(frames)-1].(map[string]any)["blocks"].([]any)
		return blocks[len(blocks)-1].(map[string]any)["content"].(string)
	}
	if got := last(""); !strings.Contains(got, "pnpm add date-fns") {
		t.Errorf("default retention answer = %q; want pnpm add date-fns", got)
	}
	if got := last("?memory=off"); !strings.Contains(got, "npm install lodash") {
		t.Errorf("no-memory retention answer = %q; want npm install lodash", got)
	}
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// FuzzPaths: no request path makes the server answer 5xx or panic.
func FuzzPaths(f *testing.F) {
	for _, seed := range []string{"/", "/en/context-memory", defaultState + "/3", "/api/lessons/context-memory/frames?threshold=7", "/static/x", "/%ff",
		"/en/context-memory/compaction-on.memory-on.threshold-1.rec-5/2", defaultState + "/3/present", defaultState + "/vs/compaction-off.memory-on.threshold-92.rec-1/4/present",
		defaultState + "/handout", "/en/status-bar/status-append.counter-on.clock-off.alpha-10/3/notes", "/join/ABC234", "/rooms/ABC234",
		"/en/tiered-compaction/strategy-age.floor-off.summarizer-broken.budget-successes.pairs-broken/5"} {
		f.Add(seed)
	}
	s := newTestServer(f)
	f.Fuzz(func(t *testing.T, path string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " \r\n\t#") {
			return
		}
		req, err := http.NewRequest(http.MethodGet, "http://x"+path, nil)
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code >= 500 {
			body, _ := io.ReadAll(rec.Body)
			t.Fatalf("GET %q = %d\n%s", path, rec.Code, body)
		}
	})
}

// An error page keeps its status when the visitor's request is cancelled
// before it is rendered (they left, or their deadline passed): a 4xx, never
// the 500 a failed render would give.
func TestErrorPageOfCancelledRequest(t *testing.T) {
	s := newTestServer(t)
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/joinx", http.StatusNotFound},
		{"/en/no-such-lesson/x/1", http.StatusNotFound},
		{defaultState + "/99", http.StatusBadRequest},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodGet, tc.path, nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), `data-status="`+strconv.Itoa(tc.status)+`"`) {
			t.Errorf("GET %s, request cancelled: %d; want %d and its error page", tc.path, rec.Code, tc.status)
		}
	}
}
