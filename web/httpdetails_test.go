package web

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"

	"ctxsim/web/rooms"
	"ctxsim/web/rooms/store"
)

// securityHeaders are the headers every response carries, whatever its
// status.
var securityHeaders = map[string]string{
	"Content-Security-Policy": ContentSecurityPolicy,
	"X-Content-Type-Options":  "nosniff",
	"X-Frame-Options":         "DENY",
}

// Every response path carries the CSP, nosniff and X-Frame-Options: pages,
// assets, redirects (the trailing-slash 301 among them), and every error
// status the server answers itself.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	full := store.NewMemory(nil, store.Limits{TTL: time.Hour, FullTTL: time.Hour, Rooms: 1})
	s := newServerWith(t, Config{Rooms: full, RoomLimits: rooms.Limits{CreateBurst: 1}})
	h := s.Handler()
	tests := []struct {
		name, method, path, body, peer, host string
		status                               int
	}{
		{"page", "GET", defaultState + "/1", "", "", "", 200},
		{"head of a page", "HEAD", defaultState + "/1", "", "", "", 200},
		{"asset", "GET", s.assets.urls.CSS, "", "", "", 200},
		{"health", "GET", "/healthz", "", "", "", 200},
		{"trailing slash", "GET", "/en/context-memory/", "", "", "", 301},
		{"trailing slash of a state", "GET", defaultState + "/1/", "", "", "", 301},
		{"redirect", "GET", "/en/context-memory", "", "", "", 302},
		{"options", "OPTIONS", "/rooms", "", "", "", 204},
		{"bad parameter", "GET", defaultState + "/0", "", "", "", 400},
		{"no such page", "GET", "/nope/nope/nope/nope/nope/nope/nope/nope", "", "", "", 404},
		{"no such lesson in the API", "GET", "/api/lessons/nope/frames", "", "", "", 404},
		{"wrong method on a page", "PATCH", defaultState + "/1", "", "", "", 405},
		{"wrong method on a room", "PATCH", "/rooms/ABCDEF", "", "", "", 405},
		{"body too large", "POST", "/rooms", strings.Repeat("x", 65<<10), "", "", 413},
		{"another site's host", "GET", "/", "", "", "rebind.evil.example", 421},
		{"room opened", "POST", "/rooms", "", "192.0.2.1:1", "", 201},
		{"rooms over the client's rate", "POST", "/rooms", "", "192.0.2.1:1", "", 429},
		{"room table full", "POST", "/rooms", "", "192.0.2.2:1", "", 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			peer := tt.peer
			if peer == "" {
				peer = "192.0.2.100:1"
			}
			var hdr []string
			if tt.host != "" {
				hdr = []string{"Host", tt.host}
			}
			rec := roomRequestFrom(t, h, tt.method, tt.path, tt.body, peer, hdr...)
			if rec.Code != tt.status {
				t.Fatalf("%s %s = %d; want %d\n%.300s", tt.method, tt.path, rec.Code, tt.status, rec.Body.String())
			}
			for k, v := range securityHeaders {
				if got := rec.Header().Get(k); got != v {
					t.Errorf("%s %s (%d): %s = %q; want %q", tt.method, tt.path, rec.Code, k, got, v)
				}
			}
		})
	}
}

// A method a path does not take gets 405, and the Allow header and the
// error's "allowed" both come from the route table.
func TestMethodNotAllowedNamesTheRouteTable(t *testing.T) {
	h := newTestServer(t).Handler()
	tests := []struct {
		path string
		want []string // methods the route table has for the path
	}{
		{"/rooms/ABCDEF", []string{"GET", "HEAD", "PUT", "DELETE"}},
		{"/rooms", []string{"POST"}},
		{"/rooms/ABCDEF/events", []string{"GET", "HEAD"}},
		{defaultState + "/1", []string{"GET", "HEAD"}},
	}
	for _, tt := range tests {
		rec := roomCall(t, h, http.MethodPatch, tt.path, "")
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("PATCH %s = %d; want 405", tt.path, rec.Code)
			continue
		}
		allow := rec.Header().Get("Allow")
		for _, m := range tt.want {
			if !strings.Contains(allow, m) {
				t.Errorf("PATCH %s: Allow %q lacks %s", tt.path, allow, m)
			}
		}
		if strings.Contains(allow, "PATCH") {
			t.Errorf("PATCH %s: Allow %q names PATCH", tt.path, allow)
		}
		if strings.HasPrefix(tt.path, "/rooms") {
			var body struct{ Param, Allowed string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Param != "method" || body.Allowed != allow {
				t.Errorf("PATCH %s: body %s; want param method, allowed %q (the Allow header)", tt.path, rec.Body.String(), allow)
			}
		} else if !strings.Contains(rec.Body.String(), allow) {
			t.Errorf("PATCH %s: the error page does not name %q", tt.path, allow)
		}
	}
}

// A request for a host the server does not answer to gets 421 (a short
// page in the visitor's language, JSON for the API and the rooms) and
// opens no room: a DNS-rebinding page names its own host. localhost, any
// IP address (phones join by the machine's address), the -host names and,
// behind a trusted proxy, its X-Forwarded-Host are answered; /healthz
// answers any host.
func TestHostRule(t *testing.T) {
	s := newServerWith(t, Config{
		Hosts:          []string{"ctxsim.example.org"},
		TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")},
		Rooms:          store.NewMemory(nil, store.DefaultLimits()),
	})
	h := s.Handler()
	evil := []string{"Host", "rebind.evil.example:8080", "Origin", "http://rebind.evil.example:8080", "Sec-Fetch-Site", "same-origin"}
	rec := roomRequestFrom(t, h, "POST", "/rooms", `{}`, "127.0.0.1:5000", evil...)
	if rec.Code != http.StatusMisdirectedRequest || strings.Contains(rec.Body.String(), "join_url") {
		t.Fatalf("POST /rooms from a rebinding page = %d %s; want 421 and no room", rec.Code, rec.Body.String())
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || !json.Valid(rec.Body.Bytes()) {
		t.Errorf("the rooms' 421 is %q %s; want JSON", ct, rec.Body.String())
	}
	for _, tt := range []struct{ lang, want string }{{"en", "does not answer to the address"}, {"ja", "応答しません"}} {
		rec := roomRequestFrom(t, h, "GET", "/", "", "127.0.0.1:5000", "Host", "rebind.evil.example", "Accept-Language", tt.lang)
		if rec.Code != http.StatusMisdirectedRequest || !strings.Contains(rec.Body.String(), tt.want) || !strings.Contains(rec.Body.String(), `lang="`+tt.lang+`"`) {
			t.Errorf("GET / for another host in %s = %d; want 421 with %q\n%.400s", tt.lang, rec.Code, tt.want, rec.Body.String())
		}
	}
	if rec := roomRequestFrom(t, h, "GET", "/healthz", "", "127.0.0.1:5000", "Host", "lb-probe.internal"); rec.Code != http.StatusOK {
		t.Errorf("GET /healthz by another name = %d; want 200", rec.Code)
	}

	for _, tt := range []struct {
		name, peer, want string
		header           []string
	}{
		{"localhost", "127.0.0.1:5000", "http://localhost:8080/join/", []string{"Host", "localhost:8080"}},
		{"the machine's LAN address", "192.168.1.50:5000", "http://192.168.1.23:8080/join/", []string{"Host", "192.168.1.23:8080"}},
		{"an IPv6 address", "[::1]:5000", "http://[::1]:8080/join/", []string{"Host", "[::1]:8080"}},
		{"a -host name", "192.0.2.7:5000", "http://ctxsim.example.org/join/", []string{"Host", "ctxsim.example.org"}},
		{"a trusted proxy's X-Forwarded-Host", "10.0.0.2:5000", "https://ctxsim.example.org/join/",
			[]string{"Host", "127.0.0.1:8081", "X-Forwarded-Host", "ctxsim.example.org", "X-Forwarded-Proto", "https", "X-Forwarded-For", "192.0.2.8"}},
	} {
		rec := roomRequestFrom(t, h, "POST", "/rooms", `{}`, tt.peer, tt.header...)
		if rec.Code != http.StatusCreated {
			t.Errorf("POST /rooms by %s = %d %s; want 201", tt.name, rec.Code, rec.Body.String())
			continue
		}
		if got := decodeRoom(t, rec).JoinURL; !strings.HasPrefix(got, tt.want) {
			t.Errorf("POST /rooms by %s: join_url %q; want %s…", tt.name, got, tt.want)
		}
	}
	// A proxy that is not trusted cannot vouch for a host.
	rec = roomRequestFrom(t, h, "POST", "/rooms", `{}`, "192.0.2.9:5000", "Host", "rebind.evil.example", "X-Forwarded-Host", "ctxsim.example.org")
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("POST /rooms with X-Forwarded-Host from an untrusted peer = %d; want 421", rec.Code)
	}
	// The trusted proxy passes on a rebinding page's host: refused too.
	rec = roomRequestFrom(t, h, "POST", "/rooms", `{}`, "10.0.0.2:5000", "Host", "127.0.0.1:8081", "X-Forwarded-Host", "rebind.evil.example")
	if rec.Code != http.StatusMisdirectedRequest {
		t.Errorf("POST /rooms through the proxy for another host = %d; want 421", rec.Code)
	}
	// Hostile hosts get 421 (or are an address or localhost), never a 5xx.
	for _, host := range []string{"", strings.Repeat("a", 100_000), "évil.example", "[::1", "[zz]:80", "1.2.3.4:99999",
		"localhost:abc", "local\x00host", "a b", "..", "example.com@evil.example", "localhost.", "127.1"} {
		for _, path := range []string{"/rooms", "/", defaultState + "/1"} {
			rec := roomRequestFrom(t, h, "POST", path, "", "192.0.2.10:1", "Host", host)
			if rec.Code >= 500 || rec.Code == http.StatusMisdirectedRequest && path == "/rooms" && !json.Valid(rec.Body.Bytes()) {
				t.Errorf("POST %s for host %.40q = %d %.200s", path, host, rec.Code, rec.Body.String())
			}
		}
	}
	// A static copy answers any host (the export renders through the
	// handler as example.com).
	if rec := roomRequestFrom(t, newStaticServer(t).Handler(), "GET", defaultState+"/1", "", "192.0.2.1:1", "Host", "anything.example"); rec.Code != http.StatusOK {
		t.Errorf("static server for any host = %d; want 200", rec.Code)
	}
}
