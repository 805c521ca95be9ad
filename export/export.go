// Package export writes the lessons as a static site (ctxsim export DIR)
// for any web host or CDN. Every document is what a web.Server built with
// Config.Static answers at its URL (web.Server.Site lists them), driven
// in-process through its HTTP handler, so a page of the copy is the page
// the server renders. Only the links change: each page is a directory with
// an index.html (…/3 is …/3/index.html, linked as …/3/), under the base
// path the site is served at, and the JSON of the frames API is one file
// per preset policy. _headers and _redirects carry the server's headers
// and short URLs for hosts that read them (Netlify, Cloudflare Pages), and
// a small page at each short URL sends the browser on where they are not.
package export

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"

	"ctxsim/internal/tmpdir"
	"ctxsim/scenarios"
	"ctxsim/views"
	"ctxsim/web"
)

// Options say where and how to write the copy.
type Options struct {
	Dir     string // the directory to write into: it must not exist or be empty
	Base    string // the path the site is served at, "/" (the default) or "/course/ctxsim/"
	Workers int    // documents rendered at once; GOMAXPROCS when 0
}

// Stats count what was written.
type Stats struct {
	Pages int   // HTML pages of the lessons and the index
	Files int   // every file, pages included
	Bytes int64 // their total size
}

// Write renders every document of srv's Site into opt.Dir. srv must be
// built with web.Config.Static. The copy is written into a hidden
// temporary directory and moved into place at the end: an export that
// fails, is cancelled or is killed leaves no partial site, only (when
// killed) the hidden directory, which the next export to opt.Dir removes.
func Write(ctx context.Context, srv *web.Server, opt Options) (Stats, error) {
	start := time.Now()
	base, err := CheckBase(opt.Base)
	if err != nil {
		return Stats{}, err
	}
	site, err := srv.Site()
	if err != nil {
		return Stats{}, err
	}
	st, err := stage(opt.Dir, start)
	if err != nil {
		return Stats{}, err
	}
	w := &writer{dir: st.tmp, links: links{base: base}, h: srv.Handler()}
	err = w.documents(ctx, site, opt.Workers)
	if err == nil {
		err = w.texts(srv)
	}
	if err == nil {
		err = w.extras(srv, site)
	}
	if err == nil {
		err = st.commit()
	}
	if err != nil {
		st.abort()
		return w.stats(), err
	}
	return w.stats(), nil
}

// CheckBase returns the base path in canonical form ("/a/b/"): absolute,
// ending in a slash, of plain path segments.
func CheckBase(b string) (string, error) {
	if b == "" {
		return "/", nil
	}
	if !strings.HasSuffix(b, "/") {
		b += "/"
	}
	if !baseRE.MatchString(b) {
		return "", fmt.Errorf("-base %q: want an absolute path of plain segments such as /ctxsim/ or /course/ctxsim/", b)
	}
	return b, nil
}

var baseRE = regexp.MustCompile(`^/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*/)*$`)

// CheckDir reports whether dir can receive an export: it does not exist
// yet, or is an empty directory (but for the hidden directories
// interrupted exports left in it). An export never overwrites or deletes
// anything else.
func CheckDir(dir string) error {
	if dir == "" {
		return errors.New("no output directory given")
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("output directory: %w", err)
	}
	for _, e := range entries {
		if !e.IsDir() || !tmpdir.IsOurs(e.Name(), stagingPrefix) {
			return fmt.Errorf("output directory %s is not empty (an export does not overwrite files): give a new or empty one", dir)
		}
	}
	return nil
}

// stagingPrefix starts the names of the hidden directories an export
// writes into: inside the target when it exists, beside it (after a dot
// and the target's name) when it does not.
const stagingPrefix = ".ctxsim-export-"

// staging is where an export writes before its copy is moved into place.
type staging struct {
	target, tmp string
	inside      bool // tmp is in target (which existed, empty), not beside it
}

// stage checks target (CheckDir), removes what interrupted exports to it
// left (hidden directories older than start), and makes the directory to
// write into: beside target when target does not exist yet, so that one
// rename puts the whole copy in place; inside it when it exists (it may be
// a mount point, which cannot be renamed onto), its entries then moved up
// one by one, index.html last.
func stage(target string, start time.Time) (*staging, error) {
	if err := CheckDir(target); err != nil {
		return nil, err
	}
	if t, err := filepath.EvalSymlinks(target); err == nil {
		target = t // a link to an empty directory: write into the directory
	}
	target, err := filepath.Abs(target)
	if err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	s := &staging{target: target}
	parent, prefix := filepath.Dir(target), "."+filepath.Base(target)+stagingPrefix
	if _, err := os.Stat(target); err == nil {
		parent, prefix, s.inside = target, stagingPrefix, true
	} else if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("output directory: %w", err)
	}
	if _, err := tmpdir.RemoveStale(parent, prefix, start); err != nil {
		return nil, err
	}
	if s.tmp, err = tmpdir.Make(parent, prefix); err != nil {
		return nil, err
	}
	return s, nil
}

// commit moves the finished copy into place.
func (s *staging) commit() error {
	if !s.inside {
		if err := os.Rename(s.tmp, s.target); err != nil {
			return fmt.Errorf("move the copy into place: %w", err)
		}
		return nil
	}
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return fmt.Errorf("move the copy into place: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Name() != "index.html" {
			names = append(names, e.Name())
		}
	}
	// index.html last: the copy looks complete only once it is.
	for _, n := range append(names, "index.html") {
		if err := os.Rename(filepath.Join(s.tmp, n), filepath.Join(s.target, n)); err != nil {
			return fmt.Errorf("move the copy into place: %w", err)
		}
	}
	return os.Remove(s.tmp)
}

// abort removes what was written.
func (s *staging) abort() { os.RemoveAll(s.tmp) }

// writer renders documents through the server's handler and writes them.
type writer struct {
	dir   string
	links links
	h     http.Handler
	dirs  sync.Map // directories made so far
	pages atomic.Int64
	files atomic.Int64
	bytes atomic.Int64
}

func (w *writer) stats() Stats {
	return Stats{Pages: int(w.pages.Load()), Files: int(w.files.Load()), Bytes: w.bytes.Load()}
}

// documents renders and writes the pages, API documents and assets, on
// workers goroutines.
func (w *writer) documents(ctx context.Context, site web.Site, workers int) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, p := range site.Pages {
		g.Go(func() error { return w.page(ctx, p) })
	}
	for _, d := range site.Docs {
		g.Go(func() error { return w.copy(ctx, d.URL, d.Path, "application/json") })
	}
	for _, a := range site.Assets {
		g.Go(func() error { return w.copy(ctx, a, a, "") })
	}
	return g.Wait()
}

// page renders one HTML page, rewrites its links and writes it.
func (w *writer) page(ctx context.Context, u string) error {
	body, err := w.get(ctx, u, "text/html")
	if err != nil {
		return err
	}
	if body, err = w.links.rewrite(body); err != nil {
		return fmt.Errorf("page %s: %w", u, err)
	}
	w.pages.Add(1)
	return w.write(fileOf(u), body)
}

// copy writes the document at u, unchanged, to the file of path.
func (w *writer) copy(ctx context.Context, u, path, ctype string) error {
	body, err := w.get(ctx, u, ctype)
	if err != nil {
		return err
	}
	return w.write(fileOf(path), body)
}

// texts writes the block texts the pages link to, one file per distinct
// text (they are content-addressed): the server kept each one as it
// rendered a page that shows it.
func (w *writer) texts(srv *web.Server) error {
	urls, text := srv.Texts()
	for _, u := range urls {
		if err := w.write(fileOf(u), []byte(text(u))); err != nil {
			return err
		}
	}
	return nil
}

// get answers u through the handler; anything but a 200 of the expected
// content type is an error that names the URL.
func (w *writer) get(ctx context.Context, u, ctype string) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	w.h.ServeHTTP(rec, httptest.NewRequestWithContext(ctx, http.MethodGet, u, nil))
	if rec.Code != http.StatusOK {
		return nil, fmt.Errorf("GET %s: status %d: %.200s", u, rec.Code, rec.Body.String())
	}
	if got := rec.Header().Get("Content-Type"); ctype != "" && !strings.HasPrefix(got, ctype) {
		return nil, fmt.Errorf("GET %s: content type %q, want %s", u, got, ctype)
	}
	return rec.Body.Bytes(), nil
}

// write writes a file of the copy; name is slash-separated, relative.
func (w *writer) write(name string, body []byte) error {
	p := filepath.Join(w.dir, filepath.FromSlash(name))
	if d := filepath.Dir(p); !w.made(d) {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
		w.dirs.Store(d, true)
	}
	if err := os.WriteFile(p, body, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	w.files.Add(1)
	w.bytes.Add(int64(len(body)))
	return nil
}

// made reports whether directory d was made already.
func (w *writer) made(d string) bool { _, ok := w.dirs.Load(d); return ok }

// extras writes the 404 pages, the short URLs' pages, _headers,
// _redirects and .nojekyll (GitHub Pages then serves the files as they are).
func (w *writer) extras(srv *web.Server, site web.Site) error {
	for i, lang := range scenarios.Languages {
		b, err := srv.NotFoundPage(lang)
		if err != nil {
			return fmt.Errorf("404 page: %w", err)
		}
		if b, err = w.links.rewrite(b); err != nil {
			return fmt.Errorf("404 page: %w", err)
		}
		name := lang + "/404.html"
		if i == 0 {
			name = "404.html" // the host's 404 page, in the first language; Cloudflare Pages serves the nearest one
		}
		if err := w.write(name, b); err != nil {
			return err
		}
	}
	for _, r := range site.Redirects {
		if r.Status == http.StatusOK {
			continue
		}
		if err := w.redirectPage(r); err != nil {
			return err
		}
	}
	hs, err := w.headers(site)
	if err != nil {
		return err
	}
	if err := w.write("_headers", hs); err != nil {
		return err
	}
	if err := w.write("_redirects", w.redirects(site)); err != nil {
		return err
	}
	return w.write(".nojekyll", nil)
}

// redirectPage writes, at a short URL, a page that sends the browser on to
// its target: hosts without _redirects serve it as the directory's index.
func (w *writer) redirectPage(r web.Redirect) error {
	lang, _, _ := strings.Cut(strings.TrimPrefix(r.To, "/"), "/")
	var buf bytes.Buffer
	if err := views.Redirect(lang, w.links.href(r.To), web.MetaContentSecurityPolicy).Render(context.Background(), &buf); err != nil {
		return fmt.Errorf("redirect page %s: %w", r.From, err)
	}
	return w.write(fileOf(r.From), buf.Bytes())
}

// headerNames are the response headers every document of the copy gets
// from _headers, as the server sends them with every page.
var headerNames = []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "X-Xss-Protection"}

// headers is the _headers file (Netlify, Cloudflare Pages): the headers
// the server sends with a page, for every path, and the assets' caching.
func (w *writer) headers(site web.Site) ([]byte, error) {
	page := httptest.NewRecorder()
	w.h.ServeHTTP(page, httptest.NewRequest(http.MethodHead, site.Pages[0], nil))
	asset := httptest.NewRecorder()
	w.h.ServeHTTP(asset, httptest.NewRequest(http.MethodHead, site.Assets[0], nil))
	var b bytes.Buffer
	fmt.Fprintf(&b, "%s*\n", w.links.base)
	for _, n := range headerNames {
		v := page.Header().Get(n)
		if v == "" {
			return nil, fmt.Errorf("_headers: the server sent no %s with %s", n, site.Pages[0])
		}
		fmt.Fprintf(&b, "  %s: %s\n", n, v)
	}
	cc := asset.Header().Get("Cache-Control")
	if cc == "" {
		return nil, fmt.Errorf("_headers: the server sent no Cache-Control with %s", site.Assets[0])
	}
	fmt.Fprintf(&b, "%s/*\n  Cache-Control: %s\n", path.Dir(w.links.href(site.Assets[0])), cc)
	return b.Bytes(), nil
}

// redirects is the _redirects file (Netlify, Cloudflare Pages): the short
// URLs, and the API's URLs without a query served from their files.
func (w *writer) redirects(site web.Site) []byte {
	var b bytes.Buffer
	for _, r := range site.Redirects {
		fmt.Fprintf(&b, "%s %s %d\n", w.links.base+strings.TrimPrefix(r.From, "/"), w.links.href(r.To), r.Status)
	}
	return b.Bytes()
}
