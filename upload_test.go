package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestUploadIsImport: a Codex CLI rollout uploaded to `ctxsim serve`
// (POST /sessions) becomes the same lesson `ctxsim import` writes from it:
// frame for frame, block for block (both kept as recorded, since an
// import redacts the importing machine's home, an upload the home the
// session shows).
func TestUploadIsImport(t *testing.T) {
	const file = "authoring/transcript/testdata/cx_plain.jsonl"
	dir := filepath.Join(t.TempDir(), "lessons")
	if err := run(context.Background(), []string{"import", "-no-redact", "-o", dir, file}, io.Discard, io.Discard); err != nil {
		t.Fatalf("import: %v", err)
	}
	srv, err := newServer(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := srv.Handler()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, "/sessions?keep=1&name=cx_plain.jsonl", strings.NewReader(string(data)))
	req.Host = "localhost" // httptest's example.com is not a host serve answers to (421)
	h.ServeHTTP(rec, req)
	m := regexp.MustCompile(`^/en/(u-[a-z2-7]{32})/`).FindStringSubmatch(rec.Header().Get("Location"))
	if rec.Code != http.StatusSeeOther || m == nil {
		t.Fatalf("POST /sessions = %d %q; want 303 to the session", rec.Code, rec.Header().Get("Location"))
	}
	type frames struct {
		Window int `json:"window"`
		Frames []struct {
			Kind        string `json:"kind"`
			TotalTokens int    `json:"total_tokens"`
			Blocks      []struct {
				ID      string `json:"id"`
				Role    string `json:"role"`
				Tokens  int    `json:"tokens"`
				Content string `json:"content"`
			} `json:"blocks"`
		} `json:"frames"`
	}
	read := func(id string) frames {
		var f frames
		if err := json.Unmarshal([]byte(httpGet(t, h, "/api/lessons/"+id+"/frames")), &f); err != nil || len(f.Frames) == 0 {
			t.Fatalf("frames of %s: %v (%d frames)", id, err, len(f.Frames))
		}
		return f
	}
	imported, uploaded := read("session-cx-plain"), read(m[1])
	if !reflect.DeepEqual(imported, uploaded) {
		t.Errorf("the uploaded session's frames differ from the imported one's:\nimported %+v\nuploaded %+v", imported, uploaded)
	}
}
