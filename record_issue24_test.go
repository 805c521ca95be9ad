package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ctxsim/scenarios"
)

// TestRecordNewLessons: `ctxsim record` asks a fake endpoint for every
// summary card of memory-after-compaction (one card, covering a rule the
// harness loaded) and production-layers (a record per round it archives); the lesson
// then offers rec 2 and 3 and shows the recorded texts with where they
// came from.
func TestRecordNewLessons(t *testing.T) {
	for _, tc := range []struct {
		from, id, query, card string
		cards                 int
	}{
		{"memory-after-compaction", "mac-recorded", "reinject=disk&rec=2", "summary-1", 1},
		{"production-layers", "pl-recorded", "layers=4&breaker=on&rec=2", "record-06", 3},
	} {
		t.Run(tc.from, func(t *testing.T) {
			calls := 0
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				body, _ := io.ReadAll(r.Body)
				if !bytes.Contains(body, []byte("user")) {
					t.Errorf("request %d does not carry the covered messages: %.200s", calls, body)
				}
				fmt.Fprintf(w, `{"model":"fake-model","choices":[{"message":{"content":"Recorded summary %d."}}]}`, calls)
			}))
			defer ts.Close()
			dir := t.TempDir()
			copyBuiltin(t, dir, tc.from, tc.id)
			var out bytes.Buffer
			err := run(context.Background(), []string{"record", "-lesson", tc.id, "-lessons", dir, "-n", "2",
				"-summarizer", ts.URL + "/v1/chat/completions", "-summarizer-model", "m"}, &out, io.Discard)
			if err != nil {
				t.Fatalf("record: %v", err)
			}
			want := fmt.Sprintf("recorded %d summaries for the %d summary cards of lesson %s", 2*tc.cards, tc.cards, tc.id)
			if !strings.Contains(out.String(), want) || calls != 2*tc.cards {
				t.Errorf("report %q after %d calls; want %q", out.String(), calls, want)
			}
			srv, err := newServer(dir, nil)
			if err != nil {
				t.Fatalf("serve: %v", err)
			}
			var doc struct {
				Frames []struct {
					Blocks []map[string]any `json:"blocks"`
				} `json:"frames"`
			}
			if err := json.Unmarshal([]byte(httpGet(t, srv.Handler(), "/api/lessons/"+tc.id+"/frames?"+tc.query)), &doc); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, f := range doc.Frames {
				for _, b := range f.Blocks {
					if b["id"] == tc.card {
						found = true
						if b["recorded"] != true || !strings.Contains(b["provenance"].(string), "fake-model") {
							t.Errorf("%s under rec 2: %v", tc.card, b)
						}
					}
				}
			}
			if !found {
				t.Errorf("no frame of %s shows %s", tc.query, tc.card)
			}
		})
	}
}

// copyBuiltin copies the built-in lesson from into dir as lesson id.
func copyBuiltin(t *testing.T, dir, from, id string) {
	t.Helper()
	src := scenarios.Builtin()
	err := fs.WalkDir(src, from, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		to := filepath.Join(dir, id, strings.TrimPrefix(p, from))
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		b, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		if d.Name() == "lesson.yaml" {
			b = []byte(strings.Replace(string(b), "id: "+from, "id: "+id, 1))
		}
		return os.WriteFile(to, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
