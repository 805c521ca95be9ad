package transcript

import (
	"strings"
	"testing"
)

// TestReadCodexFixtures reads each hand-written Codex rollout and checks the
// chain, the provider's counts given to the answers, and what is skipped.
func TestReadCodexFixtures(t *testing.T) {
	tests := []struct {
		file     string
		messages []string
		skipped  map[string]int
		model    string
		system   string
	}{
		{
			file: "cx_plain.jsonl",
			messages: []string{
				`developer "<permissions instructions>workspace-write</permissions instructions>"`,
				`user "<environment_context><cwd>~/work/demo</cwd></environment_context>"`,
				`user "Run the tests."`,
				// input_tokens 5120 holds the 4096 cached.
				`assistant "" call=[call_t1 shell {"command":["go","test","./..."],"workdir":"~/work/demo"}] usage=1024/4096/0/40`,
				`tool call_t1 "--- FAIL: TestParse\nFAIL"`,
				// A custom tool's free-form input, a local shell call and their outputs are one answer;
				// 5400 in, 5120 read from the cache, 200 written to it.
				`assistant "" call=[call_p1 apply_patch {"input":"*** Begin Patch\n*** Update File: parse.go\n-fields[:n-1]\n+fields[:n]\n*** End Patch"}] ` +
					`call=[call_s1 local_shell {"type":"exec","command":["go","test","./..."]}] usage=80/5120/200/120`,
				`tool call_p1 "Success. Updated parse.go"`,
				`tool call_s1 "ok  demo 0.01s"`,
				`assistant "[web_search_call: go test flags]\n\nFixed: the parser keeps the last field, and the tests pass." usage=300/5400/0/30`,
			},
			skipped: map[string]int{"event_msg:agent_message": 1, "event_msg:user_message": 1, "future_item": 1, "ghost_snapshot": 1,
				"reasoning": 1, "token_count:empty": 1, "token_count:repeat": 1, "world_state": 1},
			model: "gpt-5.1-codex", system: "You are Codex, a coding agent.",
		},
		{
			file: "cx_parallel.jsonl",
			messages: []string{
				`user "Compare a.txt and b.txt."`,
				`assistant "" call=[call_a read_file {"path":"a.txt"}] call=[call_b read_file {"path":"b.txt"}] usage=1000/0/0/20`,
				`tool call_a "apple"`,
				`tool call_b "banana"`,
				`assistant "a.txt says apple, b.txt says banana." usage=100/1000/0/12`,
			},
			skipped: map[string]int{"orphan-output": 1},
			model:   "gpt-5.1-codex",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustRead(t, fixture(tt.file), Options{Redact: true, Home: "/home/alice"})
			if d := diffLines(shape(s), tt.messages); d != "" {
				t.Errorf("Read(%s) messages differ at %s", tt.file, d)
			}
			if !equalCounts(s.Skipped, tt.skipped) {
				t.Errorf("Read(%s).Skipped = %v; want %v", tt.file, s.Skipped, tt.skipped)
			}
			if s.Format != Codex || s.Model != tt.model || s.System != tt.system || s.Window != 272000 {
				t.Errorf("Read(%s) = format %q model %q system %q window %d; want codex %q %q 272000", tt.file, s.Format, s.Model, s.System, s.Window, tt.model, tt.system)
			}
			checkSession(t, s)
		})
	}
}

// TestCodexSession checks what a rollout says about its session.
func TestCodexSession(t *testing.T) {
	s := mustRead(t, fixture("cx_plain.jsonl"), Options{Redact: true, Home: "/home/alice"})
	if s.ID != "0199aaaa-plain" || s.Cwd != "~/work/demo" || s.Version != "0.120.0" || s.Records != 25 {
		t.Errorf("Read(cx_plain) = id %q cwd %q version %q records %d; want 0199aaaa-plain ~/work/demo 0.120.0 25", s.ID, s.Cwd, s.Version, s.Records)
	}
	if got := s.Started.Format("15:04:05") + " " + s.Ended.Format("15:04:05"); got != "10:00:01 10:00:09" {
		t.Errorf("Read(cx_plain) Started, Ended = %s; want the first and last response items, 10:00:01 10:00:09", got)
	}
	if m := s.Messages[3]; m.Line != 9 || m.Model != "gpt-5.1-codex" {
		t.Errorf("Messages[3] line %d model %q; want 9 gpt-5.1-codex", m.Line, m.Model)
	}
	old := mustRead(t, fixture("cx_compaction.jsonl"), Options{})
	if old.System != "You are Codex." {
		t.Errorf("Read(cx_compaction).System = %q; want the older instructions field", old.System)
	}
}

// TestCodexEncryptedCompaction checks a compaction whose summary is the
// provider's encrypted item: flagged, its size recorded, the history it
// kept, the harness's estimate, and the requests around it.
func TestCodexEncryptedCompaction(t *testing.T) {
	s := mustRead(t, fixture("cx_compaction.jsonl"), Options{})
	want := []string{
		`user "Read the design notes."`,
		`assistant "" call=[call_r1 shell {"command":["cat","DESIGN.md"]}] usage=50000/150000/0/60`,
		`tool call_r1 "# Design\n... a long document ..."`,
		`assistant "The design keeps one replay loop." usage=30100/200000/0/25`,
		`user "Now summarise the open questions."`,
		`assistant "Two questions are open: paging and the cache." usage=9000/3000/0/40`,
	}
	if d := diffLines(shape(s), want); d != "" {
		t.Fatalf("Read(cx_compaction) messages differ at %s", d)
	}
	if len(s.Compactions) != 1 {
		t.Fatalf("Compactions = %+v; want one", s.Compactions)
	}
	c := s.Compactions[0]
	encrypted := len("gAAAAABfake") + 120
	if !c.Encrypted || c.EncryptedBytes != encrypted || c.Summary != "" || c.Before != 5 || c.Line != 11 || c.Estimate != 9876 || c.Call != nil {
		t.Errorf("Compactions[0] = %+v; want encrypted (%d bytes), no summary, before 5, line 11, estimate 9876, no call", c, encrypted)
	}
	var kept []string
	for _, m := range c.Replacement {
		kept = append(kept, shapeOf(m))
	}
	if d := diffLines(kept, []string{`user "Read the design notes."`, `user "Now summarise the open questions."`}); d != "" {
		t.Errorf("Compactions[0].Replacement differs at %s", d)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[1].Usage.InputTotal() != 230100 || reqs[2].Compaction != 0 || reqs[2].From != 5 || reqs[2].Usage.InputTotal() != 12000 {
		t.Errorf("Requests() = %+v; want 3, the last before the compaction 230,100, the one after from message 5 at 12,000", reqs)
	}
	if s.Skipped["token_count:estimate"] != 1 {
		t.Errorf("Skipped = %v; want the estimate counted", s.Skipped)
	}
}

// TestCodexReadableCompaction checks an older release's compaction: the
// summary in the compacted record, the compaction call's own count (a
// token_count no answer took), and a context_compacted event without a
// compacted record.
func TestCodexReadableCompaction(t *testing.T) {
	s := mustRead(t, fixture("cx_local_compaction.jsonl"), Options{})
	if d := diffLines(shape(s), []string{`user "Explain the Makefile."`, `assistant "It has two targets." usage=3000/0/0/10`,
		`user "Which targets?"`, `assistant "run and test." usage=900/0/0/5`}); d != "" {
		t.Fatalf("messages differ at %s", d)
	}
	if len(s.Compactions) != 2 {
		t.Fatalf("Compactions = %+v; want two", s.Compactions)
	}
	c := s.Compactions[0]
	if !strings.HasSuffix(c.Summary, "it has two targets.") || c.Encrypted || c.Before != 2 || c.Estimate != 700 {
		t.Errorf("Compactions[0] = %+v; want the readable summary before message 2, estimate 700", c)
	}
	if call := c.Call; call == nil || call.Usage == nil || *call.Usage != (Usage{Input: 200, CacheRead: 3000, Output: 400}) || call.Model != "gpt-5" || call.Through != 1 {
		t.Errorf("Compactions[0].Call = %+v; want the provider's count 200/3000/0/400 of gpt-5 after message 1", call)
	}
	if c := s.Compactions[1]; c.Before != 4 || c.Summary != "" || c.Line != 14 {
		t.Errorf("Compactions[1] = %+v; want an event-only compaction at the end (line 14)", c)
	}
}

// TestReadCodexShapes reads the Codex field shapes of recent releases (values
// trimmed): every line is read or counted, nothing fails.
func TestReadCodexShapes(t *testing.T) {
	small := mustRead(t, fixture("shapes/codex/small.jsonl"), Options{})
	checkSession(t, small)
	if small.Format != Codex || small.ID != "019fc8be-3658-7ca3-9e29-000000000000" || small.Window != 258400 || small.Model != "gpt-5.6-luna" {
		t.Errorf("Read(small) = %q %q window %d model %q", small.Format, small.ID, small.Window, small.Model)
	}
	if got := shapeOf(small.Messages[0]); got != `user "List the files\n\n[image]"` {
		t.Errorf("Messages[0] = %s; want the input text and an image placeholder", got)
	}
	// Line 11 is an output of the object shape, line 21 a list of content items.
	results := map[string]string{}
	for _, m := range small.Messages {
		if m.Role == Tool {
			results[m.CallID] = m.Text
		}
	}
	if results["call-2"] != "a.txt\n" || results["call-1"] != "a.txt\nb.txt\n" {
		t.Errorf("tool outputs = %q; want call-2 a.txt, call-1 a.txt b.txt", results)
	}
	encrypted := 0
	for _, c := range small.Compactions {
		if c.Encrypted {
			encrypted++
		}
	}
	if len(small.Compactions) != 7 || encrypted != 5 {
		t.Errorf("Compactions: %d, %d encrypted; want 7 (6 compacted records, 1 event alone), 5 encrypted", len(small.Compactions), encrypted)
	}
	for _, typ := range []string{"world_state", "inter_agent_communication_metadata", "event_msg:guardian_assessment", "ghost_snapshot", "reasoning"} {
		if small.Skipped[typ] == 0 {
			t.Errorf("Skipped[%s] = 0; want the shape's lines of it counted (%v)", typ, small.Skipped)
		}
	}
	large := mustRead(t, fixture("shapes/codex/large.jsonl"), Options{})
	if len(large.Messages) != 14 || large.Model != "gpt-5.2" || large.System != "large" || large.Skipped["tool_call"] != 1 {
		t.Errorf("Read(large) = %d messages, model %q, system %q, skipped %v", len(large.Messages), large.Model, large.System, large.Skipped)
	}
	// The first token_count (12,091 in, 10,880 cached) counts the first answer.
	if u := large.Messages[1].Usage; u == nil || u.InputTotal() != 12091 || u.CacheRead != 10880 {
		t.Errorf("Read(large).Messages[1].Usage = %+v; want 12,091 in, 10,880 cached", u)
	}
	drift, err := Read(fixture("shapes/codex/schema_drift.jsonl"), Options{})
	if err != nil || drift.Format != Codex || len(drift.Messages) != 0 || drift.Skipped["untyped"] != 2 {
		t.Errorf("Read(schema_drift) = %+v, %v; want a Codex file whose unknown lines are counted", drift, err)
	}
}

// TestReadGemini reads a Gemini CLI session: the shape of release 0.40 and
// a fixture of every rule.
func TestReadGemini(t *testing.T) {
	s := mustRead(t, fixture("gm_session.jsonl"), Options{})
	want := []string{
		`user "List the files."`,
		`assistant "" call=[ls_1 run_shell_command {"command":"ls"}] usage=9000/0/0/40`,
		`tool ls_1 "a.txt\nb.txt"`,
		`assistant "Two files: a.txt and b.txt." usage=300/8800/0/9`,
	}
	if d := diffLines(shape(s), want); d != "" {
		t.Errorf("Read(gm_session) messages differ at %s", d)
	}
	if s.Format != GeminiCLI || s.ID != "gm-own-1" || s.Model != "gemini-3-pro" || !equalCounts(s.Skipped, map[string]int{"$set": 1, "duplicate": 1, "info": 1}) {
		t.Errorf("Read(gm_session) = %q %q %q skipped %v", s.Format, s.ID, s.Model, s.Skipped)
	}
	shape := mustRead(t, fixture("shapes/gemini/jsonl_v040.jsonl"), Options{})
	if len(shape.Messages) != 4 || shape.Messages[3].Usage.InputTotal() != 12069 || shape.Messages[3].Usage.CacheRead != 11502 {
		t.Errorf("Read(jsonl_v040) = %v", shape.Messages)
	}
}

// TestCodexErrors checks bad rollouts: the line and what is wrong.
func TestCodexErrors(t *testing.T) {
	meta := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`
	tests := []struct {
		name, content string
		opt           Options
		line          int
		msg           string
	}{
		{"broken JSON", lines(meta, `{"timestamp":"t","type":"response_item","payload":{`), Options{}, 2, "broken JSON"},
		{"a payload that is not an object", lines(meta, `{"timestamp":"t","type":"response_item","payload":"text"}`), Options{}, 2, "payload: not a JSON object but a string"},
		{"a field of the wrong type", lines(meta, `{"timestamp":"t","type":"response_item","payload":{"type":7}}`), Options{}, 2, "field type is a JSON number"},
		{"a line over MaxLine", lines(meta, `{"type":"response_item","payload":{"type":"message","content":"`+strings.Repeat("x", 300)+`"}}`), Options{MaxLine: 200}, 2, "longer than the maximum of 200 bytes"},
		{"a forced format on another file", lines(`[1]`), Options{Format: Codex}, 1, "not a JSON object but an array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "rollout.jsonl", tt.content)
			_, err := Read(path, tt.opt)
			e := asError(t, err)
			if e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Read() error %q at line %d; want %q at line %d", e.Msg, e.Line, tt.msg, tt.line)
			}
		})
	}
}
