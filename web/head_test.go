package web

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestHeadOnEveryGetRoute walks the route table: every GET route has
// examples here (a new route fails until it gets one), and for each, in
// every coding, HEAD answers what GET answers, with no body. It goes over a
// real connection, so HEAD is what net/http makes of it.
func TestHeadOnEveryGetRoute(t *testing.T) {
	s := newTestServer(t)
	ts := startHTTP(t, s)
	code := openRoomOver(t, ts.URL)
	vs := defaultState + "/vs/compaction-off.memory-on.threshold-92.rec-1"
	up := uploadedAt(t, s.Handler(), nil, fixture(t, "cc_compaction.jsonl")) // an uploaded session's first step
	upID := stepOneRE.FindStringSubmatch(up)[2]
	text := regexp.MustCompile(`data-text="([^"]+)"`).FindStringSubmatch(get(t, s, defaultState+"/8").Body.String())
	if text == nil {
		t.Fatalf("%s/8 links no block text", defaultState)
	}
	examples := map[string][]string{
		"/:lang/:lesson/text/:file":          {text[1], "/en/context-memory/text/" + strings.Repeat("0", 32) + ".txt", text[1] + "?at=" + defaultState + "/8"},
		"/:lang/:lesson/report":              {"/en/" + upID + "/report", "/en/context-memory/report"},
		"/":                                  {"/"},
		"/healthz":                           {"/healthz"},
		"/qr.svg":                            {"/qr.svg?text=http://127.0.0.1:8080/join/ABCDEF", "/qr.svg"},
		"/static/:file":                      {s.assets.urls.CSS, s.assets.urls.JS, "/static/nope.css"},
		"/api/lessons":                       {"/api/lessons"},
		"/api/lessons/:id/frames":            {"/api/lessons/context-memory/frames", "/api/lessons/nope/frames", "/api/lessons/" + upID + "/frames"},
		"/rooms/:code":                       {"/rooms/" + code, "/rooms/ZZZZZZ"},
		"/join/:code":                        {"/join/" + code},
		"/:lang":                             {"/en", "/ja", "/context-memory", "/nope", "/" + upID},
		"/:lang/":                            {"/en/"},
		"/:lang/:lesson":                     {"/en/context-memory"},
		"/:lang/:lesson/:policy":             {defaultState},
		"/:lang/:lesson/:policy/handout":     {defaultState + "/handout"},
		"/:lang/:lesson/:policy/:step":       {defaultState + "/8", "/en/context-memory/compaction-on.memory-on.threshold-73.rec-1/8", defaultState + "/8?threshold=50", defaultState + "/99", up},
		"/:lang/:lesson/:policy/:step/:view": {defaultState + "/8/present", defaultState + "/8/notes", up + "/present"},
		"/:lang/:lesson/:policy/vs/:b/:step": {vs + "/8"},
		"/:lang/:lesson/:policy/vs/:b/:step/:view": {vs + "/8/present"},
	}
	// The event stream never ends: GET is read up to its headers only.
	const stream = "/rooms/:code/events"
	client := &http.Client{
		Transport:     &http.Transport{DisableCompression: true}, // we set Accept-Encoding and read the raw bytes
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	for _, r := range s.echo.Routes() {
		if r.Method != http.MethodGet {
			continue
		}
		if r.Path == stream {
			for _, c := range []string{code, "ZZZZZZ"} {
				headEvents(t, client, ts.URL+"/rooms/"+c+"/events")
			}
			continue
		}
		urls, ok := examples[r.Path]
		if !ok {
			t.Errorf("GET route %s has no example in this test", r.Path)
			continue
		}
		for _, u := range urls {
			for _, accept := range []string{"", "gzip", "gzip, br"} {
				g, gb := fetch(t, client, http.MethodGet, ts.URL+u, accept)
				h, hb := fetch(t, client, http.MethodHead, ts.URL+u, accept)
				if h.StatusCode != g.StatusCode {
					t.Errorf("HEAD %s (%q) = %d; GET = %d", u, accept, h.StatusCode, g.StatusCode)
				}
				if len(hb) != 0 {
					t.Errorf("HEAD %s (%q) has %d bytes of body", u, accept, len(hb))
				}
				if g.StatusCode == 200 && len(gb) == 0 {
					t.Errorf("GET %s (%q) = 200 with no body", u, accept)
				}
				for _, k := range []string{"Content-Type", "Content-Encoding", "ETag", "Vary", "Location", "Cache-Control"} {
					if h.Header.Get(k) != g.Header.Get(k) {
						t.Errorf("HEAD %s (%q) %s = %q; GET has %q", u, accept, k, h.Header.Get(k), g.Header.Get(k))
					}
				}
			}
		}
	}
}

// headEvents checks that HEAD on an event stream answers at once what GET
// starts with (status, type, caching), with no body and no stream held.
func headEvents(t *testing.T, client *http.Client, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	g, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer g.Body.Close()
	hctx, hcancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer hcancel()
	hreq, _ := http.NewRequestWithContext(hctx, http.MethodHead, url, nil)
	h, err := client.Do(hreq)
	if err != nil {
		t.Fatalf("HEAD %s: %v (a HEAD must not wait on the stream)", url, err)
	}
	h.Body.Close()
	if h.StatusCode != g.StatusCode {
		t.Errorf("HEAD %s = %d; GET = %d", url, h.StatusCode, g.StatusCode)
	}
	for _, k := range []string{"Content-Type", "Cache-Control"} {
		if h.Header.Get(k) != g.Header.Get(k) {
			t.Errorf("HEAD %s %s = %q; GET has %q", url, k, h.Header.Get(k), g.Header.Get(k))
		}
	}
}

func fetch(t *testing.T, client *http.Client, method, url, accept string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read: %v", method, url, err)
	}
	return resp, b
}

// openRoomOver opens a room on the server at base and returns its code.
func openRoomOver(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Post(base+"/rooms", "application/json", strings.NewReader(`{"state":"`+defaultState+`/2"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var room roomDoc
	if err := json.NewDecoder(resp.Body).Decode(&room); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST /rooms = %d, %v", resp.StatusCode, err)
	}
	return room.Code
}
