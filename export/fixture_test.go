package export

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/web"
)

// The built-in lessons are loaded once per test binary, and exported once
// (about 20 s of CPU); the export's directory is removed when the tests end.

var loaded = sync.OnceValues(func() (web.Config, error) {
	tok, err := tokens.New()
	if err != nil {
		return web.Config{}, err
	}
	lessons, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	return web.Config{Lessons: lessons, Tokens: tok, Hosts: []string{"example.com"}}, err // example.com: httptest.NewRequest's host
})

// exported is a copy of the lessons, the static server that rendered it and
// a live server over the same lessons.
type exported struct {
	dir          string
	base         string
	site         web.Site
	stats        Stats
	lessons      []*scenarios.Lesson
	live, static *web.Server
}

var (
	tempDirs   []string
	tempDirsMu sync.Mutex
)

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// copyDir makes a new directory for a copy the tests export, in memory
// where the machine has a memory-backed /dev/shm: the full copy is about
// 10,000 files and 390 MB, which a disk costs about 12 s more CPU to write
// and serve (TestExportLinks alone: 28 s of CPU against 40–47 s). TestMain
// removes it when the tests end.
func copyDir() (string, error) {
	if dir, err := os.MkdirTemp("/dev/shm", "ctxsim-export-*"); err == nil {
		return dir, nil
	}
	return os.MkdirTemp("", "ctxsim-export-*")
}

// exportOf exports lessons under base into a new directory.
func exportOf(base string, lessons []*scenarios.Lesson) (*exported, error) {
	cfg, err := loaded()
	if err != nil {
		return nil, err
	}
	cfg.Lessons = lessons
	live, err := web.New(cfg)
	if err != nil {
		return nil, err
	}
	cfg.Static, cfg.PageCacheBytes, cfg.ReplayCacheRuns = true, -1, -1
	static, err := web.New(cfg)
	if err != nil {
		return nil, err
	}
	dir, err := copyDir()
	if err != nil {
		return nil, err
	}
	tempDirsMu.Lock()
	tempDirs = append(tempDirs, dir)
	tempDirsMu.Unlock()
	site, err := static.Site()
	if err != nil {
		return nil, err
	}
	st, err := Write(context.Background(), static, Options{Dir: dir, Base: base})
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	return &exported{dir: dir, base: base, site: site, stats: st, lessons: lessons, live: live, static: static}, nil
}

// builtinExport is every built-in lesson exported at "/".
var builtinExport = sync.OnceValues(func() (*exported, error) {
	cfg, err := loaded()
	if err != nil {
		return nil, err
	}
	return exportOf("/", cfg.Lessons)
})

// baseExport is, under /ctxsim/, the status-bar lesson and the test
// lesson of thirty steps (whose step track offers the step field).
var baseExport = sync.OnceValues(func() (*exported, error) {
	cfg, err := loaded()
	if err != nil {
		return nil, err
	}
	extra, err := scenarios.Load(os.DirFS("testdata"), "testdata", cfg.Tokens)
	if err != nil {
		return nil, err
	}
	for _, l := range cfg.Lessons {
		if l.ID == "status-bar" {
			extra = append(extra, l)
		}
	}
	return exportOf("/ctxsim/", extra)
})

func mustExport(t *testing.T, get func() (*exported, error)) *exported {
	t.Helper()
	e, err := get()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// host serves an export's directory as a static host does: files; a
// directory by its index.html, asked for without its slash redirected to
// it (http.FileServer); a missing file as the nearest 404.html with a 404
// (Cloudflare Pages; Netlify and GitHub Pages use the top one). With
// redirects, the _redirects rules are applied first (Netlify, Cloudflare
// Pages). The site is served under its base path.
func host(t *testing.T, e *exported, redirects bool) *httptest.Server {
	t.Helper()
	rules := map[string][2]string{} // from → {to, status}
	if redirects {
		for _, line := range strings.Split(strings.TrimSpace(readFile(t, e.dir, "_redirects")), "\n") {
			f := strings.Fields(line)
			if len(f) != 3 {
				t.Fatalf("_redirects line %q: want FROM TO STATUS", line)
			}
			rules[f[0]] = [2]string{f[1], f[2]}
		}
	}
	files := http.FileServer(http.Dir(e.dir))
	inner := http.StripPrefix(strings.TrimSuffix(e.base, "/"), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Join(e.dir, filepath.FromSlash(path.Clean("/"+r.URL.Path)))
		fi, err := os.Stat(name)
		if err == nil && fi.IsDir() {
			_, err = os.Stat(filepath.Join(name, "index.html")) // no listings
		}
		if err != nil {
			notFound(w, e.dir, r.URL.Path)
			return
		}
		files.ServeHTTP(w, r)
	}))
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if rule, ok := rules[r.URL.Path]; ok {
			if rule[1] == "200" {
				r2 := r.Clone(r.Context())
				r2.URL.Path = rule[0]
				inner.ServeHTTP(w, r2)
				return
			}
			w.Header().Set("Location", rule[0])
			w.WriteHeader(302)
			return
		}
		if !strings.HasPrefix(r.URL.Path, e.base) {
			http.NotFound(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	return ts
}

// notFound answers with the 404.html nearest to p, as Cloudflare Pages does.
func notFound(w http.ResponseWriter, dir, p string) {
	for d := path.Dir(path.Clean("/" + p)); ; d = path.Dir(d) {
		if b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(d), "404.html")); err == nil {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusNotFound)
			w.Write(b)
			return
		}
		if d == "/" {
			http.Error(w, "no 404.html", http.StatusNotFound)
			return
		}
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// noRedirects is a client that reports redirects instead of following them:
// a link of the copy must reach its file directly.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// fetch GETs u and returns the status and body.
func fetch(c *http.Client, u string) (int, http.Header, []byte, error) {
	res, err := c.Get(u)
	if err != nil {
		return 0, nil, nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, b, err
}

// serverGet answers u through a server's handler.
func serverGet(t *testing.T, s *web.Server, u string) []byte {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("live GET %s = %d", u, rec.Code)
	}
	return rec.Body.Bytes()
}

// attrValues lists the values of the attributes named name (` name="…"`)
// in a page, unescaped.
func attrValues(page []byte, name string) []string {
	var out []string
	key := []byte(" " + name + `="`)
	for rest := page; ; {
		i := bytes.Index(rest, key)
		if i < 0 {
			return out
		}
		rest = rest[i+len(key):]
		j := bytes.IndexByte(rest, '"')
		if j < 0 {
			return out
		}
		out = append(out, html.UnescapeString(string(rest[:j])))
		rest = rest[j:]
	}
}

// resolve makes link absolute against the page at from.
func resolve(from, link string) (*url.URL, error) {
	b, err := url.Parse(from)
	if err != nil {
		return nil, err
	}
	return b.Parse(link)
}
