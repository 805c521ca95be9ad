package transcript

import (
	"errors"
	"math"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReadErrors checks that every kind of bad input gives an *Error with the
// line (or message number) and a message saying what is wrong.
func TestReadErrors(t *testing.T) {
	longLine := `{"type":"user","uuid":"u1","message":{"role":"user","content":"` + strings.Repeat("x", 200) + `"}}`
	tests := []struct {
		name    string
		path    string // a fixture, or
		content string // the content of a temporary file
		opt     Options
		line    int
		msg     string // a part of the message
	}{
		{name: "broken JSON on a line", path: "cc_broken.jsonl", line: 3, msg: "broken JSON"},
		{name: "tool result without its call", path: "cc_orphan_result.jsonl", line: 3, msg: "tool result for toolu_missing has no tool call before it"},
		{name: "empty file", path: "empty.jsonl", line: 0, msg: "empty file"},
		{name: "blank file", path: "blank.jsonl", line: 0, msg: "empty file"},
		{name: "empty file, format forced", path: "empty.jsonl", opt: Options{Format: OpenAIChat}, line: 0, msg: "empty file"},
		{name: "plain text", path: "unknown.txt", line: 1, msg: `unknown format: the file starts with "hello, this is a plain t"`},
		{name: "an object of neither format", path: "unknown_object.jsonl", line: 1, msg: `keys "role", "content"`},
		{name: "known formats are named", path: "unknown.txt", line: 1, msg: "known formats: claude-code"},
		{name: "an unknown forced format", path: "cc_plain.jsonl", opt: Options{Format: "yaml"}, line: 1, msg: `unknown format "yaml" forced`},
		{name: "broken JSON in the array", path: "oa_broken.json", line: 3, msg: "message 3: broken JSON"},
		{name: "tool message without a call", path: "oa_orphan_tool.json", line: 2, msg: "tool result for call_ghost has no tool call before it"},
		{name: "a line over MaxLine", content: lines(`{"type":"summary","summary":"t"}`, longLine), opt: Options{MaxLine: 100}, line: 2, msg: "longer than the maximum of 100 bytes"},
		{name: "a line over MaxLine, buffer-sized", content: lines(`{"type":"summary","summary":"t"}`, strings.Repeat(" ", 200<<10)+longLine), opt: Options{MaxLine: 100 << 10}, line: 2, msg: "longer than the maximum"},
		{name: "a message over MaxLine", content: `[{"role":"user","content":"hi"},` + longLine + `]`, opt: Options{MaxLine: 100}, line: 2, msg: "message 2 is longer than the maximum of 100 bytes"},
		{name: "a line that is not an object", content: lines(`{"type":"summary","summary":"t"}`, `[1, 2]`), line: 2, msg: "not a JSON object but an array"},
		{name: "a field of the wrong type", content: lines(`{"type":"user","uuid":7}`), line: 1, msg: "field uuid is a JSON number"},
		{name: "content of the wrong type on the chain", content: lines(`{"type":"user","uuid":"u","message":{"content":[{"type":7}]}}`), line: 1, msg: "message content"},
		{name: "an array element that is not an object", content: `[{"role":"user","content":"a"}, 7]`, line: 2, msg: "message 2: not a JSON object but a number"},
		{name: "a truncated array", content: `[{"role":"user","content":"a"}`, line: 2, msg: "message 2"},
		{name: "data after the array", content: `[] []`, line: 1, msg: "more after the JSON value"},
		{name: "an object without messages", content: `{"model":"gpt"}`, opt: Options{Format: OpenAIChat}, line: 1, msg: `no "messages" array`},
		{name: "messages not an array", content: `{"messages":{}}`, line: 1, msg: `"messages" is not an array`},
		{name: "a JSON scalar", content: `42`, line: 1, msg: "starts with \"42\""},
		{name: "text after blank lines names its line", content: "\n\n  hello", line: 3, msg: `unknown format: the file starts with "hello"`},
		{name: "a forced format on text", content: "hello\n", opt: Options{Format: ClaudeCode}, line: 1, msg: "broken JSON"},
		{name: "JSONL read as OpenAI", path: "cc_plain.jsonl", opt: Options{Format: OpenAIChat}, line: 1, msg: `no "messages" array`},
		{name: "OpenAI read as JSONL", path: "oa_tools.json", opt: Options{Format: ClaudeCode}, line: 1, msg: "broken JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path
			if path == "" {
				path = writeTemp(t, "s.txt", tt.content)
			} else {
				path = fixture(path)
			}
			s, err := Read(path, tt.opt)
			if err == nil {
				t.Fatalf("Read(%s) = %d messages, no error; want an error at line %d", path, len(s.Messages), tt.line)
			}
			e := asError(t, err)
			if e.File != path || e.Line != tt.line || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Read(%s) error = %q at %s:%d; want %q at line %d", path, e.Msg, e.File, e.Line, tt.msg, tt.line)
			}
			if want := e.File + ":" + strconv.Itoa(e.Line) + ": " + e.Msg; err.Error() != want {
				t.Errorf("Error() = %q; want %q", err.Error(), want)
			}
		})
	}
}

// TestReadMissingFile checks that an I/O error is wrapped, not an *Error.
func TestReadMissingFile(t *testing.T) {
	_, err := Read("testdata/does-not-exist.jsonl", Options{})
	var e *Error
	if !errors.Is(err, os.ErrNotExist) || errors.As(err, &e) {
		t.Errorf("Read(missing) error = %v; want a wrapped os.ErrNotExist", err)
	}
}

// TestDetect checks that the format is told from the content, whatever the
// file is called, and that a forced format wins.
func TestDetect(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    Format
	}{
		{"claude code, user first", lines(rec("user", "u1", "", 0, "")), ClaudeCode},
		{"claude code, summary first", lines(`{"type":"summary","summary":"t","leafUuid":"x"}`), ClaudeCode},
		{"claude code, parentUuid first", lines(`{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u"}`), ClaudeCode},
		{"claude code after a byte-order mark and blank lines", "\xef\xbb\xbf\n\n" + lines(rec("user", "u1", "", 0, "")), ClaudeCode},
		{"claude code with a broken first line", `{"type":"user","uuid":` + "\n", ClaudeCode},
		{"openai object, one line", `{"messages":[{"role":"user","content":"hi"}]}`, OpenAIChat},
		{"openai object, model first", "{\n  \"model\": \"gpt\",\n  \"messages\": []\n}\n", OpenAIChat},
		{"openai array", "  [\n]", OpenAIChat},
		{"openai object with a long value before messages", `{"tools":"` + strings.Repeat("x", 70<<10) + `","messages":[]}`, OpenAIChat},
		{"codex rollout", lines(`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`), Codex},
		{"codex rollout whose first records say nothing", lines(`{"created_at":"t","role":"user","message":"hi"}`, `{"type":"function_call"}`,
			`{"timestamp":"t","type":"world_state","payload":{}}`), Codex},
		{"codex with a broken first line", `{"timestamp":"t","type":"response_item","payload":{"type":` + "\n", Codex},
		{"claude code, a mode record first", lines(`{"type":"permission-mode","permissionMode":"default","sessionId":"s"}`, rec("user", "u1", "", 0, "")), ClaudeCode},
		{"gemini cli header", lines(`{"sessionId":"g","projectHash":"abc","startTime":"t","kind":"main"}`), GeminiCLI},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeTemp(t, "session.txt", tt.content)
			s, err := Read(path, Options{})
			if strings.Contains(tt.name, "broken first line") {
				if e := asError(t, err); e.Line != 1 {
					t.Errorf("Read() error line = %d; want 1 (detected as claude-code)", e.Line)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read() error: %v", err)
			}
			if s.Format != tt.want {
				t.Errorf("Read().Format = %q; want %q", s.Format, tt.want)
			}
		})
	}
}

// TestHugeMaxLine checks that a MaxLine near the int limit does not overflow.
func TestHugeMaxLine(t *testing.T) {
	for _, name := range []string{"oa_tools.json", "cc_plain.jsonl"} {
		if _, err := Read(fixture(name), Options{MaxLine: math.MaxInt}); err != nil {
			t.Errorf("Read(%s, MaxLine: MaxInt) error: %v", name, err)
		}
	}
}

// TestErrorUnwrap checks that an *Error keeps its cause.
func TestErrorUnwrap(t *testing.T) {
	path := writeTemp(t, "s.jsonl", lines(`{"type":"user","uuid":"u1","x":"`+strings.Repeat("y", 300)+`"}`))
	_, err := Read(path, Options{MaxLine: 100})
	if !errors.Is(err, errTooLong) {
		t.Errorf("Read(long line) error = %v; want one wrapping errTooLong", err)
	}
}
