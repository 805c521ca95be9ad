package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportThenServe: `ctxsim import` writes a lesson that
// `ctxsim serve -lessons` serves beside the built-in ones, and reports
// what it read.
func TestImportThenServe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lessons")
	var out bytes.Buffer
	err := run(context.Background(), []string{"import", "-o", dir, "authoring/transcript/testdata/cc_compaction.jsonl"}, &out, io.Discard)
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	for _, want := range []string{"as lesson session-cc-compaction", "10 records read", "8 messages, 2 tool calls, 1 compactions → 6 steps",
		"window 200000 tokens", "4 model calls with provider usage", "ctxsim serve -lessons " + dir} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, out.String())
		}
	}
	srv, err := newServer(dir, nil)
	if err != nil {
		t.Fatalf("serve the import: %v", err)
	}
	if body := httpGet(t, srv.Handler(), "/api/lessons"); !strings.Contains(body, `"id":"session-cc-compaction"`) {
		t.Errorf("/api/lessons = %s; want the imported session", body)
	}
	// Importing again names the lesson already there and changes nothing.
	before, _ := os.ReadFile(filepath.Join(dir, "session-cc-compaction", "lesson.yaml"))
	err = run(context.Background(), []string{"import", "-o", dir, "authoring/transcript/testdata/cc_compaction.jsonl"}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second import: %v; want 'already exists'", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "session-cc-compaction", "lesson.yaml")); !bytes.Equal(before, after) {
		t.Error("the second import changed the lesson")
	}
}

// TestImportErrors: bad input is named with file and line, or the flag and
// what it allows, and writes nothing.
func TestImportErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lessons")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "name exactly one session file"},
		{[]string{"import", "-format", "csv", "x.jsonl"}, "-format must be claude-code, codex, openai-chat or gemini-cli"},
		{[]string{"import", "-window", "-5", "x.jsonl"}, "-window must be a positive number"},
		{[]string{"import", "authoring/transcript/testdata/cc_broken.jsonl"}, "cc_broken.jsonl:3: broken JSON"},
		{[]string{"import", "authoring/transcript/testdata/oa_orphan_tool.json"}, "oa_orphan_tool.json:2: tool result for call_ghost has no tool call"},
		{[]string{"import", "authoring/transcript/testdata/unknown.txt"}, "unknown format"},
		{[]string{"import", "no-such-file.jsonl"}, "no such file"},
		{[]string{"import", "-summarizer", "http://127.0.0.1:1/v1/other", "-summarizer-model", "m", "authoring/transcript/testdata/cc_plain.jsonl"}, "/v1/chat/completions"},
		{[]string{"import", "-summarizer", "http://127.0.0.1:1/v1/messages", "authoring/transcript/testdata/cc_plain.jsonl"}, "-summarizer-model"},
	}
	for _, tt := range tests {
		args := append([]string{tt.args[0], "-o", dir}, tt.args[1:]...)
		err := run(context.Background(), args, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ctxsim %s: %v; want an error saying %q", strings.Join(tt.args, " "), err, tt.want)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed imports left %d entries in %s", len(entries), dir)
	}
}
