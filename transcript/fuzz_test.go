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
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		if fi, err := os.Stat(name); err == nil && fi.Mode().IsRegular() {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(lines(rec("user", "u1", "", 0, ""), rec("system", "cb", "", 1, `,"subtype":"compact_boundary","logicalParentUuid":"u1"`))))
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c"}]}`))
	// One file per fuzzing process, rewritten for each input (inputs run one
	// at a time in a process): a directory per input would halve the rate.
	path := filepath.Join(f.TempDir(), "in")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, format := range []Format{"", ClaudeCode, OpenAIChat} {
			s, err := Read(path, Options{Format: format, Redact: true, Home: "/home/alice", MaxLine: 1 << 20})
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Read(format %q) error %v (%T) is not an *Error", format, err, err)
				}
				continue
			}
			checkSession(t, s)
		}
	})
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
