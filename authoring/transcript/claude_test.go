package transcript

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestReadClaudeCodeFixtures reads each hand-written Claude Code fixture and
// checks the chain, the compactions and the counts.
func TestReadClaudeCodeFixtures(t *testing.T) {
	tests := []struct {
		file        string
		messages    []string
		compactions []Compaction // Time left out of the comparison
		skipped     map[string]int
		title, id   string
		model       string
		records     int
	}{
		{
			file: "cc_plain.jsonl",
			messages: []string{
				`user "List the Go files, then read main.go and go.mod."`,
				`assistant "I'll list them first." call=[toolu_p1 Bash {"command":"ls *.go","description":"List Go files"}] usage=12/0/4100/61`,
				`tool toolu_p1 "main.go\nutil.go"`,
				`assistant "" call=[toolu_p2 Read {"file_path":"/home/alice/work/demo/main.go"}] call=[toolu_p3 Read {"file_path":"/home/alice/work/demo/go.mod"}] usage=3/4100/120/90`,
				`tool toolu_p2 "package main\n\nfunc main() {}\n"`,
				`tool! toolu_p3 "<tool_use_error>File does not exist.</tool_use_error>"`,
				`assistant "There are two Go files; main.go is empty and there is no go.mod." usage=3/4220/200/25`,
				`user "Thanks. Here is the screen I see.\n\n[image]"`,
				`assistant "The screen is a single white pixel." usage=1500/4420/0/12`,
			},
			skipped: map[string]int{},
			id:      "0f6d7c2e-plain", model: "claude-sonnet-4-5", records: 8,
		},
		{
			file: "cc_compaction.jsonl",
			messages: []string{
				`user "Run the tests and fix what fails."`,
				`assistant "" call=[toolu_c1 Bash {"command":"go test ./..."}] usage=20/0/9000/40`,
				`tool toolu_c1 "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: got 3; want 4\nFAIL"`,
				`assistant "TestParse fails because the parser drops the last field." usage=5/9000/300/30`,
				`user "Go on: fix the parser."`,
				`assistant "" call=[toolu_c2 Edit {"file_path":"parse.go","old_string":"fields[:n-1]","new_string":"fields[:n]"}] usage=8/0/2500/70`,
				`tool toolu_c2 "The file parse.go has been updated."`,
				`assistant "Fixed: the parser keeps the last field now." usage=4/2500/100/15`,
			},
			compactions: []Compaction{{
				Before: 4, Trigger: "auto", PreTokens: 154321, Line: 5,
				Summary: "This session is being continued from a previous conversation that ran out of context. Summary: the user asked to run the tests; TestParse fails because the parser drops the last field.",
			}},
			skipped: map[string]int{},
			id:      "5b1e-compact", model: "claude-opus-4-1", records: 10,
		},
		{
			file: "cc_rewind.jsonl",
			messages: []string{
				`user "Write a haiku."`,
				`assistant "Old pond, a frog jumps." usage=10/0/0/9`,
				`user "Make it about snow."`,
				`assistant "Snow on the still pond." usage=30/0/0/8`,
			},
			skipped: map[string]int{"off-branch": 2},
			id:      "9a7-rewind", model: "claude-sonnet-4-5", records: 6,
		},
		{
			file: "cc_split.jsonl",
			messages: []string{
				`user "Compare a.txt and b.txt."`,
				`assistant "Let me read both." call=[toolu_s1 Read {"file_path":"a.txt"}] call=[toolu_s2 Read {"file_path":"b.txt"}] usage=4/100/50/30`,
				`tool toolu_s1 "apple"`,
				`tool toolu_s2 "banana"`,
				`assistant "a.txt says apple, b.txt says banana." usage=3/150/40/14`,
			},
			skipped: map[string]int{"thinking": 1},
			id:      "77c-split", model: "claude-sonnet-4-5", records: 8,
		},
		{
			file: "cc_sidechain.jsonl",
			messages: []string{
				`user "Find the TODOs in this repository."`,
				`assistant "" call=[toolu_d1 Task {"description":"Find TODOs","prompt":"List every TODO comment.","subagent_type":"general-purpose"}] usage=10/0/500/50`,
				`tool toolu_d1 "There are 3 TODOs: a.go:3, b.go:9, c.go:1."`,
				`assistant "There are three TODOs." usage=5/500/60/8`,
			},
			skipped: map[string]int{"sidechain": 4},
			id:      "3d2-side", model: "claude-sonnet-4-5", records: 8,
		},
		{
			file: "cc_thinking.jsonl",
			messages: []string{
				`user "Is 91 prime?"`,
				`assistant "No: 91 is 7 × 13." usage=12/0/0/80`,
			},
			skipped: map[string]int{"thinking": 2},
			id:      "1c4-think", model: "claude-opus-4-1", records: 2,
		},
		{
			file: "cc_title.jsonl",
			messages: []string{
				`user "Print hello in Go."`,
				`assistant "fmt.Println(\"hello\")" usage=9/0/0/11`,
			},
			skipped: map[string]int{},
			title:   "Saying hello in Go", id: "8e0-title", model: "claude-sonnet-4-5", records: 4,
		},
		{
			file: "cc_unknown_types.jsonl",
			messages: []string{
				`user "Explain the Makefile."`,
				`assistant "It has two targets: run and test." usage=15/0/0/12`,
			},
			skipped: map[string]int{"attachment": 1, "file-history-snapshot": 1, "future-record-kind": 1, "progress": 1, "queue-operation": 1},
			id:      "2f9-unknown", model: "claude-sonnet-4-5", records: 7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustRead(t, fixture(tt.file), Options{})
			if d := diffLines(shape(s), tt.messages); d != "" {
				t.Errorf("Read(%s) messages differ at %s", tt.file, d)
			}
			checkCompactions(t, s.Compactions, tt.compactions)
			if !equalCounts(s.Skipped, tt.skipped) {
				t.Errorf("Read(%s).Skipped = %v; want %v", tt.file, s.Skipped, tt.skipped)
			}
			if s.Format != ClaudeCode || s.File != tt.file || s.Title != tt.title || s.ID != tt.id || s.Model != tt.model || s.Records != tt.records {
				t.Errorf("Read(%s) = format %q file %q title %q id %q model %q records %d; want %q %q %q %q %q %d",
					tt.file, s.Format, s.File, s.Title, s.ID, s.Model, s.Records, ClaudeCode, tt.file, tt.title, tt.id, tt.model, tt.records)
			}
			if len(s.Redactions) != 0 {
				t.Errorf("Read(%s).Redactions = %v without Options.Redact; want none", tt.file, s.Redactions)
			}
		})
	}
}

func checkCompactions(t *testing.T, got, want []Compaction) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("Compactions = %+v; want %+v", got, want)
	}
	for i := range got {
		g := got[i]
		g.Time = time.Time{}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("Compactions[%d] = %+v; want %+v", i, g, want[i])
		}
	}
}

// TestClaudeCodeTimesAndLines checks the session's times and each message's
// time and line.
func TestClaudeCodeTimesAndLines(t *testing.T) {
	s := mustRead(t, fixture("cc_split.jsonl"), Options{})
	at := func(v string) time.Time { t.Helper(); tm, _ := time.Parse(time.RFC3339Nano, v); return tm }
	if !s.Started.Equal(at("2025-06-04T08:00:00Z")) || !s.Ended.Equal(at("2025-06-04T08:00:08Z")) {
		t.Errorf("Read(cc_split) Started, Ended = %v, %v; want 08:00:00, 08:00:08", s.Started, s.Ended)
	}
	wantLines := []int{1, 2, 6, 7, 8} // the merged assistant message starts at its first record
	for i, m := range s.Messages {
		if m.Line != wantLines[i] {
			t.Errorf("Messages[%d].Line = %d; want %d", i, m.Line, wantLines[i])
		}
	}
	if got := s.Messages[1].Time; !got.Equal(at("2025-06-04T08:00:02Z")) {
		t.Errorf("Messages[1].Time = %v; want the first record's 08:00:02", got)
	}
	c := mustRead(t, fixture("cc_compaction.jsonl"), Options{})
	if got := c.Compactions[0].Time; !got.Equal(at("2025-06-02T09:05:00Z")) {
		t.Errorf("Compactions[0].Time = %v; want 09:05:00", got)
	}
	if c.Cwd != "/home/alice/work/demo" || c.Version != "1.0.98" {
		t.Errorf("Read(cc_compaction) Cwd, Version = %q, %q; want /home/alice/work/demo, 1.0.98", c.Cwd, c.Version)
	}
}

// Records for the chain-rule tests. Each is a JSONL line; t is a minute of
// 2025-01-01 10:00.
func rec(typ, uuid, parent string, minute int, extra string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	var msg string
	switch typ {
	case "user":
		msg = `,"message":{"role":"user","content":"` + uuid + `"}`
	case "assistant":
		msg = `,"message":{"id":"msg_` + uuid + `","role":"assistant","model":"m","content":[{"type":"text","text":"` + uuid + `"}]}`
	}
	ts := time.Date(2025, 1, 1, 10, minute, 0, 0, time.UTC).Format(time.RFC3339)
	return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + p + `,"timestamp":"` + ts + `"` + msg + extra + `}`
}

// texts lists the texts of a session's messages.
func texts(s *Session) string {
	var out []string
	for _, m := range s.Messages {
		out = append(out, m.Text)
	}
	return strings.Join(out, " ")
}

// TestChainRules checks how the chain is chosen among branches.
func TestChainRules(t *testing.T) {
	tests := []struct {
		name      string
		jsonl     string
		want      string // texts on the chain
		offBranch int
	}{
		{"newest leaf wins though written first", lines(
			rec("user", "u1", "", 0, ""),
			rec("assistant", "new", "u1", 9, ""),
			rec("assistant", "old", "u1", 5, ""),
		), "u1 new", 1},
		{"a tie goes to the later line", lines(
			rec("user", "u1", "", 0, ""),
			rec("assistant", "first", "u1", 5, ""),
			rec("assistant", "second", "u1", 5, ""),
		), "u1 second", 1},
		{"a progress record after the leaf does not hide it", lines(
			rec("user", "u1", "", 0, ""),
			rec("assistant", "a1", "u1", 1, ""),
			rec("progress", "p1", "a1", 2, ""),
		), "u1 a1", 0},
		{"records of other types on the chain are passed through", lines(
			rec("user", "u1", "", 0, ""),
			rec("attachment", "at", "u1", 1, ""),
			rec("assistant", "a1", "at", 2, ""),
		), "u1 a1", 0},
		{"a sidechain leaf is never the newest leaf", lines(
			rec("user", "u1", "", 0, ""),
			rec("assistant", "a1", "u1", 1, ""),
			rec("assistant", "side", "", 30, `,"isSidechain":true`),
		), "u1 a1", 0},
		{"a compact boundary is crossed through logicalParentUuid", lines(
			rec("user", "u1", "", 0, ""),
			rec("assistant", "a1", "u1", 1, ""),
			rec("system", "cb", "", 2, `,"subtype":"compact_boundary","logicalParentUuid":"a1"`),
			rec("user", "u2", "cb", 3, ""),
		), "u1 a1 u2", 0},
		{"a pre-compaction tip is not a leaf", lines(
			rec("user", "u1", "", 0, ""),
			rec("system", "cb", "", 2, `,"subtype":"compact_boundary","logicalParentUuid":"u1"`),
			rec("user", "u2", "cb", 3, ""),
			rec("user", "late", "", 1, ""),
		), "u1 u2", 1},
		{"a missing parent ends the chain", lines(
			rec("user", "u1", "elsewhere", 0, ""),
			rec("assistant", "a1", "u1", 1, ""),
		), "u1 a1", 0},
		{"a cycle ends", lines(
			rec("user", "u1", "a1", 0, ""),
			rec("assistant", "a1", "u1", 1, ""),
			rec("user", "u2", "a1", 2, ""),
		), "u1 a1 u2", 0},
		{"a message without a uuid is off every branch", lines(
			rec("user", "u1", "", 0, ""),
			`{"type":"user","message":{"role":"user","content":"stray"}}`,
		), "u1", 1},
		{"a repeated uuid keeps the first record", lines(
			rec("user", "u1", "", 0, ""),
			rec("user", "u1", "", 5, ""),
			rec("assistant", "a1", "u1", 1, ""),
		), "u1 a1", 0},
		{"system records on the chain are not messages", lines(
			rec("user", "u1", "", 0, ""),
			rec("system", "s1", "u1", 1, `,"subtype":"turn_duration"`),
		), "u1", 0},
		{"no records with a uuid give an empty chain", lines(
			`{"type":"file-history-snapshot","messageId":"x"}`,
		), "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustRead(t, writeTemp(t, "s.jsonl", tt.jsonl), Options{})
			if got := texts(s); got != tt.want {
				t.Errorf("Read() chain = %q; want %q", got, tt.want)
			}
			if got := s.Skipped["off-branch"]; got != tt.offBranch {
				t.Errorf("Read() Skipped[off-branch] = %d; want %d", got, tt.offBranch)
			}
		})
	}
}

// TestSplitAssistantRecords checks that records of one API message merge,
// with their usage counted once, and that others do not.
func TestSplitAssistantRecords(t *testing.T) {
	asst := func(uuid, parent, msgID, block string, out int) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"id":"` + msgID +
			`","role":"assistant","model":"m","content":[` + block + `],"usage":{"input_tokens":10,"cache_read_input_tokens":100,"cache_creation_input_tokens":5,"output_tokens":` + strconv.Itoa(out) + `}}}`
	}
	result := func(uuid, parent, id string) string {
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"` + id + `","content":"ok ` + id + `"}]}}`
	}
	use := func(id string) string { return `{"type":"tool_use","id":"` + id + `","name":"Read","input":{}}` }
	text := func(s string) string { return `{"type":"text","text":"` + s + `"}` }
	first := rec("user", "u1", "", 0, "")
	tests := []struct {
		name  string
		jsonl string
		want  []string
	}{
		{"consecutive records merge, last usage kept once", lines(first,
			asst("a1", "u1", "msg_1", text("one"), 3),
			asst("a2", "a1", "msg_1", use("t1"), 9),
			result("r1", "a2", "t1"),
		), []string{`user "u1"`, `assistant "one" call=[t1 Read {}] usage=10/100/5/9`, `tool t1 "ok t1"`}},
		{"a tool result between records of one message keeps them one", lines(first,
			asst("a1", "u1", "msg_1", use("t1"), 9),
			result("r1", "a1", "t1"),
			asst("a2", "r1", "msg_1", use("t2"), 9),
			result("r2", "a2", "t2"),
		), []string{`user "u1"`, `assistant "" call=[t1 Read {}] call=[t2 Read {}] usage=10/100/5/9`, `tool t1 "ok t1"`, `tool t2 "ok t2"`}},
		{"different ids stay apart", lines(first,
			asst("a1", "u1", "msg_1", text("one"), 3),
			asst("a2", "a1", "msg_2", text("two"), 4),
		), []string{`user "u1"`, `assistant "one" usage=10/100/5/3`, `assistant "two" usage=10/100/5/4`}},
		{"a user message between records of one id splits them, the usage counted once", lines(first,
			asst("a1", "u1", "msg_1", text("one"), 3),
			rec("user", "u2", "a1", 0, ""),
			asst("a2", "u2", "msg_1", text("two"), 4),
		), []string{`user "u1"`, `assistant "one" usage=10/100/5/3`, `user "u2"`, `assistant "two"`}},
		{"records without an id never merge", lines(first,
			asst("a1", "u1", "", text("one"), 3),
			asst("a2", "a1", "", text("two"), 4),
		), []string{`user "u1"`, `assistant "one" usage=10/100/5/3`, `assistant "two" usage=10/100/5/4`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustRead(t, writeTemp(t, "s.jsonl", tt.jsonl), Options{})
			if d := diffLines(shape(s), tt.want); d != "" {
				t.Errorf("Read() messages differ at %s", d)
			}
		})
	}
}

// TestUserRecordContent checks how user and assistant content blocks become
// messages.
func TestUserRecordContent(t *testing.T) {
	call := `{"type":"assistant","uuid":"a1","parentUuid":"u0","message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"X","input":{"b": 1, "a": [1, 2]}},{"type":"tool_use","id":"t2","name":"Y"}]}}`
	user := func(content string) string {
		return `{"type":"user","uuid":"u1","parentUuid":"a1","message":{"role":"user","content":` + content + `}}`
	}
	tests := []struct {
		name    string
		content string
		want    []string
	}{
		{"tool results first, then the text", `[{"type":"text","text":"also this"},{"type":"tool_result","tool_use_id":"t1","content":"r1"},{"type":"tool_result","tool_use_id":"t2","content":"r2"}]`,
			[]string{`tool t1 "r1"`, `tool t2 "r2"`, `user "also this"`}},
		{"result content parts joined, images as placeholders", `[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"a"},{"type":"image","source":{}},{"type":"text","text":"b"}]}]`,
			[]string{`tool t1 "a\n\n[image]\n\nb"`}},
		{"an error result", `[{"type":"tool_result","tool_use_id":"t2","content":"boom","is_error":true}]`,
			[]string{`tool! t2 "boom"`}},
		{"a result without content", `[{"type":"tool_result","tool_use_id":"t2"}]`,
			[]string{`tool t2 ""`}},
		{"other blocks as placeholders", `[{"type":"document","source":{}},{"type":"text","text":"see"}]`,
			[]string{`user "[document]\n\nsee"`}},
		{"an empty content is skipped", `""`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustRead(t, writeTemp(t, "s.jsonl", lines(rec("user", "u0", "", 0, ""), call, user(tt.content))), Options{})
			want := append([]string{`user "u0"`, `assistant "" call=[t1 X {"b":1,"a":[1,2]}] call=[t2 Y {}]`}, tt.want...)
			if d := diffLines(shape(s), want); d != "" {
				t.Errorf("Read() messages differ at %s", d)
			}
		})
	}
}

// TestModelVote checks Session.Model: the most common model, the first on a
// tie, never Claude Code's own "<synthetic>".
func TestModelVote(t *testing.T) {
	asst := func(uuid, parent, model string) string {
		return `{"type":"assistant","uuid":"` + uuid + `","parentUuid":"` + parent + `","message":{"id":"` + uuid + `","role":"assistant","model":"` + model + `","content":"x"}}`
	}
	tests := []struct {
		name   string
		models []string
		want   string
	}{
		{"most", []string{"b", "a", "a"}, "a"},
		{"tie goes to the first", []string{"b", "a"}, "b"},
		{"synthetic does not vote", []string{"<synthetic>", "<synthetic>", "c"}, "c"},
		{"none", []string{"<synthetic>"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := []string{rec("user", "u0", "", 0, "")}
			parent := "u0"
			for i, m := range tt.models {
				id := "a" + strconv.Itoa(i)
				recs = append(recs, asst(id, parent, m))
				parent = id
			}
			if got := mustRead(t, writeTemp(t, "s.jsonl", lines(recs...)), Options{}).Model; got != tt.want {
				t.Errorf("Read().Model = %q; want %q", got, tt.want)
			}
		})
	}
}

// TestCompactionEdges checks compactions the fixtures do not show.
func TestCompactionEdges(t *testing.T) {
	summary := func(uuid, parent, text string) string {
		return `{"type":"user","uuid":"` + uuid + `","parentUuid":"` + parent + `","isCompactSummary":true,"message":{"role":"user","content":[{"type":"text","text":"` + text + `"}]}}`
	}
	boundary := func(uuid, logical, meta string) string {
		return `{"type":"system","subtype":"compact_boundary","uuid":"` + uuid + `","parentUuid":null,"logicalParentUuid":"` + logical + `"` + meta + `}`
	}
	tests := []struct {
		name  string
		jsonl string
		want  []Compaction
	}{
		{"a summary without a boundary is a compaction of its own", lines(
			rec("user", "u1", "", 0, ""), summary("s1", "u1", "sum"), rec("user", "u2", "s1", 0, ""),
		), []Compaction{{Before: 1, Summary: "sum", Line: 2}}},
		{"a boundary without metadata or summary", lines(
			rec("user", "u1", "", 0, ""), boundary("b1", "u1", ""),
		), []Compaction{{Before: 1, Line: 2}}},
		{"a summary in two records joins", lines(
			rec("user", "u1", "", 0, ""), boundary("b1", "u1", `,"compactMetadata":{"trigger":"manual","preTokens":1.5e3}`),
			summary("s1", "b1", "one"), summary("s2", "s1", "two"),
		), []Compaction{{Before: 1, Summary: "one\n\ntwo", Trigger: "manual", PreTokens: 1500, Line: 2}}},
		{"two compactions", lines(
			rec("user", "u1", "", 0, ""), boundary("b1", "u1", ""), summary("s1", "b1", "a"),
			rec("user", "u2", "s1", 0, ""), boundary("b2", "u2", ""), summary("s2", "b2", "b"),
		), []Compaction{{Before: 1, Summary: "a", Line: 2}, {Before: 2, Summary: "b", Line: 5}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustRead(t, writeTemp(t, "s.jsonl", tt.jsonl), Options{})
			checkCompactions(t, s.Compactions, tt.want)
		})
	}
}

// TestUsageFigures checks that odd usage figures are read leniently.
func TestUsageFigures(t *testing.T) {
	tests := []struct {
		usage string
		want  Usage
	}{
		{`{"input_tokens":1,"cache_read_input_tokens":2,"cache_creation_input_tokens":3,"output_tokens":4}`, Usage{1, 2, 3, 4}},
		{`{"input_tokens":1.9,"output_tokens":"7"}`, Usage{Input: 1}},
		{`{"input_tokens":-5,"output_tokens":null,"cache_read_input_tokens":1e30}`, Usage{CacheRead: 1<<31 - 1}},
		{`{"server_tool_use":{"web_search_requests":1},"cache_creation":{"ephemeral_5m_input_tokens":9}}`, Usage{}},
	}
	for _, tt := range tests {
		line := `{"type":"assistant","uuid":"a","message":{"id":"m","role":"assistant","content":"x","usage":` + tt.usage + `}}`
		s := mustRead(t, writeTemp(t, "s.jsonl", lines(line)), Options{})
		if got := s.Messages[0].Usage; got == nil || *got != tt.want {
			t.Errorf("Read(usage %s).Usage = %+v; want %+v", tt.usage, got, tt.want)
		}
	}
	if got := (Usage{Input: 1, CacheRead: 20, CacheCreation: 300, Output: 4000}).InputTotal(); got != 321 {
		t.Errorf("InputTotal() = %d; want 321", got)
	}
}
