package web

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
)

// decode undoes one content coding, the one the response names.
func decode(t *testing.T, rec *httptest.ResponseRecorder) []byte {
	t.Helper()
	b, err := decodeBody(rec.Header().Get("Content-Encoding"), rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func decodeBody(coding string, body io.Reader) ([]byte, error) {
	var r io.Reader
	switch coding {
	case "":
		r = body
	case "gzip":
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("gzip: %w", err)
		}
		r = zr
	case "br":
		r = brotli.NewReader(body)
	default:
		return nil, fmt.Errorf("Content-Encoding %q", coding)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", coding, err)
	}
	return b, nil
}

func TestNegotiate(t *testing.T) {
	tests := []struct {
		header string
		want   coding
	}{
		{"", identity},
		{"gzip", gzipCoding},
		{"br", brCoding},
		{"gzip, br", brCoding},
		{"gzip, deflate, br, zstd", brCoding},
		{"br;q=0.9, gzip;q=0.9", brCoding},
		{"gzip;q=1, br;q=0.5", gzipCoding},
		{"gzip, br;q=0", gzipCoding},
		{"br;q=0", identity},
		{"gzip;q=0, br;q=0", identity},
		{"deflate", identity},
		{"GZIP", gzipCoding},
		{"x-gzip", gzipCoding},
		{"gzip; q=0.001", gzipCoding},
		{"gzip;q=bad", identity},
		{"*", brCoding},
		{"*;q=0", identity},
		{"*;q=0, gzip", gzipCoding},
		{"gzip;q=0, *", brCoding},
		{"br;q=0, *;q=0.5", gzipCoding},
		{"identity", identity},
		{"identity;q=1, gzip;q=0.5", identity},
		{"identity;q=0", identity}, // nothing else acceptable: identity anyway
	}
	for _, tt := range tests {
		if got := negotiate(tt.header); got != tt.want {
			t.Errorf("negotiate(%q) = %q; want %q", tt.header, got.name(), tt.want.name())
		}
	}
}

// TestCodings asks a kept page and a static asset in every coding: each
// names its coding, varies on Accept-Encoding, and decodes, once, to the
// identity bytes.
func TestCodings(t *testing.T) {
	s := newTestServer(t)
	for _, path := range []string{defaultState + "/8", defaultState + "/8/present", s.assets.urls.CSS, s.assets.urls.JS} {
		plain := get(t, s, path)
		if plain.Code != 200 || plain.Header().Get("Content-Encoding") != "" {
			t.Fatalf("GET %s = %d, Content-Encoding %q; want 200 and none", path, plain.Code, plain.Header().Get("Content-Encoding"))
		}
		for _, tt := range []struct{ accept, want string }{{"gzip", "gzip"}, {"gzip, br", "br"}, {"br;q=0, gzip", "gzip"}, {"*", "br"}, {"identity", ""}} {
			rec := get(t, s, path, "Accept-Encoding", tt.accept)
			if ce := rec.Header().Get("Content-Encoding"); rec.Code != 200 || ce != tt.want {
				t.Errorf("GET %s, Accept-Encoding %q = %d, Content-Encoding %q; want 200, %q", path, tt.accept, rec.Code, ce, tt.want)
				continue
			}
			if v := rec.Header().Get("Vary"); !strings.Contains(v, "Accept-Encoding") {
				t.Errorf("GET %s Vary = %q; want Accept-Encoding", path, v)
			}
			if got := decode(t, rec); !bytes.Equal(got, plain.Body.Bytes()) {
				t.Errorf("GET %s, Accept-Encoding %q: decoded once, %d bytes differ from the %d identity bytes", path, tt.accept, len(got), plain.Body.Len())
			}
		}
	}
	if body := get(t, s, defaultState+"/8").Body.String(); !strings.HasPrefix(strings.ToLower(body), "<!doctype html>") {
		t.Errorf("identity page starts %q; want <!doctype html>", body[:min(len(body), 20)])
	}
}

func TestETagNotModified(t *testing.T) {
	s := newTestServer(t)
	for _, path := range []string{defaultState + "/5", "/en", s.assets.urls.JS} {
		tags := map[string]string{}
		for _, accept := range []string{"", "gzip", "br"} {
			rec := get(t, s, path, "Accept-Encoding", accept)
			tags[accept] = rec.Header().Get("ETag")
			if tag := tags[accept]; !strings.HasPrefix(tag, `"`) || !strings.HasSuffix(tag, `"`) {
				t.Fatalf("GET %s ETag = %q; want a strong tag", path, tag)
			}
		}
		if tags[""] == tags["gzip"] || tags["gzip"] == tags["br"] {
			t.Errorf("GET %s: ETags %v; want one per coding", path, tags)
		}
		for _, tt := range []struct {
			method, inm string
			want        int
		}{
			{"GET", tags[""], 304},
			{"GET", "W/" + tags["gzip"], 304},
			{"GET", `"other", ` + tags["br"], 304},
			{"GET", "*", 304},
			{"HEAD", tags[""], 304},
			{"GET", `"other"`, 200},
		} {
			req := httptest.NewRequest(tt.method, path, nil)
			req.Header.Set("Accept-Encoding", "gzip")
			req.Header.Set("If-None-Match", tt.inm)
			rec := httptest.NewRecorder()
			s.Handler().ServeHTTP(rec, req)
			if rec.Code != tt.want {
				t.Errorf("%s %s If-None-Match %s = %d; want %d", tt.method, path, tt.inm, rec.Code, tt.want)
			}
			if tt.want == 304 && (rec.Body.Len() != 0 || rec.Header().Get("ETag") != tags["gzip"]) {
				t.Errorf("%s %s 304: %d bytes, ETag %q; want no body, ETag %s", tt.method, path, rec.Body.Len(), rec.Header().Get("ETag"), tags["gzip"])
			}
		}
	}
}

// TestDynamicGzipStays: JSON made per request is still gzipped by the
// middleware, once.
func TestDynamicGzipStays(t *testing.T) {
	s := newTestServer(t)
	rec := get(t, s, "/api/lessons/context-memory/frames", "Accept-Encoding", "gzip, br")
	if ce := rec.Header().Get("Content-Encoding"); ce != "gzip" {
		t.Fatalf("frames API Content-Encoding = %q; want gzip", ce)
	}
	if got := decode(t, rec); !bytes.HasPrefix(got, []byte(`{"lesson":"context-memory"`)) {
		t.Errorf("frames API decoded once starts %q; want JSON", got[:min(len(got), 30)])
	}
}
