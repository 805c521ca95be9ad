package transcript

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fixture is the path of a file in testdata.
func fixture(name string) string { return filepath.Join("testdata", name) }

// writeTemp writes content to a file named name in a fresh temporary
// directory and returns its path.
func writeTemp(t testing.TB, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// lines joins JSONL records.
func lines(records ...string) string { return strings.Join(records, "\n") + "\n" }

// mustRead reads path or fails the test.
func mustRead(t *testing.T, path string, opt Options) *Session {
	t.Helper()
	s, err := Read(path, opt)
	if err != nil {
		t.Fatalf("Read(%s) error: %v", path, err)
	}
	return s
}

// shape writes a session's messages one per line, compactly enough to list
// in a table:
//
//	user "text"
//	assistant "text" calls=[id name args] usage=in/read/create/out model
//	tool id "text" (tool! for an error)
func shape(s *Session) []string {
	out := make([]string, 0, len(s.Messages))
	for _, m := range s.Messages {
		out = append(out, shapeOf(m))
	}
	return out
}

func shapeOf(m Message) string {
	switch m.Role {
	case Tool:
		mark := "tool"
		if m.IsError {
			mark = "tool!"
		}
		return fmt.Sprintf("%s %s %q", mark, m.CallID, m.Text)
	case Assistant:
		s := fmt.Sprintf("assistant %q", m.Text)
		for _, c := range m.Calls {
			s += fmt.Sprintf(" call=[%s %s %s]", c.ID, c.Name, c.Args)
		}
		if u := m.Usage; u != nil {
			s += fmt.Sprintf(" usage=%d/%d/%d/%d", u.Input, u.CacheRead, u.CacheCreation, u.Output)
		}
		return s
	}
	return fmt.Sprintf("%s %q", m.Role, m.Text)
}

// diffLines reports the first difference between two line lists, or "".
func diffLines(got, want []string) string {
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("line %d:\n got  %s\n want %s\n(all got:\n%s)", i, g, w, strings.Join(got, "\n"))
		}
	}
	return ""
}

// asError returns err as *Error or fails the test.
func asError(t *testing.T, err error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not a *transcript.Error", err, err)
	}
	return e
}

// equalCounts compares count maps, where a missing key is 0.
func equalCounts(got, want map[string]int) bool {
	for k, v := range got {
		if want[k] != v {
			return false
		}
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
