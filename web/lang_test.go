package web

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestLangCookieSecure: the lang cookie is Secure when the request came
// over HTTPS (TLS, or a proxy's X-Forwarded-Proto), and only then.
func TestLangCookieSecure(t *testing.T) {
	s := newTestServer(t)
	plain := startHTTP(t, s)
	secure := httptest.NewTLSServer(s.Handler())
	t.Cleanup(secure.Close)
	tlsClient := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	tests := []struct {
		name   string
		base   string
		client *http.Client
		proto  string // X-Forwarded-Proto
		secure bool
	}{
		{"plain HTTP", plain.URL, http.DefaultClient, "", false},
		{"TLS", secure.URL, tlsClient, "", true},
		{"behind a TLS proxy", plain.URL, http.DefaultClient, "https", true},
		{"behind a plain proxy", plain.URL, http.DefaultClient, "http", false},
	}
	for _, tc := range tests {
		for _, path := range []string{"/en", defaultState + "/2"} {
			req, err := http.NewRequest(http.MethodGet, tc.base+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.proto != "" {
				req.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			resp, err := tc.client.Do(req)
			if err != nil {
				t.Fatalf("%s GET %s: %v", tc.name, path, err)
			}
			resp.Body.Close()
			var ck *http.Cookie
			for _, c := range resp.Cookies() {
				if c.Name == langCookie {
					ck = c
				}
			}
			if ck == nil {
				t.Fatalf("%s GET %s: no lang cookie (Set-Cookie %q)", tc.name, path, resp.Header.Values("Set-Cookie"))
			}
			if ck.Secure != tc.secure || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode {
				t.Errorf("%s GET %s: cookie %q; want Secure %v, HttpOnly, SameSite=Lax", tc.name, path, resp.Header.Get("Set-Cookie"), tc.secure)
			}
		}
	}
}

// TestErrorPageUTF8: the error page for a path with a long multi-byte
// value is valid UTF-8 (the reported page cut a character in half).
func TestErrorPageUTF8(t *testing.T) {
	s := newTestServer(t)
	for _, path := range []string{"/en/" + strings.Repeat("a", 79) + "%E6%97%A5", "/en/" + strings.Repeat("%E6%97%A5", 40), "/en/" + strings.Repeat("a", 79) + "%E6%97"} {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusNotFound || !utf8.Valid(rec.Body.Bytes()) {
			t.Errorf("GET %s = %d, valid UTF-8 %v; want a 404 page in valid UTF-8", path, rec.Code, utf8.Valid(rec.Body.Bytes()))
		}
	}
}
