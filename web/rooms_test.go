package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
	"github.com/labstack/echo/v4"

	"ctxsim/web/page"
	"ctxsim/web/rooms/store"
)

var roomCodeRE = regexp.MustCompile(`^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$`)

// ---- the HTTP API, in process

// roomCall makes one request to h and returns the response.
func roomCall(t *testing.T, h http.Handler, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

func decodeRoom(t *testing.T, rec *httptest.ResponseRecorder) roomDoc {
	t.Helper()
	var r roomDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &r); err != nil {
		t.Fatalf("decode %s: %v", rec.Body.String(), err)
	}
	return r
}

// roomDoc is a room as a client reads it (the contract, decoded
// independently of the server's own types).
type roomDoc struct {
	Code     string   `json:"code"`
	Key      string   `json:"key"`
	JoinURL  string   `json:"join_url"`
	JoinURLs []string `json:"join_urls"`
	State    string   `json:"state"`
	Seq      uint64   `json:"seq"`
}

// roomBody is the JSON body of a room request.
func roomBody(key, state string) string {
	b, _ := json.Marshal(map[string]string{"key": key, "state": state})
	return string(b)
}

// openTestRoom creates a room showing state on h.
func openTestRoom(t *testing.T, h http.Handler, state string) roomDoc {
	t.Helper()
	rec := roomCall(t, h, http.MethodPost, "/rooms", roomBody("", state))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /rooms = %d; want 201\n%s", rec.Code, rec.Body.String())
	}
	return decodeRoom(t, rec)
}

func TestRoomAPI(t *testing.T) {
	h := newTestServer(t).Handler()
	s1, s2 := defaultState+"/1", defaultState+"/2"

	rec := roomCall(t, h, http.MethodPost, "/rooms", roomBody("", s1))
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /rooms = %d; want 201\n%s", rec.Code, rec.Body.String())
	}
	room := decodeRoom(t, rec)
	if !roomCodeRE.MatchString(room.Code) || !store.ValidKey(room.Key) || room.State != s1 {
		t.Fatalf("POST /rooms = %+v; want a code, a key and state %s", room, s1)
	}
	if want := "http://example.com/join/" + room.Code; room.JoinURL != want {
		t.Errorf("join_url = %q; want %q", room.JoinURL, want)
	}
	if got := rec.Header().Get("Location"); got != "/rooms/"+room.Code {
		t.Errorf("Location = %q; want /rooms/%s", got, room.Code)
	}

	// An empty body opens a room with no state yet.
	if rec := roomCall(t, h, http.MethodPost, "/rooms", ""); rec.Code != http.StatusCreated || decodeRoom(t, rec).State != "" {
		t.Errorf("POST /rooms without a body = %d %s; want 201 and no state", rec.Code, rec.Body.String())
	}

	rec = roomCall(t, h, http.MethodGet, "/rooms/"+room.Code, "")
	if rec.Code != http.StatusOK || decodeRoom(t, rec).State != s1 || decodeRoom(t, rec).Key != "" {
		t.Errorf("GET /rooms/%s = %d %s; want 200, state %s and no key", room.Code, rec.Code, rec.Body.String(), s1)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("GET /rooms/%s Cache-Control = %q; want no-store", room.Code, cc)
	}

	// The presenter view publishes its state; the audience follows the state.
	rec = roomCall(t, h, http.MethodPut, "/rooms/"+room.Code, roomBody(room.Key, s2+"/"+page.ViewPresent))
	if rec.Code != http.StatusOK || decodeRoom(t, rec).State != s2 {
		t.Fatalf("PUT %s/present = %d %s; want 200 and state %s", s2, rec.Code, rec.Body.String(), s2)
	}
	// Codes are read off a projector: lower case works.
	if rec := roomCall(t, h, http.MethodGet, "/rooms/"+strings.ToLower(room.Code), ""); decodeRoom(t, rec).State != s2 {
		t.Errorf("GET with a lower-case code = %d %s; want state %s", rec.Code, rec.Body.String(), s2)
	}

	rec = roomCall(t, h, http.MethodGet, "/join/"+strings.ToLower(room.Code), "")
	if want := s2 + "#follow=" + room.Code; rec.Code != http.StatusFound || rec.Header().Get("Location") != want {
		t.Errorf("GET /join/%s = %d Location %q; want 302 to %s", room.Code, rec.Code, rec.Header().Get("Location"), want)
	}
	if cc := rec.Header().Get("Cache-Control"); cc != "no-store" {
		t.Errorf("GET /join Cache-Control = %q; want no-store", cc)
	}

	// A room without a state yet sends its audience to the index to wait.
	empty := openTestRoom(t, h, "")
	if rec := roomCall(t, h, http.MethodGet, "/join/"+empty.Code, ""); rec.Header().Get("Location") != "/#follow="+empty.Code {
		t.Errorf("GET /join of an empty room: Location %q; want /#follow=%s", rec.Header().Get("Location"), empty.Code)
	}

	// A comparison is a state too.
	cmp := "/en/context-memory/compaction-on.memory-on.threshold-92.rec-1/vs/compaction-off.memory-on.threshold-92.rec-1/3"
	if rec := roomCall(t, h, http.MethodPut, "/rooms/"+room.Code, roomBody(room.Key, cmp)); rec.Code != http.StatusOK {
		t.Errorf("PUT a comparison state = %d %s; want 200", rec.Code, rec.Body.String())
	}

	if rec := roomCall(t, h, http.MethodDelete, "/rooms/"+room.Code, roomBody(room.Key, "")); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE /rooms/%s = %d %s; want 204", room.Code, rec.Code, rec.Body.String())
	}
	if rec := roomCall(t, h, http.MethodGet, "/rooms/"+room.Code, ""); rec.Code != http.StatusNotFound {
		t.Errorf("GET a closed room = %d; want 404", rec.Code)
	}
	rec = roomCall(t, h, http.MethodGet, "/join/"+room.Code, "")
	if rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), room.Code) || !strings.Contains(rec.Header().Get("Content-Type"), "text/html") {
		t.Errorf("GET /join of a closed room = %d %s; want a 404 page naming the room", rec.Code, rec.Header().Get("Content-Type"))
	}
}

func TestRoomBadInput(t *testing.T) {
	h := newTestServer(t).Handler()
	room := openTestRoom(t, h, defaultState+"/1")
	other := openTestRoom(t, h, "")
	stray := fmt.Sprintf("%032x", 1) // a well-formed key of no room
	rc := "/rooms/" + room.Code
	tests := []struct {
		name, method, path, body string
		status                   int
		param                    string // named in the JSON error (or the page, for /join)
	}{
		{"post not JSON", "POST", "/rooms", "state=/en", 400, "body"},
		{"post unknown lesson", "POST", "/rooms", roomBody("", "/en/nope/compaction-on.memory-on.threshold-92.rec-1/1"), 400, "state"},
		{"post step out of range", "POST", "/rooms", roomBody("", defaultState+"/99"), 400, "state"},
		{"post non-canonical order", "POST", "/rooms", roomBody("", "/en/context-memory/memory-on.compaction-on.threshold-92.rec-1/1"), 400, "state"},
		{"post redirecting path", "POST", "/rooms", roomBody("", "/en/context-memory"), 400, "state"},
		{"post query", "POST", "/rooms", roomBody("", defaultState+"/1?threshold=50"), 400, "state"},
		{"post other host", "POST", "/rooms", roomBody("", "//evil.example/en/x/y/1"), 400, "state"},
		{"post script URL", "POST", "/rooms", roomBody("", "javascript:alert(1)"), 400, "state"},
		{"post event injection", "POST", "/rooms", roomBody("", defaultState+"/1\ndata: /evil"), 400, "state"},
		{"post unknown view", "POST", "/rooms", roomBody("", defaultState+"/1/secret"), 400, "state"},
		{"post unknown language", "POST", "/rooms", roomBody("", "/fr/context-memory/compaction-on.memory-on.threshold-92.rec-1/1"), 400, "state"},
		{"put bad code", "PUT", "/rooms/AB!23Z", roomBody(room.Key, defaultState+"/2"), 400, "code"},
		{"put short code", "PUT", "/rooms/ABC", roomBody(room.Key, defaultState+"/2"), 400, "code"},
		{"put no body", "PUT", rc, "", 400, "body"},
		{"put malformed key", "PUT", rc, roomBody("xyz", defaultState+"/2"), 400, "key"},
		{"put no state", "PUT", rc, roomBody(room.Key, ""), 400, "state"},
		{"put bad state", "PUT", rc, roomBody(room.Key, "/en/context-memory/compaction-on.memory-on.threshold-200.rec-1/1"), 400, "state"},
		{"put wrong key", "PUT", rc, roomBody(other.Key, defaultState+"/2"), 403, "key"},
		{"put unknown room", "PUT", "/rooms/ZZZZZZ", roomBody(stray, defaultState+"/2"), 404, ""},
		{"put unknown room, a live room's key", "PUT", "/rooms/ZZZZZZ", roomBody(room.Key, defaultState+"/2"), 404, ""},
		{"get unknown room", "GET", "/rooms/ZZZZZZ", "", 404, ""},
		{"get bad code", "GET", "/rooms/zz", "", 400, "code"},
		{"events unknown room", "GET", "/rooms/ZZZZZZ/events", "", 404, ""},
		{"events bad code", "GET", "/rooms/O0O0O0/events", "", 400, "code"},
		{"delete wrong key", "DELETE", rc, roomBody(other.Key, ""), 403, "key"},
		{"delete malformed key", "DELETE", rc, roomBody("", ""), 400, "key"},
		{"delete unknown room", "DELETE", "/rooms/ZZZZZZ", roomBody(room.Key, ""), 404, ""},
		{"join bad code", "GET", "/join/O0O0O0", "", 400, "code"},
		{"join unknown room", "GET", "/join/ZZZZZZ", "", 404, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := roomCall(t, h, tt.method, tt.path, tt.body)
			if rec.Code != tt.status {
				t.Fatalf("%s %s = %d; want %d\n%s", tt.method, tt.path, rec.Code, tt.status, rec.Body.String())
			}
			if strings.HasPrefix(tt.path, "/join/") {
				if !strings.Contains(rec.Header().Get("Content-Type"), "text/html") || !strings.Contains(rec.Body.String(), tt.param) {
					t.Errorf("%s %s: want an HTML page naming %q, got %s", tt.method, tt.path, tt.param, rec.Header().Get("Content-Type"))
				}
				return
			}
			var body errorBody
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("%s %s: body is not a JSON error: %v\n%s", tt.method, tt.path, err, rec.Body.String())
			}
			if body.Param != tt.param || body.Error == "" {
				t.Errorf("%s %s: error %+v; want param %q", tt.method, tt.path, body, tt.param)
			}
		})
	}
	// None of that changed the room.
	if rec := roomCall(t, h, http.MethodGet, rc, ""); decodeRoom(t, rec).State != defaultState+"/1" {
		t.Errorf("after bad requests the room shows %s; want %s", rec.Body.String(), defaultState+"/1")
	}
}

// A restarted server has an empty memory store: the room ended with the
// process, and nobody, not even its presenter, can bring its code back.
func TestRoomRestartEndsMemoryRooms(t *testing.T) {
	before, after := roomServerWith(t, Config{}).Handler(), roomServerWith(t, Config{}).Handler()
	room := openTestRoom(t, before, defaultState+"/3")
	for _, key := range []string{room.Key, fmt.Sprintf("%032x", 7)} {
		if rec := roomCall(t, after, http.MethodPut, "/rooms/"+room.Code, roomBody(key, defaultState+"/4")); rec.Code != http.StatusNotFound {
			t.Fatalf("PUT on the restarted server = %d %s; want 404", rec.Code, rec.Body.String())
		}
	}
	if rec := roomCall(t, after, http.MethodGet, "/join/"+room.Code, ""); rec.Code != http.StatusNotFound {
		t.Errorf("GET /join after the restart = %d; want 404", rec.Code)
	}
}

// ---- event streams over real loopback connections

type sseEvent struct {
	id, name, data string
	comment        bool
}

type sseStream struct {
	resp   *http.Response
	events chan sseEvent // closed when the stream ends
	done   chan struct{} // closed when the reader has finished
}

// openEvents opens url as an event stream with the given client; header
// holds extra request headers, as name, value pairs.
func openEvents(t *testing.T, client *http.Client, url string, header ...string) *sseStream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Accept-Encoding", "gzip") // set by hand, so the client does not decode it for us
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		t.Fatalf("GET %s: %v", url, err)
	}
	st := &sseStream{resp: resp, events: make(chan sseEvent, 64), done: make(chan struct{})}
	t.Cleanup(func() { cancel(); resp.Body.Close(); <-st.done })
	go func() {
		defer close(st.done)
		defer close(st.events)
		emit := func(ev sseEvent) bool {
			select {
			case st.events <- ev:
				return true
			case <-ctx.Done():
				return false
			}
		}
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if (ev.name != "" || ev.data != "") && !emit(ev) {
					return
				}
				ev = sseEvent{}
			case strings.HasPrefix(line, ":"):
				if !emit(sseEvent{comment: true, data: line}) {
					return
				}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "event: "):
				ev.name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return st
}

// next returns the next event that is not a comment.
func (st *sseStream) next(t *testing.T, within time.Duration) sseEvent {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev, ok := <-st.events:
			if !ok {
				t.Fatalf("the event stream ended")
			}
			if !ev.comment {
				return ev
			}
		case <-deadline:
			t.Fatalf("no event within %v", within)
		}
	}
}

// oneShot makes every request on a new connection: the test server's short
// ReadTimeout also closes idle connections, and a PUT is not retried.
var oneShot = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

func putRoom(t *testing.T, base, code, key, state string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, base+"/rooms/"+code, strings.NewReader(roomBody(key, state)))
	resp, err := oneShot.Do(req)
	if err != nil {
		t.Fatalf("PUT: %v", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("PUT %s = %d; want 200\n%s", state, resp.StatusCode, b)
	}
}

// The stream runs on a server with the production kind of timeouts, made
// short: it must outlive them, arrive unbuffered and uncompressed, and end
// promptly when the server shuts down.
func TestRoomEventsStream(t *testing.T) {
	s := newTestServer(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: s.Handler(), ReadTimeout: 300 * time.Millisecond, WriteTimeout: 300 * time.Millisecond}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	base := "http://" + ln.Addr().String()
	room := openTestRoom(t, s.Handler(), defaultState+"/1")

	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	st := openEvents(t, client, base+"/rooms/"+room.Code+"/events")
	if ct := st.resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Errorf("Content-Type = %q; want text/event-stream", ct)
	}
	if ce := st.resp.Header.Get("Content-Encoding"); ce != "" {
		t.Errorf("Content-Encoding = %q; want none (the stream must not wait on a gzip buffer)", ce)
	}
	if ev := st.next(t, 2*time.Second); ev.name != "state" || ev.data != defaultState+"/1" {
		t.Fatalf("first event = %+v; want state %s", ev, defaultState+"/1")
	}
	time.Sleep(700 * time.Millisecond) // past both server timeouts
	putRoom(t, base, room.Code, room.Key, defaultState+"/2")
	if ev := st.next(t, 2*time.Second); ev.name != "state" || ev.data != defaultState+"/2" {
		t.Fatalf("event after a publish = %+v; want state %s", ev, defaultState+"/2")
	}

	// A second follower, then the presenter closes the room: both hear it.
	st2 := openEvents(t, client, base+"/rooms/"+room.Code+"/events")
	st2.next(t, 2*time.Second)
	req, _ := http.NewRequest(http.MethodDelete, base+"/rooms/"+room.Code, strings.NewReader(roomBody(room.Key, "")))
	if resp, err := oneShot.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE = %v, %v; want 204", resp, err)
	}
	for i, s := range []*sseStream{st, st2} {
		if ev := s.next(t, 2*time.Second); ev.name != "closed" {
			t.Errorf("follower %d: event after DELETE = %+v; want closed", i+1, ev)
		}
	}

	// Shutdown does not wait on open streams.
	room = openTestRoom(t, s.Handler(), defaultState+"/1")
	st3 := openEvents(t, client, base+"/rooms/"+room.Code+"/events")
	st3.next(t, 2*time.Second)
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	start := time.Now()
	if err := srv.Shutdown(ctx); err != nil {
		t.Fatalf("Shutdown with an open event stream: %v after %v", err, time.Since(start))
	}
	select {
	case <-st3.done:
	case <-time.After(2 * time.Second):
		t.Fatalf("the stream is still open after Shutdown")
	}
}

// ---- browsers: a presenter and an audience on one server

// startRoomHTTP serves h on loopback until the test ends; streams are cut
// first so that Close does not wait for them.
func startRoomHTTP(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(h)
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	return ts
}

// roomTab opens a tab in a browser context of its own (own profile, own
// sessionStorage) of the shared Chromium on base, at 1440×900, recording
// CSP violations in window.__csp.
func roomTab(t *testing.T, base string) *chromeTab {
	t.Helper()
	// The shared Chromium keeps background tabs' timers running.
	bctx := startChromium(t)
	ctx, cancel := context.WithTimeout(bctx, 2*browserTestTimeout)
	t.Cleanup(cancel)
	b := &chromeTab{t: t, ctx: ctx, base: base}
	b.do("set viewport", chromedp.EmulateViewport(1440, 900))
	recordCSP(b)
	return b
}

const jsStateURL = `document.getElementById("app")?.dataset.stateUrl ?? "<none>"`

func (b *chromeTab) stateURL() string {
	b.t.Helper()
	return mustEval[string](b, jsStateURL)
}

// waitState waits until the page shows state want (#app[data-state-url])
// at that URL, with no navigation in flight.
func (b *chromeTab) waitState(who, want string) {
	b.t.Helper()
	if got, err := b.pollJS(jsStateURL, func(s string) bool { return s == want }); err != nil {
		b.t.Fatalf("%s: state %q; want %q (%v)", who, got, want, err)
	}
	b.waitPath(want)
	b.waitSettled()
}

func (b *chromeTab) waitStatus(who, want string) {
	b.t.Helper()
	if got, err := b.pollJS(jsText(tid("room-status")), func(s string) bool { return s == want }); err != nil {
		b.t.Fatalf("%s: room-status %q; want %q (%v)", who, got, want, err)
	}
}

func (b *chromeTab) noCSPViolations(who string) {
	b.t.Helper()
	if v := mustEval[[]string](b, `window.__csp`); len(v) > 0 {
		b.t.Errorf("%s: CSP violations: %q", who, v)
	}
}

// presenterOpensRoom opens a room from the presenter view of the page the
// presenter is on (room.js loads there), goes back to the page, where the
// tab keeps the room (app.js loads room.js for it), and returns its code.
func presenterOpensRoom(t *testing.T, pres *chromeTab, base string) string {
	t.Helper()
	page := pres.stateURL()
	pres.clickID("present-toggle")
	pres.waitPath(page + "/present")
	pres.waitSettled()
	pres.clickID("room-open")
	code, err := pres.pollJS(jsText(tid("room-code")), roomCodeRE.MatchString)
	if err != nil {
		t.Fatalf("room-code = %q after room-open (%v)", code, err)
	}
	if got, want := mustEval[string](pres, fmt.Sprintf(`document.querySelector(%s).href`, jsQuote(tid("room-join-url")))), base+"/join/"+code; got != want {
		t.Errorf("room-join-url href = %q; want %q", got, want)
	}
	if got := pres.text(tid("room-join-url")); !strings.HasSuffix(got, "/join/"+code) {
		t.Errorf("room-join-url text = %q; want it to end in /join/%s", got, code)
	}
	pres.clickID("present-toggle")
	pres.waitPath(page)
	pres.waitSettled()
	if got, err := pres.pollJS(jsText(tid("room-code")), func(s string) bool { return s == code }); err != nil {
		t.Fatalf("back on %s the room is gone: room-code %q (%v)", page, got, err)
	}
	return code
}

func TestRoomFollowBrowser(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	s := newTestServer(t)
	ts := startRoomHTTP(t, s.Handler())
	pres := roomTab(t, ts.URL)
	aud := []*chromeTab{roomTab(t, ts.URL), roomTab(t, ts.URL)}

	pres.open(cmURL("en", cmPolicy, 1))
	pres.waitStep(1, cmSteps)
	code := presenterOpensRoom(t, pres, ts.URL)

	for i, a := range aud {
		a.open("/join/" + code)
		a.waitState(fmt.Sprintf("audience %d after join", i+1), cmURL("en", cmPolicy, 1))
		a.waitStatus(fmt.Sprintf("audience %d after join", i+1), "following")
		if h := mustEval[string](a, `location.hash`); h != "" {
			t.Errorf("audience %d: location.hash = %q after join; want the #follow fragment removed", i+1, h)
		}
	}
	// Following swaps the page like a step does: no reloads.
	mustEval[bool](aud[1], `(window.__noReload = true)`)

	want := ""
	presenterAt := func(what string) {
		t.Helper()
		want = pres.stateURL()
		for i, a := range aud {
			a.waitState(fmt.Sprintf("audience %d after the presenter's %s", i+1, what), want)
		}
	}
	for n := 2; n <= 4; n++ {
		pres.key(kb.ArrowRight)
		pres.waitStep(n, cmSteps)
		presenterAt(fmt.Sprintf("step %d", n))
		if want != cmURL("en", cmPolicy, n) {
			t.Fatalf("presenter state after step %d = %s", n, want)
		}
	}
	pres.clickID("mode-compaction-off")
	if _, err := pres.pollJS(jsStateURL, func(s string) bool { return strings.Contains(s, "/compaction-off.") }); err != nil {
		t.Fatalf("presenter: mode-compaction-off did not change the state: %v", err)
	}
	pres.waitSettled()
	presenterAt("mode change")

	// Audience 1 wanders one step back; audience 2 keeps following.
	aud[0].key(kb.ArrowLeft)
	aud[0].waitStatus("audience 1 after ArrowLeft", "exploring")
	wandered := aud[0].stateURL()
	if wandered == want {
		t.Fatalf("audience 1 did not move on ArrowLeft: %s", wandered)
	}
	aud[1].waitStatus("audience 2", "following")
	pres.key(kb.ArrowRight)
	if _, err := pres.pollJS(jsStateURL, func(s string) bool { return s != want }); err != nil {
		t.Fatalf("presenter did not step: %v", err)
	}
	pres.waitSettled()
	want = pres.stateURL()
	aud[1].waitState("audience 2 while audience 1 explores", want)
	if got := aud[0].stateURL(); got != wandered {
		t.Errorf("audience 1 is exploring, yet it moved from %s to %s", wandered, got)
	}
	aud[0].waitStatus("audience 1 while exploring", "exploring")

	aud[0].clickID("follow-presenter")
	aud[0].waitState("audience 1 after follow-presenter", want)
	aud[0].waitStatus("audience 1 after follow-presenter", "following")

	// Both follow the next step again.
	pres.key(kb.ArrowRight)
	if _, err := pres.pollJS(jsStateURL, func(s string) bool { return s != want }); err != nil {
		t.Fatalf("presenter did not step: %v", err)
	}
	pres.waitSettled()
	presenterAt("last step")

	if !mustEval[bool](aud[1], `window.__noReload === true`) {
		t.Errorf("audience 2 reloaded the page while following; want app.js swaps")
	}
	pres.noCSPViolations("presenter")
	for i, a := range aud {
		a.noCSPViolations(fmt.Sprintf("audience %d", i+1))
	}
}

// After a server restart with the memory store the room has ended with the
// process: the presenter's page says so and offers a new room, the
// audience is told the room is gone, and nobody re-creates the old code.
func TestRoomFollowAfterRestart(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	s := newTestServer(t)
	var current atomic.Pointer[echo.Echo]
	current.Store(s.newEcho(nil))
	ts := startRoomHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
	pres, aud := roomTab(t, ts.URL), roomTab(t, ts.URL)

	pres.open(cmURL("en", cmPolicy, 2))
	pres.waitStep(2, cmSteps)
	code := presenterOpensRoom(t, pres, ts.URL)
	aud.open("/join/" + code)
	aud.waitState("audience after join", cmURL("en", cmPolicy, 2))

	restarted := newServerWith(t, Config{}) // an empty memory store
	current.Store(restarted.echo)
	ts.CloseClientConnections()
	ended := mustEval[string](pres, `window.ctxsimMessages.en["room.ended"]`)
	if got, err := pres.pollJS(jsText(tid("room-notice")), func(s string) bool { return s == ended }); err != nil {
		t.Fatalf("presenter after the restart: room-notice %q; want %q (%v)", got, ended, err)
	}
	if !pres.exists(tid("room-open")) || pres.exists(tid("room-code")) {
		t.Errorf("presenter after the restart: want the Open room button and no room code")
	}
	gone := mustEval[string](aud, `window.ctxsimMessages.en["room.gone"]`)
	if got, err := aud.pollJS(jsText(tid("room-notice")), func(s string) bool { return s == gone }); err != nil {
		t.Fatalf("audience after the restart: room-notice %q; want %q (%v)", got, gone, err)
	}
	if rec := roomCall(t, restarted.Handler(), http.MethodGet, "/rooms/"+code, ""); rec.Code != http.StatusNotFound {
		t.Errorf("the restarted server has room %s: %d", code, rec.Code)
	}
	pres.clickID("room-open")
	if got, err := pres.pollJS(jsText(tid("room-code")), roomCodeRE.MatchString); err != nil {
		t.Fatalf("presenter: no new room after room-open: %q (%v)", got, err)
	}
}

// emulateNetworkConditions (deprecated in the protocol, not in cdproto any
// more) makes every request of the tab fail as offline, the way a dead
// network does, and fires the offline and online events.
var emulateNetworkConditions = cdp.Command[network.OverrideNetworkStateParams, cdp.Empty]{Method: "Network.emulateNetworkConditions"}

// cdpCall sends one DevTools command to the tab.
func cdpCall[P, R any](b *chromeTab, what string, cmd cdp.Command[P, R], p P) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserCall)
	defer cancel()
	if _, err := chromedp.Call(ctx, cmd, p); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// A follower whose network drops for longer than any timer in room.js
// (12 s) keeps following and lands on the presenter's current state within
// a second of the network coming back; a follower who chose to explore
// stays exploring, where it was.
func TestRoomFollowerResumesAfterDrop(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	s := newTestServer(t)
	var down, pagesDown atomic.Bool // the audience's network is down; only its page loads fail
	ts := startRoomHTTP(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		drop := down.Load() || pagesDown.Load() && !strings.HasPrefix(r.URL.Path, "/rooms/")
		if drop && r.Header.Get("X-Test-Who") == "audience" {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close() // no answer, like a dead network
			}
			return
		}
		s.Handler().ServeHTTP(w, r)
	}))
	pres := roomTab(t, ts.URL)
	aud := []*chromeTab{roomTab(t, ts.URL), roomTab(t, ts.URL)}
	for _, a := range aud {
		cdpCall(a, "network.Enable", network.Enable, network.EnableParams{})
		cdpCall(a, "mark the audience", network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"X-Test-Who": "audience"}})
	}
	pres.open(cmURL("en", cmPolicy, 2))
	pres.waitStep(2, cmSteps)
	code := presenterOpensRoom(t, pres, ts.URL)
	for i, a := range aud {
		a.open("/join/" + code)
		a.waitState(fmt.Sprintf("audience %d after join", i+1), cmURL("en", cmPolicy, 2))
	}
	aud[1].key(kb.ArrowLeft)
	aud[1].waitStatus("audience 2 after ArrowLeft", "exploring")
	explored := aud[1].stateURL()

	offline := func(off bool) {
		for _, a := range aud {
			cdpCall(a, "navigator.onLine", network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: off, DownloadThroughput: -1, UploadThroughput: -1})
			cdpCall(a, "network conditions", emulateNetworkConditions, network.OverrideNetworkStateParams{Offline: off, DownloadThroughput: -1, UploadThroughput: -1})
		}
	}
	down.Store(true)
	offline(true)
	ts.CloseClientConnections()
	for n := 3; n <= 4; n++ {
		pres.key(kb.ArrowRight)
		pres.waitStep(n, cmSteps)
	}
	want := cmURL("en", cmPolicy, 4)
	if got := decodeRoom(t, roomCall(t, s.Handler(), http.MethodGet, "/rooms/"+code, "")).State; got != want {
		t.Fatalf("room state %s; want %s", got, want)
	}
	time.Sleep(12 * time.Second)
	if got := aud[0].stateURL(); got != cmURL("en", cmPolicy, 2) {
		t.Fatalf("audience 1 moved to %s while its network was down", got)
	}
	down.Store(false)
	offline(false)
	back := time.Now()
	aud[0].pollFor(4*time.Second, "audience 1 on the presenter's state after the drop", jsStateURL, func(s string) bool { return s == want })
	took := time.Since(back)
	t.Logf("audience 1 on the presenter's state %v after the network came back", took.Round(time.Millisecond))
	// Idle it takes 0.3-0.8 s, at load 23 up to 1.8 s; the backoff it must
	// not wait for is 6-10 s by then (0.5 s doubling, ±25%).
	if took > resumeBound {
		t.Errorf("audience 1 took %v after the network came back; want at most %v", took, resumeBound)
	}
	aud[0].waitSettled()
	aud[0].waitStatus("audience 1 after the drop", "following")
	pres.key(kb.ArrowRight)
	pres.waitStep(5, cmSteps)
	aud[0].waitState("audience 1 after the next step", cmURL("en", cmPolicy, 5))

	// A flaky network: the stream stays up, but the page of the
	// presenter's next state does not load for 12 s.
	pagesDown.Store(true)
	pres.key(kb.ArrowRight)
	pres.waitStep(6, cmSteps)
	want = cmURL("en", cmPolicy, 6)
	time.Sleep(12 * time.Second)
	pagesDown.Store(false)
	back = time.Now()
	aud[0].pollFor(4*time.Second, "audience 1 on the presenter's state after failed page loads", jsStateURL, func(s string) bool { return s == want })
	t.Logf("audience 1 on the presenter's state %v after page loads work again", time.Since(back).Round(time.Millisecond))
	if took := time.Since(back); took > resumeBound {
		t.Errorf("audience 1 took %v after page loads work again; want at most %v", took, resumeBound)
	}
	aud[0].waitSettled()
	aud[0].waitStatus("audience 1 after failed page loads", "following")
	aud[1].waitStatus("audience 2 after the drop", "exploring")
	if got := aud[1].stateURL(); got != explored {
		t.Errorf("audience 2 was exploring %s, and is now on %s", explored, got)
	}
	for i, a := range aud {
		a.noCSPViolations(fmt.Sprintf("audience %d", i+1))
	}
}

// resumeBound is how soon a follower must be back on the presenter's state
// once its network or its page loads work again.
const resumeBound = 2500 * time.Millisecond
