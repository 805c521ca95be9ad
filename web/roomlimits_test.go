package web

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"ctxsim/web/rooms"
	"ctxsim/web/rooms/store"
)

// roomRequestFrom makes one request to h as if from peer (host:port), with
// extra headers as name, value pairs ("Host" sets the request's host).
func roomRequestFrom(t *testing.T, h http.Handler, method, path, body, peer string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = peer
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Another site's page cannot open, change or close a room in a visitor's
// browser; this site's pages and clients that are not browsers can.
func TestRoomSameOrigin(t *testing.T) {
	s := newTestServer(t)
	h := s.Handler()
	room := openTestRoom(t, h, defaultState+"/1")
	put := roomBody(room.Key, defaultState+"/2")
	const peer = "192.0.2.9:1000"
	tests := []struct {
		name, method, path, body string
		header                   []string
		status                   int
	}{
		{"post from another site", "POST", "/rooms", "", []string{"Origin", "https://evil.example"}, 403},
		{"post text/plain from another site", "POST", "/rooms", `{"state":""}`, []string{"Origin", "https://evil.example", "Content-Type", "text/plain"}, 403},
		{"post cross-site fetch metadata", "POST", "/rooms", "", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"post same-site subdomain", "POST", "/rooms", "", []string{"Sec-Fetch-Site", "same-site", "Origin", "https://a.example.com"}, 403},
		{"post opaque origin", "POST", "/rooms", "", []string{"Origin", "null"}, 403},
		{"post other port", "POST", "/rooms", "", []string{"Origin", "http://example.com:8081"}, 403},
		{"put from another site", "PUT", "/rooms/" + room.Code, put, []string{"Origin", "https://evil.example"}, 403},
		{"delete from another site", "DELETE", "/rooms/" + room.Code, roomBody(room.Key, ""), []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"post from this site", "POST", "/rooms", "", []string{"Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"}, 201},
		{"post without browser headers", "POST", "/rooms", "", nil, 201},
		{"put from this site", "PUT", "/rooms/" + room.Code, put, []string{"Origin", "http://EXAMPLE.com", "Sec-Fetch-Site", "same-origin"}, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := roomRequestFrom(t, h, tt.method, tt.path, tt.body, peer, tt.header...)
			if rec.Code != tt.status {
				t.Fatalf("%s %s = %d; want %d\n%s", tt.method, tt.path, rec.Code, tt.status, rec.Body.String())
			}
			if tt.status == 403 && !strings.Contains(rec.Body.String(), `"param":"origin"`) {
				t.Errorf("refusal does not name the origin: %s", rec.Body.String())
			}
		})
	}
	if st := decodeRoom(t, roomCall(t, h, http.MethodGet, "/rooms/"+room.Code, "")).State; st != defaultState+"/2" {
		t.Errorf("room shows %s; want only this site's PUT applied (%s/2)", st, defaultState)
	}
}

// A trusted proxy's X-Forwarded-Host counts as this site; anyone else's
// does not.
func TestRoomSameOriginBehindProxy(t *testing.T) {
	s := newServerWith(t, Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Hosts: []string{"ctxsim.example"}})
	h := s.Handler()
	hdr := []string{"Origin", "https://ctxsim.example", "X-Forwarded-Host", "ctxsim.example"}
	if rec := roomRequestFrom(t, h, "POST", "/rooms", "", "10.1.2.3:5000", hdr...); rec.Code != http.StatusCreated {
		t.Errorf("POST via the trusted proxy = %d; want 201\n%s", rec.Code, rec.Body.String())
	}
	if rec := roomRequestFrom(t, h, "POST", "/rooms", "", "203.0.113.5:5000", hdr...); rec.Code != http.StatusForbidden {
		t.Errorf("POST with X-Forwarded-Host from an untrusted peer = %d; want 403", rec.Code)
	}
}

// Opening rooms is rate limited per client address: the peer's, unless
// the peer is a trusted proxy, whose X-Forwarded-For then names the client.
func TestRoomCreateRateLimit(t *testing.T) {
	for _, tt := range []struct {
		name    string
		trusted string
		// peers as seen by the server, and the X-Forwarded-For they send
		first, firstXFF, other, otherXFF string
		same                             bool // other is the same client as first
	}{
		{"direct; X-Forwarded-For is ignored", "", "192.0.2.1:1", "198.51.100.1", "192.0.2.1:2", "198.51.100.2", true},
		{"direct, another client", "", "192.0.2.1:1", "", "192.0.2.2:1", "", false},
		{"IPv6, another /64", "", "[2001:db8:1:2::1]:1", "", "[2001:db8:1:3::1]:1", "", false},
		{"IPv6, same /64", "", "[2001:db8:1:2::1]:1", "", "[2001:db8:1:2::99]:1", "", true},
		{"trusted proxy", "10.0.0.0/8", "10.0.0.1:1", "198.51.100.1", "10.0.0.1:2", "198.51.100.2", false},
		{"trusted proxy, same client", "10.0.0.0/8", "10.0.0.1:1", "198.51.100.1", "10.0.0.2:2", "198.51.100.1", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{RoomLimits: rooms.Limits{CreateBurst: 3, CreateEvery: time.Hour}}
			if tt.trusted != "" {
				cfg.TrustedProxies = []netip.Prefix{netip.MustParsePrefix(tt.trusted)}
			}
			s := newServerWith(t, cfg)
			h := s.Handler()
			post := func(peer, xff string) *httptest.ResponseRecorder {
				var hdr []string
				if xff != "" {
					hdr = []string{"X-Forwarded-For", xff}
				}
				return roomRequestFrom(t, h, "POST", "/rooms", "", peer, hdr...)
			}
			for i := range 3 {
				if rec := post(tt.first, tt.firstXFF); rec.Code != http.StatusCreated {
					t.Fatalf("room %d = %d; want 201", i+1, rec.Code)
				}
			}
			rec := post(tt.first, tt.firstXFF)
			ra, _ := strconv.Atoi(rec.Header().Get("Retry-After"))
			if rec.Code != http.StatusTooManyRequests || ra < 1 || ra > 3601 {
				t.Fatalf("fourth room = %d, Retry-After %q; want 429 with a Retry-After up to an hour", rec.Code, rec.Header().Get("Retry-After"))
			}
			rec = post(tt.other, tt.otherXFF)
			if want := map[bool]int{true: 429, false: 201}[tt.same]; rec.Code != want {
				t.Errorf("%s (X-Forwarded-For %q) after the first client's limit = %d; want %d", tt.other, tt.otherXFF, rec.Code, want)
			}
		})
	}
}

// peerHandler serves h with the request's peer address taken from the
// X-Test-Peer header, so one loopback test can be several clients.
func peerHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.Header.Get("X-Test-Peer"); p != "" {
			r.RemoteAddr = p
		}
		h.ServeHTTP(w, r)
	})
}

// getStatus opens url as peer and returns the response (its body open).
func getStatus(t *testing.T, ctx context.Context, url, peer string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("X-Test-Peer", peer)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// Event streams are capped per client and per server: 429 with
// Retry-After; a closed stream frees its place. The refusals are summed
// up in one log line, not one line each.
func TestRoomStreamLimits(t *testing.T) {
	var logs bytes.Buffer
	s := newServerWith(t, Config{RoomLimits: rooms.Limits{Streams: 3, ClientStreams: 2}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	ts := startRoomHTTP(t, peerHandler(s.Handler()))
	room := openTestRoom(t, s.Handler(), defaultState+"/1")
	url := ts.URL + "/rooms/" + room.Code + "/events"
	open := func(peer string) (*http.Response, context.CancelFunc) {
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		return getStatus(t, ctx, url, peer), cancel
	}
	a1, closeA1 := open("192.0.2.1:1")
	a2, _ := open("192.0.2.1:2")
	for i, r := range []*http.Response{a1, a2} {
		if r.StatusCode != http.StatusOK {
			t.Fatalf("client A stream %d = %d; want 200", i+1, r.StatusCode)
		}
	}
	a3, _ := open("192.0.2.1:3")
	if a3.StatusCode != http.StatusTooManyRequests || a3.Header.Get("Retry-After") == "" {
		t.Errorf("client A's third stream = %d, Retry-After %q; want 429 with Retry-After", a3.StatusCode, a3.Header.Get("Retry-After"))
	}
	if b1, _ := open("192.0.2.2:1"); b1.StatusCode != http.StatusOK {
		t.Errorf("client B's stream = %d; want 200", b1.StatusCode)
	}
	if c1, _ := open("192.0.2.3:1"); c1.StatusCode != http.StatusTooManyRequests {
		t.Errorf("client C's stream past the server's 3 = %d; want 429", c1.StatusCode)
	}
	closeA1()
	deadline := time.Now().Add(5 * time.Second)
	for {
		c2, cancel := open("192.0.2.3:2")
		if c2.StatusCode == http.StatusOK {
			break
		}
		cancel()
		if time.Now().After(deadline) {
			t.Fatalf("a closed stream did not free its place in 5 s: %d", c2.StatusCode)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if strings.Contains(logs.String(), "level=ERROR") || strings.Count(logs.String(), "\n") > 0 {
		t.Errorf("refusals logged one by one: %s", logs.String())
	}
	s.rooms.Report()
	line := logs.String()
	if strings.Count(line, "\n") != 1 || !strings.Contains(line, "client_streams=1") || !strings.Contains(line, "streams=") {
		t.Errorf("summary = %q; want one line with client_streams=1 and streams=N", line)
	}
	logs.Reset()
	s.rooms.Report()
	if logs.Len() != 0 {
		t.Errorf("a second summary with nothing refused since: %q", logs.String())
	}
}

// A full room table answers 503 with Retry-After and counts it; rooms idle
// for FullTTL make space sooner than their TTL.
func TestRoomTableFull(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := store.NewMemory(clock, store.Limits{TTL: 2 * time.Hour, FullTTL: 10 * time.Minute, Rooms: 2})
	var logs bytes.Buffer
	s := newServerWith(t, Config{Rooms: m, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	h := s.Handler()
	openTestRoom(t, h, "")
	openTestRoom(t, h, "")
	for range 5 {
		rec := roomCall(t, h, http.MethodPost, "/rooms", "")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
			t.Fatalf("POST /rooms with the table full = %d, Retry-After %q; want 503 with Retry-After", rec.Code, rec.Header().Get("Retry-After"))
		}
	}
	if logs.Len() != 0 {
		t.Errorf("refusals were logged one by one: %s", logs.String())
	}
	s.rooms.Report()
	if !strings.Contains(logs.String(), "rooms_full=5") {
		t.Errorf("summary %q; want rooms_full=5", logs.String())
	}
	now = now.Add(11 * time.Minute)
	if rec := roomCall(t, h, http.MethodPost, "/rooms", ""); rec.Code != http.StatusCreated {
		t.Errorf("POST /rooms 11 min later, rooms idle = %d; want 201", rec.Code)
	}
}

// Every state event carries its id; a client reconnecting with the id of
// the current state is not sent it again, one with an older id is.
func TestRoomEventIDs(t *testing.T) {
	s := newTestServer(t)
	ts := startRoomHTTP(t, s.Handler())
	room := openTestRoom(t, s.Handler(), defaultState+"/1")
	putRoom(t, ts.URL, room.Code, room.Key, defaultState+"/2")
	url := ts.URL + "/rooms/" + room.Code + "/events"
	st := openEvents(t, http.DefaultClient, url)
	if ev := st.next(t, 2*time.Second); ev.id != "2" || ev.data != defaultState+"/2" {
		t.Fatalf("first event = %+v; want id 2, state /2", ev)
	}
	old := openEvents(t, http.DefaultClient, url, "Last-Event-ID", "1")
	if ev := old.next(t, 2*time.Second); ev.id != "2" {
		t.Errorf("reconnect with id 1: first event %+v; want the current state, id 2", ev)
	}
	same := openEvents(t, http.DefaultClient, url, "Last-Event-ID", "2")
	putRoom(t, ts.URL, room.Code, room.Key, defaultState+"/3")
	if ev := same.next(t, 2*time.Second); ev.id != "3" || ev.data != defaultState+"/3" {
		t.Errorf("reconnect with the current id: first event %+v; want the next publish (id 3), not the state it had", ev)
	}
	if ev := st.next(t, 2*time.Second); ev.id != "3" {
		t.Errorf("first stream: event %+v; want id 3", ev)
	}
	if rec := roomCall(t, s.Handler(), http.MethodGet, "/rooms/"+room.Code, ""); decodeRoom(t, rec).Seq != 3 {
		t.Errorf("GET /rooms/%s = %s; want seq 3", room.Code, rec.Body.String())
	}
}

func TestParseTrustedProxies(t *testing.T) {
	got, err := ParseTrustedProxies(" 10.0.0.0/8, 192.0.2.1 ,2001:db8::/32,")
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("2001:db8::/32")}
	if err != nil || len(got) != len(want) {
		t.Fatalf("ParseTrustedProxies = %v, %v; want %v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("prefix %d = %v; want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.example", "10.0.0.0/8,nope"} {
		if _, err := ParseTrustedProxies(bad); err == nil {
			t.Errorf("ParseTrustedProxies(%q) accepted", bad)
		}
	}
}

// Behind a trusted proxy, each client address may have opened at most
// ClientRooms live rooms, those its own event streams keep open past
// their expiry included: past it, 429 with Retry-After; a room it ends,
// or one that expires once no stream holds it, frees a place. Another
// client is not affected.
func TestRoomsPerClient(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	advance := func(d time.Duration) { mu.Lock(); defer mu.Unlock(); now = now.Add(d) }
	m := store.NewMemory(clock, store.Limits{TTL: 2 * time.Hour, FullTTL: 10 * time.Minute, Rooms: 100})
	var logs bytes.Buffer
	s := newServerWith(t, Config{Rooms: m, RoomLimits: rooms.Limits{ClientRooms: 3, CreateBurst: 1000},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	h := s.Handler()
	ts := startRoomHTTP(t, peerHandler(h))
	const proxy = "10.0.0.1:4000"
	open := func(client string) *httptest.ResponseRecorder {
		return roomRequestFrom(t, h, "POST", "/rooms", "", proxy, "X-Forwarded-For", client)
	}
	stream := func(code, client string) context.CancelFunc {
		ctx, cancel := context.WithCancel(t.Context())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/rooms/"+code+"/events", nil)
		req.Header.Set("X-Test-Peer", proxy)
		req.Header.Set("X-Forwarded-For", client)
		resp, err := http.DefaultClient.Do(req)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("stream on %s from %s = %v, %v", code, client, resp, err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return cancel
	}
	const a, b = "198.51.100.1", "198.51.100.2"
	var held []roomDoc
	var stop []context.CancelFunc
	for i := range 3 {
		rec := open(a)
		if rec.Code != http.StatusCreated {
			t.Fatalf("client A's room %d = %d; want 201", i+1, rec.Code)
		}
		r := decodeRoom(t, rec)
		held = append(held, r)
		stop = append(stop, stream(r.Code, a))
	}
	advance(3 * time.Hour) // past the TTL: only the streams keep A's rooms
	refused := func(what string) {
		t.Helper()
		rec := open(a)
		if ra, _ := strconv.Atoi(rec.Header().Get("Retry-After")); rec.Code != http.StatusTooManyRequests || ra < 1 {
			t.Fatalf("%s = %d, Retry-After %q; want 429 with Retry-After\n%s", what, rec.Code, rec.Header().Get("Retry-After"), rec.Body.String())
		}
	}
	refused("client A's fourth room, its three held open by its streams")
	if rec := open(b); rec.Code != http.StatusCreated {
		t.Errorf("client B's room while A is at its cap = %d; want 201", rec.Code)
	}
	// A ends a room: one place free.
	if rec := roomRequestFrom(t, h, "DELETE", "/rooms/"+held[0].Code, roomBody(held[0].Key, ""), proxy, "X-Forwarded-For", a); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE = %d", rec.Code)
	}
	rec := open(a)
	if rec.Code != http.StatusCreated {
		t.Fatalf("client A's room after it ended one = %d; want 201", rec.Code)
	}
	stream(decodeRoom(t, rec).Code, a)
	advance(3 * time.Hour)
	refused("client A's room at its cap again")
	// A stream ends; its room expires a TTL after and frees its place.
	stop[1]()
	deadline := time.Now().Add(5 * time.Second)
	for {
		advance(3 * time.Hour)
		if rec := open(a); rec.Code == http.StatusCreated {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("client A's rooms: one whose stream ended did not free its place a TTL later")
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.rooms.Report()
	if !strings.Contains(logs.String(), "client_rooms=") {
		t.Errorf("summary %q; want client_rooms=N", logs.String())
	}
}
