// Package tmpdir is the hidden temporary directories ctxsim export and
// ctxsim import write into before they move their result into place: an
// interrupted run leaves no partial result, only a hidden directory that
// the next run beside it removes.
package tmpdir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Make creates a new hidden directory in parent whose name starts with
// prefix (which starts with a dot), readable by all like the result it
// will become.
func Make(parent, prefix string) (string, error) {
	if !strings.HasPrefix(prefix, ".") {
		return "", fmt.Errorf("temporary directory prefix %q: want a hidden name", prefix)
	}
	d, err := os.MkdirTemp(parent, prefix)
	if err != nil {
		return "", fmt.Errorf("create a temporary directory in %s: %w", parent, err)
	}
	if err := os.Chmod(d, 0o755); err != nil {
		os.RemoveAll(d)
		return "", fmt.Errorf("temporary directory %s: %w", d, err)
	}
	return d, nil
}

// RemoveStale removes the directories of parent whose names start with
// prefix and that were last changed before t (when the running command
// started): what an interrupted run left. It reports what it removed.
func RemoveStale(parent, prefix string, t time.Time) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("look for what an interrupted run left in %s: %w", parent, err)
	}
	var removed []string
	for _, e := range entries {
		if !e.IsDir() || !IsOurs(e.Name(), prefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(t) {
			continue // gone meanwhile, or another run's, started after this one
		}
		p := filepath.Join(parent, e.Name())
		if err := os.RemoveAll(p); err != nil {
			return removed, fmt.Errorf("remove %s, left by an interrupted run: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// IsOurs reports whether name is one Make gives with prefix.
func IsOurs(name, prefix string) bool {
	return strings.HasPrefix(name, prefix) && len(name) > len(prefix)
}
