package transcript

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// TestReadClaudeShapes reads the field shapes of recent Claude Code
// releases (values trimmed, unknown and changed fields among them).
func TestReadClaudeShapes(t *testing.T) {
	tests := []struct {
		file     string
		messages []string
		skipped  map[string]int // a part of Skipped
		model    string
	}{
		{
			// Records of many kinds; the main records are marked sidechain,
			// and the nested ones of release 2.1.220 are the chain: a tool
			// result whose content is a list of parts with extra fields.
			file: "shapes/claude/small.jsonl",
			messages: []string{
				`assistant "Listing the files." call=[toolu_stage0_1 Bash {"command":"ls"}] usage=10/0/0/5`,
				`tool toolu_stage0_1 "a.txt\nb.txt\n"`,
			},
			skipped: map[string]int{"frame-link": 1, "pr-link": 1, "atis-latch": 1, "bridge-session": 1, "worktree-state": 2, "sidechain": 9, "thinking": 1},
			model:   "claude-opus-5",
		},
		{
			// A tool call without an id and its result without tool_use_id.
			file: "shapes/claude/large.jsonl",
			messages: []string{
				`user "Start"`,
				`assistant "Ok, running." call=[ bash {"command":"printf 'line1\\nline2\\nline3\\n'"}]`,
				`tool  "ok"`,
				`assistant "Continuing."`, `user "Step 1"`, `assistant "Ok"`, `user "Step 2"`, `assistant "Ok"`, `user "Step 3"`, `assistant "Ok"`,
			},
			skipped: map[string]int{"thinking": 1},
		},
		{
			// Records of an old release without parentUuid continue the one
			// before them; top-level tool_use/tool_result records are counted.
			file:     "shapes/claude/schema_drift.jsonl",
			messages: []string{`user "Open README"`, `assistant "Read README and extracted the title."`, `user "List files"`},
			skipped:  map[string]int{"tool_use": 1, "tool_result": 1, "permission-mode": 1, "mode": 1, "attachment": 1, "system": 2},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustRead(t, fixture(tt.file), Options{})
			if d := diffLines(shape(s), tt.messages); d != "" {
				t.Errorf("messages differ at %s", d)
			}
			for k, n := range tt.skipped {
				if s.Skipped[k] != n {
					t.Errorf("Skipped[%s] = %d; want %d (all: %v)", k, s.Skipped[k], n, s.Skipped)
				}
			}
			if s.Format != ClaudeCode || s.Model != tt.model || s.Skipped["off-branch"] > 3 {
				t.Errorf("format %q model %q skipped %v", s.Format, s.Model, s.Skipped)
			}
			checkSession(t, s)
		})
	}
}

// TestReadClaudeSubagentShape reads the sub-agent shape: a session whose
// Task call has no id, and a sub-agent file with its .meta.json.
func TestReadClaudeSubagentShape(t *testing.T) {
	s := mustRead(t, fixture("shapes/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl"), Options{})
	if d := diffLines(shape(s), []string{`user "Delegate a repo search to a subagent"`,
		`assistant "Spawning a subagent." call=[ Task {"subagent_type":"general-purpose","description":"search files"}]`}); d != "" {
		t.Errorf("messages differ at %s", d)
	}
	if len(s.Subagents) != 1 {
		t.Fatalf("Subagents = %d; want 1", len(s.Subagents))
	}
	sa := s.Subagents[0]
	if sa.AgentID != "a0ad4f44468bdf20d" || sa.Type != "general-purpose" || sa.Message != 1 || sa.LinkedBy != "time" || sa.File != "agent-a0ad4f44468bdf20d.jsonl" {
		t.Errorf("Subagents[0] = %+v; want agent a0ad4f44468bdf20d, general-purpose, linked by time to message 1", sa)
	}
	want := []string{`user "Search the repo for TODO comments"`, `assistant "Searching." call=[ bash {"command":"grep -rn TODO"}]`, `tool  "a.txt:1: TODO fix"`}
	if d := diffLines(shape(sa.Session), want); d != "" {
		t.Errorf("sub-agent messages differ at %s", d)
	}
}

// sideFixture is a session with files beside it, in memory.
func sideFixture(main string, side map[string]string) Files {
	files := Files{"s.jsonl": []byte(main)}
	for base, content := range side {
		files[SidecarName("s.jsonl", base)] = []byte(content)
	}
	return files
}

// TestSubagentLinks checks each way a sub-agent is linked to its Task call.
func TestSubagentLinks(t *testing.T) {
	task := func(uuid, parent, id, prompt string, minute int) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent +
			`","timestamp":"2025-01-01T10:0` + string(rune('0'+minute)) + `:00Z","message":{"id":"m` + uuid + `","role":"assistant","content":[{"type":"tool_use","id":"` + id +
			`","name":"Task","input":{"prompt":"` + prompt + `"}}]}}`
	}
	result := func(uuid, parent, id, extra string) string {
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"done"}]}` + extra + `}`
	}
	agent := func(id, prompt string, minute int) string {
		return lines(`{"type":"user","uuid":"s`+id+`","parentUuid":null,"isSidechain":true,"agentId":"`+id+`","timestamp":"2025-01-01T10:0`+string(rune('0'+minute))+`:30Z","message":{"role":"user","content":"`+prompt+`"}}`,
			`{"type":"assistant","uuid":"t`+id+`","parentUuid":"s`+id+`","isSidechain":true,"agentId":"`+id+`","message":{"id":"x`+id+`","role":"assistant","content":"ok","usage":{"input_tokens":5}}}`)
	}
	main := lines(
		rec("user", "u0", "", 0, ""),
		task("a1", "u0", "call_1", "Find the TODOs", 1),
		result("r1", "a1", "call_1", `,"toolUseResult":{"agentId":"aaa","status":"completed"}`),
		task("a2", "r1", "call_2", "Count the lines", 2),
		`{"type":"progress","uuid":"p1","parentUuid":"a2","parentToolUseID":"call_2","data":{"type":"agent_progress","agentId":"bbb"}}`,
		result("r2", "a2", "call_2", ""),
		task("a3", "r2", "call_3", "Read the README", 3),
		result("r3", "a3", "call_3", ""),
		task("a4", "r3", "call_4", "Something else", 4),
		result("r4", "a4", "call_4", ""),
	)
	files := sideFixture(main, map[string]string{
		"agent-aaa.jsonl":     agent("aaa", "Find the TODOs", 1),
		"agent-bbb.jsonl":     agent("bbb", "Count the lines", 2),
		"agent-ccc.jsonl":     agent("ccc", "Read the README", 3),
		"agent-ddd.jsonl":     agent("ddd", "A prompt no call has", 4),
		"agent-ddd.meta.json": `{"agentType":"Explore"}`,
	})
	s, err := ReadFS(files, "s.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"aaa": "call_1 agentId", "bbb": "call_2 agentId", "ccc": "call_3 prompt", "ddd": "call_4 time"}
	for _, sa := range s.Subagents {
		if got := sa.CallID + " " + sa.LinkedBy; got != want[sa.AgentID] || s.Messages[sa.Message].Calls[0].ID != sa.CallID {
			t.Errorf("sub-agent %s linked to %q (message %d); want %q", sa.AgentID, got, sa.Message, want[sa.AgentID])
		}
	}
	if len(s.Subagents) != 4 || s.Subagents[3].Type != "Explore" || len(s.Subagents[0].Session.Requests()) != 1 {
		t.Errorf("Subagents = %d, the last of type %q", len(s.Subagents), s.Subagents[3].Type)
	}
}

// TestCompactCallMatching checks that a compaction call's file goes to the
// compaction it wrote: by the record its request ended with, else by time.
func TestCompactCallMatching(t *testing.T) {
	boundary := func(uuid string, minute int) string {
		return rec("system", uuid, "", minute, `,"subtype":"compact_boundary","logicalParentUuid":"gone-`+uuid+`","compactMetadata":{"trigger":"auto","preTokens":1000,"postTokens":120}`)
	}
	main := lines(
		rec("user", "u1", "", 0, ""), rec("assistant", "a1", "u1", 1, ""),
		boundary("b1", 2), rec("user", "u2", "b1", 3, ""), rec("assistant", "a2", "u2", 4, ""),
		boundary("b2", 6), rec("user", "u3", "b2", 7, ""),
	)
	compactor := func(parent string, minute int, answer string) string {
		return lines(`{"type":"user","uuid":"p`+answer+`","parentUuid":"`+parent+`","isSidechain":true,"agentId":"acompact-`+answer+`","message":{"role":"user","content":"Summarize the conversation."}}`,
			`{"type":"assistant","uuid":"q`+answer+`","parentUuid":"p`+answer+`","isSidechain":true,"timestamp":"2025-01-01T10:0`+string(rune('0'+minute))+`:30Z","message":{"id":"c`+answer+`","model":"claude-x","role":"assistant","content":"`+answer+`","usage":{"input_tokens":2,"cache_read_input_tokens":900,"cache_creation_input_tokens":50,"output_tokens":70}}}`)
	}
	files := sideFixture(main, map[string]string{
		"agent-acompact-1.jsonl": compactor("a1", 1, "first"),   // continues a1: the first compaction
		"agent-acompact-2.jsonl": compactor("zzz", 5, "second"), // its parent is not in the session: by time
	})
	s, err := ReadFS(files, "s.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Compactions) != 2 || s.Compactions[0].Call == nil || s.Compactions[1].Call == nil {
		t.Fatalf("Compactions = %+v; want two, each with its call", s.Compactions)
	}
	first, second := s.Compactions[0].Call, s.Compactions[1].Call
	if first.Answer != "first" || first.Through != 1 || first.Model != "claude-x" || *first.Usage != (Usage{Input: 2, CacheRead: 900, CacheCreation: 50, Output: 70}) ||
		len(first.Prompt) != 1 || first.Prompt[0].Text != "Summarize the conversation." {
		t.Errorf("Compactions[0].Call = %+v", first)
	}
	if second.Answer != "second" || second.Through != -1 || s.Compactions[1].PostTokens != 120 {
		t.Errorf("Compactions[1] = %+v, call %+v", s.Compactions[1], second)
	}
	// The boundaries' logical parents are not in the file: each continues
	// the newest record before it.
	if got := texts(s); got != "u1 a1 u2 a2 u3" {
		t.Errorf("chain = %q; want every message", got)
	}
}

// TestSidecarErrors checks that a broken file beside the session is named
// with its line, and that no sidecars is no error.
func TestSidecarErrors(t *testing.T) {
	files := sideFixture(lines(rec("user", "u1", "", 0, "")), map[string]string{"agent-x.jsonl": "{\"type\":\"user\"\n"})
	_, err := ReadFS(files, "s.jsonl", Options{})
	if e := asError(t, err); e.File != "s/subagents/agent-x.jsonl" || e.Line != 1 {
		t.Errorf("ReadFS(broken sub-agent) error at %s:%d; want s/subagents/agent-x.jsonl:1", e.File, e.Line)
	}
	if _, err := ReadFS(Files{"s.jsonl": []byte(lines(rec("user", "u1", "", 0, "")))}, "s.jsonl", Options{}); err != nil {
		t.Errorf("ReadFS(no sidecars) error: %v", err)
	}
	if _, err := ReadFS(Files{}, "missing.jsonl", Options{}); err == nil || asErrorOK(err) {
		t.Errorf("ReadFS(missing) error = %v; want an I/O error", err)
	}
}

// asErrorOK says whether err is an *Error.
func asErrorOK(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// TestChainFallbacks checks the chain rules recent files need.
func TestChainFallbacks(t *testing.T) {
	asst := func(uuid, parent, msgID, id string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"id":"` + msgID + `","role":"assistant","content":[{"type":"tool_use","id":"` + id + `","name":"Read","input":{}}]}}`
	}
	result := func(uuid, parent, id string) string {
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"r` + id + `"}]}}`
	}
	tests := []struct {
		name, jsonl string
		want        []string
	}{
		{"parallel tool results: each a child of its call's record", lines(
			rec("user", "u1", "", 0, ""),
			asst("a1", "u1", "m1", "t1"), asst("a2", "a1", "m1", "t2"),
			result("r1", "a1", "t1"), result("r2", "a2", "t2"),
			rec("assistant", "a3", "r2", 5, ""),
		), []string{`user "u1"`, `assistant "" call=[t1 Read {}] call=[t2 Read {}]`, `tool t1 "rt1"`, `tool t2 "rt2"`, `assistant "a3"`}},
		{"a result answered on the chain is not taken twice", lines(
			rec("user", "u1", "", 0, ""),
			asst("a1", "u1", "m1", "t1"),
			result("r1", "a1", "t1"), result("r1b", "a1", "t1"),
			rec("assistant", "a3", "r1", 5, ""),
		), []string{`user "u1"`, `assistant "" call=[t1 Read {}]`, `tool t1 "rt1"`, `assistant "a3"`}},
		{"a leaf whose chain holds no message loses to one that does", lines(
			rec("user", "u1", "", 0, ""), rec("assistant", "a1", "u1", 1, ""),
			rec("system", "s9", "", 59, `,"subtype":"stop_hook_summary"`),
		), []string{`user "u1"`, `assistant "a1"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustRead(t, writeTemp(t, "s.jsonl", tt.jsonl), Options{})
			if d := diffLines(shape(s), tt.want); d != "" {
				t.Errorf("messages differ at %s", d)
			}
		})
	}
}

// TestLimits checks that a session past a limit is refused at the first
// record past it, with its line, and that the error says which limit.
func TestLimits(t *testing.T) {
	five := lines(rec("user", "u1", "", 0, ""), rec("assistant", "a1", "u1", 1, ""), rec("user", "u2", "a1", 2, ""),
		rec("assistant", "a2", "u2", 3, ""), rec("user", "u3", "a2", 4, ""))
	oa := `[{"role":"user","content":"one"},{"role":"assistant","content":"two"},{"role":"user","content":"three"}]`
	tests := []struct {
		name    string
		content string
		opt     Options
		line    int
		msg     string
	}{
		{"records", five, Options{MaxRecords: 3}, 4, "more than 3 records"},
		{"messages", five, Options{MaxMessages: 2}, 3, "more than 2 messages"},
		{"text", five, Options{MaxTextBytes: 5}, 3, "more than 5 bytes of text"},
		{"messages of an OpenAI file", oa, Options{MaxMessages: 2}, 3, "more than 2 messages"},
		{"records of a Codex file", readFixture(t, "cx_plain.jsonl"), Options{MaxRecords: 10}, 11, "more than 10 records"},
		{"messages of a Codex file", readFixture(t, "cx_plain.jsonl"), Options{MaxMessages: 3}, 9, "more than 3 messages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read(writeTemp(t, "s.jsonl", tt.content), tt.opt)
			e := asError(t, err)
			if !errors.Is(err, ErrTooLarge) || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Read() error %q at line %d (ErrTooLarge %v); want %q at line %d", e.Msg, e.Line, errors.Is(err, ErrTooLarge), tt.msg, tt.line)
			}
		})
	}
	// The limits hold over the files beside the session too.
	files := sideFixture(five, map[string]string{"agent-x.jsonl": lines(
		`{"type":"user","uuid":"x1","parentUuid":null,"isSidechain":true,"message":{"role":"user","content":"sub one"}}`,
		`{"type":"user","uuid":"x2","parentUuid":"x1","isSidechain":true,"message":{"role":"user","content":"sub two"}}`)})
	_, err := ReadFS(files, "s.jsonl", Options{MaxMessages: 6})
	if e := asError(t, err); !errors.Is(err, ErrTooLarge) || e.File != "s/subagents/agent-x.jsonl" || e.Line != 2 {
		t.Errorf("ReadFS(sub-agent past the limit) error %v; want s/subagents/agent-x.jsonl:2", err)
	}
	if _, err := Read(writeTemp(t, "s.jsonl", five), Options{MaxRecords: 5, MaxMessages: 5, MaxTextBytes: 10}); err != nil {
		t.Errorf("Read(at the limits) error: %v", err)
	}
}

// readFixture is the content of a testdata file.
func readFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(fixture(name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
