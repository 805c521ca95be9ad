package web

import (
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// sheetTextRE finds the text address of the sheet of block id in a page.
func sheetTextRE(id string) *regexp.Regexp {
	return regexp.MustCompile(`id="sheet-` + regexp.QuoteMeta(id) + `".*?data-text="([^"]+)"`)
}

// blockContent is the text of block id at step (1-based) of the frames
// API answer at path.
func blockContent(t *testing.T, h http.Handler, path string, step int, id string) string {
	t.Helper()
	rec := call(h, http.MethodGet, path, nil)
	var api struct {
		Frames []struct {
			Blocks []struct{ ID, Content string }
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &api); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	for _, b := range api.Frames[step-1].Blocks {
		if b.ID == id {
			return strings.TrimRight(b.Content, "\n")
		}
	}
	t.Fatalf("GET %s: no block %s at step %d", path, id, step)
	return ""
}

// TestBlockText: a page links to its blocks' texts instead of carrying
// them; each is served on its own, content-addressed and cacheable; a
// server that does not hold it (evicted, or another instance) finds it
// from the page named by ?at=.
func TestBlockText(t *testing.T) {
	s := newTestServer(t)
	h := s.Handler()
	pagePath := "/en/context-memory/" + cmPolicy + "/4"
	pg := call(h, http.MethodGet, pagePath, nil).Body.String()
	want := blockContent(t, h, "/api/lessons/context-memory/frames", 4, "m-file")
	if len(want) < 40 || strings.Contains(pg, want[:40]) {
		t.Fatalf("the page carries the block's text (or it is too short to tell: %q)", want)
	}
	m := sheetTextRE("m-file").FindStringSubmatch(pg)
	if m == nil || !regexp.MustCompile(`^/en/context-memory/text/[0-9a-f]{16}\.txt$`).MatchString(m[1]) {
		t.Fatalf("the sheet of m-file links no text address: %v", m)
	}
	u := m[1]
	rec := call(h, http.MethodGet, u, nil)
	if rec.Code != http.StatusOK || rec.Body.String() != "\uFEFF"+want {
		t.Fatalf("GET %s = %d %q; want 200 with the block's text after a BOM", u, rec.Code, rec.Body.String())
	}
	if ct, cc := rec.Header().Get("Content-Type"), rec.Header().Get("Cache-Control"); ct != "text/plain; charset=UTF-8" || cc != "public, max-age=31536000, immutable" {
		t.Errorf("GET %s: Content-Type %q, Cache-Control %q", u, ct, cc)
	}
	// Compressed once, like a page (not again by the gzip middleware): the
	// longest text of a long session's page.
	pg63 := call(h, http.MethodGet, "/en/real-compaction/compaction-recorded.threshold-85.window-200000/63", nil).Body.String()
	var long string
	for _, m := range regexp.MustCompile(`data-text="([^"]+)"><a [^>]*>Read the text \(([0-9,]+) characters\)`).FindAllStringSubmatch(pg63, -1) {
		if len(m[2]) >= 6 { // 10,000 characters and more
			long = m[1]
		}
	}
	if long == "" {
		t.Fatal("real-compaction's step 63 links no text of 10,000 characters or more")
	}
	want63 := call(h, http.MethodGet, long, nil).Body.String()
	zr := call(h, http.MethodGet, long, nil, "Accept-Encoding", "gzip")
	if zr.Header().Get("Content-Encoding") != "gzip" || zr.Header().Get("Content-Type") != "text/plain; charset=UTF-8" {
		t.Errorf("GET %s gzip: Content-Encoding %q, Content-Type %q", long, zr.Header().Get("Content-Encoding"), zr.Header().Get("Content-Type"))
	} else if gz, err := gzip.NewReader(zr.Body); err != nil {
		t.Errorf("GET %s gzip: %v", u, err)
	} else if b, err := io.ReadAll(gz); err != nil || string(b) != want63 || len(b) < 10000 {
		t.Errorf("GET %s gzip: %v, %d bytes; want the text", long, err, len(b))
	}
	etag := rec.Header().Get("ETag")
	if rec := call(h, http.MethodGet, u, nil, "If-None-Match", etag); etag == "" || rec.Code != http.StatusNotModified {
		t.Errorf("GET %s If-None-Match %s = %d; want 304", u, etag, rec.Code)
	}
	for _, bad := range []string{"/en/context-memory/text/" + strings.Repeat("0", 32) + ".txt", "/en/context-memory/text/x.txt", "/en/no-such-lesson/text/" + u[len(u)-36:]} {
		if rec := call(h, http.MethodGet, bad, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d; want 404", bad, rec.Code)
		}
	}

	// A server that does not hold the text (evicted; another instance
	// rendered the page) finds it from ?at=, the page that shows it.
	s.texts.shared.Reset()
	if rec := call(h, http.MethodGet, u, nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET %s of a server that holds no text = %d; want 404", u, rec.Code)
	}
	for _, c := range []struct {
		at   string
		code int
	}{
		{"/en/context-memory/" + cmPolicy + "/1", http.StatusNotFound}, // a step that does not show it
		{"/en/sliding-window/history-sliding/4", http.StatusNotFound},  // another lesson
		{"/ja/context-memory/" + cmPolicy + "/4", http.StatusNotFound}, // another language
		{pagePath, http.StatusOK},
	} {
		s.texts.shared.Reset()
		rec := call(h, http.MethodGet, u+"?at="+c.at, nil)
		if rec.Code != c.code || c.code == http.StatusOK && rec.Body.String() != "\uFEFF"+want {
			t.Errorf("GET %s?at=%s = %d; want %d", u, c.at, rec.Code, c.code)
		}
	}
}

// TestBlockTextUpload: an uploaded session's texts are served only under
// its own path, private like its pages, and go when it is forgotten.
func TestBlockTextUpload(t *testing.T) {
	h := newTestServer(t).Handler()
	loc := uploadedAt(t, h, nil, fixture(t, "cc_plain.jsonl"))
	id := stepOneRE.FindStringSubmatch(loc)[2]
	pg := call(h, http.MethodGet, loc, nil).Body.String()
	m := regexp.MustCompile(`data-text="(/en/` + id + `/text/([0-9a-f]{16}\.txt))"`).FindStringSubmatch(pg)
	if m == nil {
		t.Fatalf("the uploaded session's step 1 links no text under /en/%s/text/", id)
	}
	rec := call(h, http.MethodGet, m[1], nil)
	if rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "private, no-store" {
		t.Fatalf("GET %s = %d, Cache-Control %q; want 200, private, no-store", m[1], rec.Code, rec.Header().Get("Cache-Control"))
	}
	if rec := call(h, http.MethodGet, "/en/context-memory/text/"+m[2], nil); rec.Code != http.StatusNotFound {
		t.Errorf("the upload's text under another lesson's path = %d; want 404", rec.Code)
	}
	if rec := call(h, http.MethodDelete, sessionURL("en", id), nil, "Origin", "http://example.com", "Sec-Fetch-Site", "same-origin"); rec.Code >= 400 {
		t.Fatalf("DELETE the session = %d", rec.Code)
	}
	if rec := call(h, http.MethodGet, m[1], nil); rec.Code != http.StatusNotFound {
		t.Errorf("GET %s after the session was forgotten = %d; want 404", m[1], rec.Code)
	}
}
