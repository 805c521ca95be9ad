package hosts

import (
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestRule(t *testing.T) {
	proxies := Proxies{netip.MustParsePrefix("10.0.0.0/8")}
	r, err := New([]string{"ctxsim.example.org", "Class.Example."}, proxies)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, peer, fwd string
		want            bool
	}{
		{"localhost:8080", "127.0.0.1:1", "", true},
		{"LOCALHOST.", "127.0.0.1:1", "", true},
		{"app.localhost:8080", "127.0.0.1:1", "", true},
		{"127.0.0.1:8080", "127.0.0.1:1", "", true},
		{"192.168.1.23:8080", "192.168.1.50:1", "", true}, // a phone on the LAN, by the machine's address
		{"[::1]:8080", "[::1]:1", "", true},
		{"[fe80::1]", "[::1]:1", "", true},
		{"ctxsim.example.org", "192.0.2.1:1", "", true},
		{"CTXSIM.example.org:443", "192.0.2.1:1", "", true},
		{"class.example", "192.0.2.1:1", "", true},
		{"rebind.evil.example:8080", "127.0.0.1:1", "", false}, // a DNS-rebinding page names its own host
		{"localhost.evil.example", "127.0.0.1:1", "", false},
		{"example.org.ctxsim.example.org.evil", "127.0.0.1:1", "", false},
		{"", "127.0.0.1:1", "", false},
		// Behind a trusted proxy the host the browser asked for is the
		// proxy's X-Forwarded-Host; anyone else's is not read.
		{"127.0.0.1:8081", "10.0.0.2:1", "ctxsim.example.org", true},
		{"127.0.0.1:8081", "10.0.0.2:1", "rebind.evil.example, ctxsim.example.org", false},
		{"ctxsim.example.org", "10.0.0.2:1", "rebind.evil.example", false},
		{"ctxsim.example.org", "192.0.2.1:1", "rebind.evil.example", true},
		{"rebind.evil.example", "192.0.2.1:1", "ctxsim.example.org", false},
	}
	for _, tt := range tests {
		req := httptest.NewRequest("GET", "/", nil)
		req.Host, req.RemoteAddr = tt.host, tt.peer
		if tt.fwd != "" {
			req.Header.Set("X-Forwarded-Host", tt.fwd)
		}
		if got := r.Allows(req); got != tt.want {
			t.Errorf("Host %q from %s (X-Forwarded-Host %q): allowed %v; want %v", tt.host, tt.peer, tt.fwd, got, tt.want)
		}
	}
}

func TestNewRefusesWhatIsNotAName(t *testing.T) {
	for _, n := range []string{"https://ctxsim.example.org", "ctxsim.example.org:8080", "a b", "-x.example", "x..example", "*.example.org", ""} {
		if _, err := New([]string{n}, nil); err == nil {
			t.Errorf("New(%q) accepted it; want an error", n)
		}
	}
	if got := ParseNames([]string{"a.example, b.example", "c.example", ""}); len(got) != 3 || got[2] != "c.example" {
		t.Errorf("ParseNames = %q; want a.example, b.example, c.example", got)
	}
}
