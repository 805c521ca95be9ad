package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestLessonFilesRegular: a lesson file that is a FIFO, a link to a device
// or larger than its tier allows is refused by name before it is read: no
// hang, no endless read.
func TestLessonFilesRegular(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		want string
	}{
		{"fifo", func(t *testing.T, p string) {
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"link to /dev/zero", func(t *testing.T, p string) {
			if err := os.Symlink("/dev/zero", p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
		{"over the authored size", func(t *testing.T, p string) {
			sparse(t, p, "id: demo\n", Authored().FileBytes+1)
		}, "only an imported session, which declares `recorded:` near the top, may be larger"},
		{"over the imported size", func(t *testing.T, p string) {
			sparse(t, p, "id: demo\nrecorded:\n  file: x.jsonl\n", Imported().FileBytes+1)
		}, "a file of an imported session may have at most 67108864 (64 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.MkdirAll(filepath.Join(dir, "demo"), 0o755); err != nil {
				t.Fatal(err)
			}
			tt.make(t, filepath.Join(dir, "demo", "lesson.yaml"))
			_, err := LoadDir(os.DirFS(dir), "demo", "lessons", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "lessons/demo/lesson.yaml") {
				t.Errorf("LoadDir = %v; want an error naming lessons/demo/lesson.yaml and %q", err, tt.want)
			}
		})
	}
}

// TestWindowRange: a window of 2^63−1 tokens is refused, not replayed:
// no number of a lesson file may pass MaxNumber (a window past MaxWindow
// but within it is refused by its own range, TestLoadErrors).
func TestWindowRange(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "demo"), 0o755); err != nil {
		t.Fatal(err)
	}
	lesson := "id: demo\ntitle: {en: Demo, ja: デモ}\nwindow: 9223372036854775807\n"
	if err := os.WriteFile(filepath.Join(dir, "demo", "lesson.yaml"), []byte(lesson), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadDir(os.DirFS(dir), "demo", "lessons", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "lesson.yaml:3: field window") || !strings.Contains(err.Error(), "to 1000000000") {
		t.Errorf("LoadDir = %v; want the window refused with its range", err)
	}
}

// sparse writes head at the start of a file of size bytes, the rest a hole.
func sparse(t *testing.T, p, head string, size int64) {
	t.Helper()
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(head); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil { // sparse: nothing written
		t.Fatal(err)
	}
}
