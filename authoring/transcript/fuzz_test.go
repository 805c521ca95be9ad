package transcript

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead checks that no input makes Read panic, that every failure is an
// *Error, and that a session read is consistent, in every format mode.
func FuzzRead(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "*"))
	f.Add([]byte(lines(rec("user", "u1", "", 0, ""), rec("system", "cb", "", 1, `,"subtype":"compact_boundary","logicalParentUuid":"u1"`))))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{"", ClaudeCode, OpenAIChat, Codex, GeminiCLI} {
			readFuzzed(t, data, format)
		}
	})
}

// FuzzReadCodex checks the Codex reader alone: no input makes it panic,
// every failure is an *Error with a line, and a session read holds together
// (tool results after their calls, compactions in order, usage counted once
// per answer and never negative). The seeds are the rollouts of testdata and
// the corpus in testdata/fuzz/FuzzReadCodex.
func FuzzReadCodex(f *testing.F) {
	addSeeds(f, filepath.Join("testdata", "cx_*.jsonl"))
	addSeeds(f, filepath.Join("testdata", "shapes", "codex", "*.jsonl"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := readFuzzed(t, data, Codex)
		if s == nil {
			return
		}
		for _, r := range s.Requests() {
			if u := r.Usage; u.Input < 0 || u.CacheRead < 0 || u.CacheCreation < 0 || u.Output < 0 || s.Messages[r.Answer].Role != Assistant {
				t.Fatalf("request %+v", r)
			}
		}
		for _, c := range s.Compactions {
			for _, m := range c.Replacement {
				if m.Role != User && m.Role != Developer && m.Role != Assistant && m.Role != Tool {
					t.Fatalf("replacement message of role %q", m.Role)
				}
			}
		}
	})
}

// addSeeds adds the files that match pattern to f's corpus.
func addSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, name := range files {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() && fi.Size() < 1<<20 {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
}

// readFuzzed reads data from memory in a format and checks the outcome; it
// returns the session, nil on an error.
func readFuzzed(t *testing.T, data []byte, format Format) *Session {
	t.Helper()
	s, err := ReadFS(Files{"in.jsonl": data}, "in.jsonl", Options{Format: format, Redact: true, Home: "/home/alice", MaxLine: 1 << 20, MaxRecords: 20000})
	if err != nil {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("Read(format %q) error %v (%T) is not an *Error", format, err, err)
		}
		return nil
	}
	checkSession(t, s)
	return s
}

// checkSession checks what must hold of any session Read returns.
func checkSession(t *testing.T, s *Session) {
	t.Helper()
	calls := map[string]bool{}
	for i, m := range s.Messages {
		switch m.Role {
		case Assistant:
			for _, c := range m.Calls {
				calls[c.ID] = true
			}
		case Tool:
			if !calls[m.CallID] {
				t.Fatalf("Messages[%d] answers %q, which no earlier message calls", i, m.CallID)
			}
		case User, Developer:
		default:
			t.Fatalf("Messages[%d].Role = %q", i, m.Role)
		}
	}
	for i, c := range s.Compactions {
		if c.Before < 0 || c.Before > len(s.Messages) || (i > 0 && c.Before < s.Compactions[i-1].Before) {
			t.Fatalf("Compactions[%d].Before = %d with %d messages", i, c.Before, len(s.Messages))
		}
	}
	if s.Redactions == nil || s.Skipped == nil {
		t.Fatalf("Redactions, Skipped = %v, %v; want maps", s.Redactions, s.Skipped)
	}
}
