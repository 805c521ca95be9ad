package tmpdir

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// RemoveStale removes only this prefix's directories last changed before
// the given time: not a newer run's, not another prefix's, not a file.
func TestRemoveStale(t *testing.T) {
	parent := t.TempDir()
	old, err := Make(parent, ".x-")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "index.html"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, past, past); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(parent, ".y-1")
	os.Mkdir(other, 0o755)
	os.Chtimes(other, past, past)
	file := filepath.Join(parent, ".x-file")
	os.WriteFile(file, nil, 0o644)
	os.Chtimes(file, past, past)
	start := time.Now().Add(-time.Minute)
	newer, err := Make(parent, ".x-")
	if err != nil {
		t.Fatal(err)
	}
	removed, err := RemoveStale(parent, ".x-", start)
	if err != nil || len(removed) != 1 || removed[0] != old {
		t.Fatalf("RemoveStale = %v, %v; want [%s]", removed, err, old)
	}
	for _, p := range []string{newer, other, file} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
	if fi, _ := os.Stat(newer); fi.Mode().Perm() != 0o755 {
		t.Errorf("Make's directory has mode %v; want 0755", fi.Mode().Perm())
	}
	if _, err := Make(parent, "visible-"); err == nil {
		t.Errorf("Make with a visible prefix: no error")
	}
}
