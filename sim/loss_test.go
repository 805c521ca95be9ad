package sim

import (
	"strings"
	"testing"
)

func TestLossFacts(t *testing.T) {
	rng := []Block{
		{ID: "u1", Role: RoleUser, Content: "Fix the parser test. Always use pnpm, never npm. The bug is in src/parser.ts somewhere."},
		{ID: "c1", Role: RoleAssistant, Kind: KindToolCall, Args: `{"file_path":"/repo/src/parser.ts"}`},
		{ID: "r1", Role: RoleTool, Kind: KindToolResult, Content: "export function parse() {}\n"},
		{ID: "c2", Role: RoleAssistant, Kind: KindToolCall, Args: `{"command":"pnpm test --filter parser\necho done"}`},
		{ID: "r2", Role: RoleTool, Kind: KindToolResult, Content: "ok 1\nTypeError: cannot read properties of undefined (reading 'length')\n"},
		{ID: "a1", Role: RoleAssistant, Content: "I will patch parseArray."},
	}
	facts := lossFacts(&Lesson{}, rng)
	var got []string
	for _, f := range facts {
		got = append(got, f.kind+": "+f.text)
	}
	want := []string{
		"instruction: Always use pnpm, never npm",
		"file: src/parser.ts",
		"file: /repo/src/parser.ts",
		"command: pnpm test --filter parser",
		"error: TypeError: cannot read properties of undefined (reading 'length')",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("lossFacts =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tests := []struct {
		summary string
		kept    []string // kinds kept, in order of the facts
	}{
		{"Goal: fix parser.ts. Ran pnpm test: TypeError reading length of undefined properties. User: always use pnpm, never npm.",
			[]string{"kept", "kept", "kept", "kept", "kept"}},
		{"The assistant looked at some code.", []string{"lost", "lost", "lost", "lost", "lost"}},
		{"Edited parser.ts.", []string{"lost", "kept", "kept", "lost", "lost"}},
	}
	for _, tt := range tests {
		p := lossPanel(facts, tt.summary)
		var states []string
		for _, r := range p.Rows {
			states = append(states, r.Key)
		}
		if strings.Join(states, " ") != strings.Join(tt.kept, " ") {
			t.Errorf("lossPanel(%q) = %v; want %v", tt.summary, states, tt.kept)
		}
	}
	if p := lossPanel(nil, "x"); len(p.Rows) != 0 || p.Notes[0].Key != "panel.loss.none" {
		t.Errorf("lossPanel of an empty range = %+v; want no rows and the none note", p)
	}
}

// TestErrorLine: a line that reports an error is a fact; a line that only
// says the word (a Go signature) is not.
func TestErrorLine(t *testing.T) {
	tests := []struct{ text, want string }{
		{"func handle(ctx context.Context) error { return nil }\n", ""},
		{"ok\n[error] exit status 1\n", "[error] exit status 1"},
		{"=== RUN TestParse\n--- FAIL: TestParse (0.00s)\n", "--- FAIL: TestParse (0.00s)"},
		{"open config.yaml: no such file or directory\n", "open config.yaml: no such file or directory"},
		{"Error: listen EADDRINUSE :3000\n", "Error: listen EADDRINUSE :3000"},
		{"errors are wrapped with context\n", ""},
		{"all 12 tests passed\n", ""},
	}
	for _, tt := range tests {
		if got := errorLine(tt.text); got != tt.want {
			t.Errorf("errorLine(%q) = %q; want %q", tt.text, got, tt.want)
		}
	}
}

// TestLossFilesOnce: a path named in a call's arguments and in a message is
// one fact, with or without the leading slash.
func TestLossFilesOnce(t *testing.T) {
	rng := []Block{
		{ID: "c1", Role: RoleAssistant, Kind: KindToolCall, Args: `{"file_path":"/work/app/store.go"}`},
		{ID: "r1", Role: RoleTool, Kind: KindToolResult, Content: "package store\n"},
		{ID: "a1", Role: RoleAssistant, Content: "I read /work/app/store.go and ~/notes/todo.md."},
	}
	var got []string
	for _, f := range lossFacts(&Lesson{}, rng) {
		got = append(got, f.kind+": "+f.text)
	}
	want := "file: /work/app/store.go\nfile: ~/notes/todo.md"
	if strings.Join(got, "\n") != want {
		t.Errorf("lossFacts =\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}

// TestMayMatchError: the cheap test before errorRE never turns away a
// line errorRE matches, and turns away the word error in code.
func TestMayMatchError(t *testing.T) {
	pieces := []string{"error", "Error", "ERROR", "errors", " ", "\t", ":", "]", "[", "occurred", " occurred", "s occurred", "func f() error {",
		"FAIL", "--- FAIL", "fail", "panic", "Traceback", "cannot", "not found", "no such file", "permission denied", "undefined",
		"exception", "x", "_", "é", "K", "ſ", "0", "\r", "-"}
	lines := []string{"func handle(ctx context.Context) error { return nil }", "if err != nil { return err }", "error: boom", "ERROR ]",
		"error occurred", "errors occurred", "errorx: no", "  --- FAIL: TestX", "panic: nil map", "xerror:", "error\t:", "error\r]"}
	seed := uint64(1)
	for range 20000 {
		var b strings.Builder
		for range 1 + int(seed%6) {
			seed = seed*6364136223846793005 + 1442695040888963407
			b.WriteString(pieces[(seed>>33)%uint64(len(pieces))])
		}
		lines = append(lines, b.String())
	}
	for _, line := range lines {
		if errorRE.MatchString(line) && !mayMatchError(line) {
			t.Errorf("mayMatchError(%q) = false; errorRE matches it", line)
		}
	}
	for _, line := range lines[:2] {
		if mayMatchError(line) {
			t.Errorf("mayMatchError(%q) = true; want false (error in code, not reported)", line)
		}
	}
}
