package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestRecordThenServe: `ctxsim record` asks an endpoint (a fake) for every
// summary card of a lesson, and `ctxsim serve -lessons` then shows the
// recordings beside the versions written for the lesson, with where they
// came from.
func TestRecordThenServe(t *testing.T) {
	calls := 0
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, `{"model":"qwen3-test","choices":[{"message":{"content":"Recorded %d: keep pnpm; fix line 247 with i < n."}}]}`, calls)
	}))
	defer ts.Close()
	dir := t.TempDir()
	copyLesson(t, dir, "cm-recorded", nil)
	var out bytes.Buffer
	err := run(context.Background(), []string{"record", "-lesson", "cm-recorded", "-lessons", dir, "-n", "2",
		"-summarizer", ts.URL + "/v1/chat/completions", "-summarizer-model", "m"}, &out, io.Discard)
	if err != nil {
		t.Fatalf("record: %v", err)
	}
	for _, want := range []string{"recorded 6 summaries for the 3 summary cards of lesson cm-recorded", "7 versions: 1–5 written for the lesson, 6–7 recorded"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
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
	if err := json.Unmarshal([]byte(httpGet(t, srv.Handler(), "/api/lessons/cm-recorded/frames?rec=6")), &doc); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range doc.Frames {
		for _, b := range f.Blocks {
			if b["id"] == "s92" {
				found = true
				if b["recorded"] != true || b["recording"] != 6.0 || !strings.Contains(b["provenance"].(string), "qwen3-test") {
					t.Errorf("s92 under rec 6: %v", b)
				}
			}
		}
	}
	if !found {
		t.Error("no frame shows the summary s92")
	}
	page := httpGet(t, srv.Handler(), "/en/cm-recorded/compaction-on.memory-on.threshold-92.rec-6/7")
	if !strings.Contains(page, "Recorded by ctxsim record from qwen3-test") {
		t.Error("the page does not say where the recording came from")
	}
}

func TestRecordErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"record"}, "-lesson is required"},
		{[]string{"record", "-lesson", "x"}, "-summarizer is required"},
		{[]string{"record", "-lesson", "x", "-summarizer", "http://127.0.0.1:1/v1/chat/completions"}, "model name is required"},
		{[]string{"record", "-lesson", "x", "-summarizer", "http://127.0.0.1:1/v1/other", "-summarizer-model", "m"}, "must end in"},
		{[]string{"record", "-lesson", "x", "-n", "0", "-summarizer", "http://127.0.0.1:1/v1/messages", "-summarizer-model", "m"}, "-n must be"},
		{[]string{"record", "-lesson", "no-such", "-lessons", "/nonexistent", "-summarizer", "http://127.0.0.1:1/v1/messages", "-summarizer-model", "m"}, "load"},
		{[]string{"record", "extra"}, "unexpected argument"},
	} {
		err := run(context.Background(), tc.args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%v) = %v; want %q", tc.args, err, tc.want)
		}
	}
}
