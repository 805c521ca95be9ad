package export

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/web"
)

// smallStatic is a server for a static copy of the status-bar lesson
// alone: an export of it takes a few seconds.
var smallStatic = sync.OnceValues(func() (*web.Server, error) {
	tok, err := tokens.New()
	if err != nil {
		return nil, err
	}
	lessons, err := scenarios.LoadDirs(scenarios.Builtin(), []string{"status-bar"}, "scenarios", tok)
	if err != nil {
		return nil, err
	}
	return web.New(web.Config{Lessons: lessons, Tokens: tok, Static: true, PageCacheBytes: -1, ReplayCacheRuns: -1})
})

func small(t *testing.T) *web.Server {
	t.Helper()
	s, err := smallStatic()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// filesUnder counts the regular files under dir.
func filesUnder(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// whenWritten calls f once the export's files under parent number more
// than n, or when ctx ends.
func whenWritten(ctx context.Context, parent string, n int, f func()) {
	for ctx.Err() == nil {
		if filesUnder(parent) > n {
			f()
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// An export cancelled halfway leaves nothing behind: no directory where
// there was none, an empty one where it was empty, no hidden directory.
func TestExportCancelled(t *testing.T) {
	s := small(t)
	for _, existed := range []bool{false, true} {
		parent := t.TempDir()
		target := filepath.Join(parent, "site")
		if existed {
			os.Mkdir(target, 0o755)
		}
		ctx, cancel := context.WithCancel(t.Context())
		go whenWritten(ctx, parent, 50, cancel)
		_, err := Write(ctx, s, Options{Dir: target, Workers: 1})
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Write cancelled after 50 files (target existed: %v) = %v; want context.Canceled", existed, err)
		}
		entries, _ := os.ReadDir(parent)
		inside, err := os.ReadDir(target)
		switch {
		case !existed && (len(entries) != 0 || err == nil):
			t.Errorf("after a cancelled export into a new directory, %s holds %v; want nothing", parent, entries)
		case existed && (err != nil || len(inside) != 0 || len(entries) != 1):
			t.Errorf("after a cancelled export into an empty directory, it holds %v (%v), its parent %v; want it empty", inside, err, entries)
		}
	}
}

// exportChild is the environment variable that makes TestExportChild
// export into the directory it names, to be killed halfway.
const exportChild = "CTXSIM_EXPORT_CHILD"

// TestExportChild is the exporting process of TestExportKilled; it does
// nothing when run otherwise.
func TestExportChild(t *testing.T) {
	dir := os.Getenv(exportChild)
	if dir == "" {
		return
	}
	Write(context.Background(), small(t), Options{Dir: dir, Workers: 1})
	t.Fatalf("the export finished; it should have been killed")
}

// An export killed halfway (SIGKILL: nothing of it runs after) leaves no
// site, only a hidden directory beside the target; the next export to the
// same target removes it and writes the whole copy.
func TestExportKilled(t *testing.T) {
	parent := t.TempDir()
	target := filepath.Join(parent, "site")
	cmd := exec.Command(os.Args[0], "-test.run=^TestExportChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), exportChild+"="+target)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	whenWritten(ctx, parent, 200, func() { cmd.Process.Kill() })
	cmd.Wait()
	if ctx.Err() != nil {
		t.Fatalf("the exporting process wrote no 200 files in 2 minutes")
	}
	written := filesUnder(parent)
	if _, err := os.Stat(target); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a killed export left %s (%v); want no site", target, err)
	}
	left, _ := filepath.Glob(filepath.Join(parent, ".site.ctxsim-export-*"))
	if entries, _ := os.ReadDir(parent); len(left) != 1 || len(entries) != 1 {
		t.Fatalf("a killed export left %v; want one hidden directory", entries)
	}
	t.Logf("killed after %d files; they are in %s", written, filepath.Base(left[0]))

	if err := CheckDir(target); err != nil {
		t.Fatalf("CheckDir after a killed export: %v", err)
	}
	st, err := Write(t.Context(), small(t), Options{Dir: target})
	if err != nil {
		t.Fatalf("the export after a killed one: %v", err)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 || entries[0].Name() != "site" {
		t.Errorf("after the next export %s holds %v; want only site", parent, entries)
	}
	if n := filesUnder(target); n != st.Files || !fileExists(filepath.Join(target, "index.html")) {
		t.Errorf("the next export wrote %d files, %d are there; want all of them, index.html among them", st.Files, n)
	}
	if st.Files <= written {
		t.Errorf("the whole copy has %d files, the killed one had %d: it was not killed halfway", st.Files, written)
	}
}

// A hidden directory an interrupted export left inside an existing target
// does not make it "not empty" and is removed by the next export; another
// file still does.
func TestExportIntoDirLeftByKilledExport(t *testing.T) {
	target := t.TempDir()
	stale := filepath.Join(target, stagingPrefix+"123")
	os.MkdirAll(filepath.Join(stale, "en"), 0o755)
	os.WriteFile(filepath.Join(stale, "index.html"), []byte("partial"), 0o644)
	past := time.Now().Add(-time.Hour)
	os.Chtimes(stale, past, past)
	st, err := Write(t.Context(), small(t), Options{Dir: target})
	if err != nil {
		t.Fatal(err)
	}
	if fileExists(stale) || filesUnder(target) != st.Files {
		t.Errorf("after the export, the stale directory is there: %v; files %d of %d", fileExists(stale), filesUnder(target), st.Files)
	}
	if b, _ := os.ReadFile(filepath.Join(target, "index.html")); strings.Contains(string(b), "partial") {
		t.Errorf("index.html is the stale one")
	}
	if err := CheckDir(target); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("CheckDir of a finished export = %v; want not empty", err)
	}
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }
