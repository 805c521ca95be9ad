package export

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sync/errgroup"
)

// crawler follows every link of a static copy from its index, as a visitor
// would, and records each link that does not answer 200 directly.
type crawler struct {
	origin string // http://host:port of the static host
	base   string // the copy's base path

	mu        sync.Mutex
	seen      map[string]bool            // paths asked for
	html      map[string]bool            // paths that answered HTML
	ids       map[string]map[string]bool // page path → the ids of its elements
	styled    map[string]bool            // pages that link the stylesheet
	frags     [][3]string                // {page, id, from}: links to an element of a page
	cssFrags  []string                   // ids the stylesheet refers to (url(#id))
	templates [][2]string                // {template, max}: the step field of a static copy
	broken    []string
}

func newCrawler(origin, base string) *crawler {
	return &crawler{origin: origin, base: base, seen: map[string]bool{}, html: map[string]bool{},
		ids: map[string]map[string]bool{}, styled: map[string]bool{}}
}

// run crawls from start, a level of the link graph at a time.
func (c *crawler) run(start string) error {
	c.seen[start] = true
	frontier := [][2]string{{start, "(start)"}}
	for len(frontier) > 0 {
		var next [][2]string
		var mu sync.Mutex
		g := new(errgroup.Group)
		g.SetLimit(8)
		for _, j := range frontier {
			g.Go(func() error {
				found, err := c.visit(j[0], j[1])
				mu.Lock()
				next = append(next, found...)
				mu.Unlock()
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return err
		}
		frontier = next
	}
	return nil
}

// visit fetches one path and returns the links it holds that were not seen
// yet, each with the page it was found on.
func (c *crawler) visit(p, from string) ([][2]string, error) {
	status, h, body, err := fetch(noRedirects, c.origin+p)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		c.mu.Lock()
		c.broken = append(c.broken, fmt.Sprintf("%s (linked from %s): %d %s", p, from, status, h.Get("Location")))
		c.mu.Unlock()
		return nil, nil
	}
	ct := h.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "text/css"):
		c.css(body)
		return nil, nil
	case !strings.HasPrefix(ct, "text/html"):
		return nil, nil
	}
	var links []string
	for _, a := range []string{"href", "src", "action", "data-messages-js"} {
		links = append(links, attrValues(body, a)...)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.html[p] = true
	c.ids[p] = map[string]bool{}
	for _, id := range attrValues(body, "id") {
		c.ids[p][id] = true
	}
	if tpl := attrValues(body, "data-step-url"); len(tpl) > 0 {
		c.templates = append(c.templates, [2]string{tpl[0], jumpMax(body)})
	}
	var out [][2]string
	for _, l := range links {
		u, err := resolve(c.origin+p, l)
		if err != nil {
			c.broken = append(c.broken, fmt.Sprintf("%q on %s: %v", l, p, err))
			continue
		}
		if u.Host != strings.TrimPrefix(c.origin, "http://") {
			continue // another site
		}
		if !strings.HasPrefix(l, "#") && !strings.HasPrefix(u.Path, c.base) {
			c.broken = append(c.broken, fmt.Sprintf("%q on %s is outside the base path %s", l, p, c.base))
		}
		if strings.HasSuffix(u.Path, ".css") {
			c.styled[p] = true
		}
		if u.Fragment != "" {
			c.frags = append(c.frags, [3]string{u.Path, u.Fragment, p})
		}
		if u.RawQuery != "" {
			c.broken = append(c.broken, fmt.Sprintf("%q on %s has a query, which a static host ignores", l, p))
		}
		if !c.seen[u.Path] {
			c.seen[u.Path] = true
			out = append(out, [2]string{u.Path, p})
		}
	}
	return out, nil
}

var cssURL = regexp.MustCompile(`url\(\s*['"]?([^'")]+)['"]?\s*\)`)

// css records the stylesheet's references: ids of the page (url(#id));
// anything else would be a file, which the copy does not have.
func (c *crawler) css(body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range cssURL.FindAllSubmatch(body, -1) {
		ref := string(m[1])
		if id, ok := strings.CutPrefix(ref, "#"); ok {
			c.cssFrags = append(c.cssFrags, id)
		} else {
			c.broken = append(c.broken, "stylesheet url("+ref+"): the copy serves no such file")
		}
	}
}

var jumpMaxRE = regexp.MustCompile(`name="step" min="1" max="(\d+)"`)

func jumpMax(body []byte) string {
	if m := jumpMaxRE.FindSubmatch(body); m != nil {
		return string(m[1])
	}
	return ""
}

// checkFragments reports links to an element that is not on its page, and
// stylesheet references to ids a styled page lacks. It returns how many
// links to a block's sheet were on pages that hold no sheet at all: the
// presenter view, comparisons and handouts draw the window as on the
// lesson page, whose blocks link their sheets, but hold none (as served
// live; app.js ignores such a click).
func (c *crawler) checkFragments() (sheetless int) {
	for _, f := range c.frags {
		ids, ok := c.ids[f[0]]
		switch {
		case !ok || ids[f[1]]:
		case strings.HasPrefix(f[1], "sheet-") && !hasSheet(ids):
			sheetless++
		default:
			c.broken = append(c.broken, fmt.Sprintf("%s#%s (linked from %s): no element with that id", f[0], f[1], f[2]))
		}
	}
	for p := range c.styled {
		for _, id := range c.cssFrags {
			if !c.ids[p][id] {
				c.broken = append(c.broken, fmt.Sprintf("%s: the stylesheet's url(#%s) has no element", p, id))
			}
		}
	}
	return sheetless
}

func hasSheet(ids map[string]bool) bool {
	for id := range ids {
		if strings.HasPrefix(id, "sheet-") {
			return true
		}
	}
	return false
}

// pageURL is where the copy serves the page the server answers at p: a
// directory, with a trailing slash, under the base.
func pageURL(base, p string) string {
	p = strings.Trim(p, "/")
	if p == "" {
		return base
	}
	return base + p + "/"
}

// TestExportLinks exports the built-in lessons, serves the directory with
// http.FileServer as a plain static host (no _redirects), and follows every
// link from the index (checkLinks).
func TestExportLinks(t *testing.T) {
	e := mustExport(t, builtinExport)
	c := checkLinks(t, e)
	if len(c.cssFrags) == 0 {
		t.Errorf("the crawl found no url(#id) in the stylesheet; its patterns use two")
	}
}

// checkLinks serves an export as a plain static host and follows every link
// from the index: every link answers 200 without a redirect and stays
// under the base path, every fragment names an element of its page, the
// step field's template reaches a page for its first and last step, and the
// pages reached are exactly the pages of the site. No file of the copy is
// left unreached.
func checkLinks(t *testing.T, e *exported) *crawler {
	t.Helper()
	ts := host(t, e, false)
	c := newCrawler(ts.URL, e.base)
	if err := c.run(e.base); err != nil {
		t.Fatal(err)
	}
	sheetless := c.checkFragments()
	for _, tpl := range c.templates {
		for _, n := range []string{"1", tpl[1]} {
			u := strings.Replace(tpl[0], "{step}", n, 1)
			if status, _, _, err := fetch(noRedirects, ts.URL+u); err != nil || status != http.StatusOK {
				c.broken = append(c.broken, fmt.Sprintf("step field %s → %s: %d %v", tpl[0], u, status, err))
			}
		}
	}
	for i, b := range c.broken {
		if i == 20 {
			t.Errorf("… and %d more", len(c.broken)-20)
			break
		}
		t.Errorf("broken: %s", b)
	}
	var missing []string
	want := map[string]bool{}
	for _, p := range e.site.Pages {
		u := pageURL(e.base, p)
		want[u] = true
		if !c.html[u] {
			missing = append(missing, u)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%d pages of the site were not reached by links, e.g. %s", len(missing), missing[0])
	}
	for p := range c.html {
		if !want[p] {
			t.Errorf("crawl reached %s, which is not a page of the site", p)
		}
	}
	if len(c.html) != e.stats.Pages || e.stats.Pages != len(e.site.Pages) {
		t.Errorf("crawled %d HTML pages; the export wrote %d, the site has %d", len(c.html), e.stats.Pages, len(e.site.Pages))
	}
	checkNoOrphans(t, e, c)
	t.Logf("crawled %d pages and %d other paths; export: %d files, %.1f MB; %d links to a sheet on pages without sheets",
		len(c.html), len(c.seen)-len(c.html), e.stats.Files, float64(e.stats.Bytes)/1e6, sheetless)
	return c
}

// checkNoOrphans walks the copy's directory: every file is a crawled page
// or asset, an API document, a short URL's page, a 404 page or a host file.
func checkNoOrphans(t *testing.T, e *exported, c *crawler) {
	t.Helper()
	docs := map[string]bool{}
	for _, d := range e.site.Docs {
		docs[strings.TrimPrefix(d.Path, "/")] = true
	}
	shorts := map[string]bool{}
	for _, r := range e.site.Redirects {
		shorts[strings.Trim(r.From, "/")+"/index.html"] = true
	}
	hostFiles := []string{"_headers", "_redirects", ".nojekyll", "404.html", "ja/404.html"}
	n := 0
	err := filepath.WalkDir(e.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		rel := filepath.ToSlash(strings.TrimPrefix(p, e.dir+string(filepath.Separator)))
		u := e.base + rel
		if page, ok := strings.CutSuffix(u, "index.html"); ok && c.html[page] {
			return nil
		}
		if c.seen[u] || docs[rel] || shorts[rel] || slices.Contains(hostFiles, rel) {
			return nil
		}
		t.Errorf("file %s is not reached by a link, nor an API document, a short URL or a host file", rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != e.stats.Files {
		t.Errorf("the directory holds %d files; the export reported %d", n, e.stats.Files)
	}
}

// TestExportShortURLs checks the short URLs both ways a host may serve
// them: by _redirects (Netlify, Cloudflare Pages) with the status given,
// and by the page kept at the short URL (any host), which sends the browser
// to the same target; and the API without a query served from its file.
func TestExportShortURLs(t *testing.T) {
	e := mustExport(t, builtinExport)
	withRules, plain := host(t, e, true), host(t, e, false)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, e.dir, "_redirects")), "\n") {
		f := strings.Fields(line)
		from, to, status := f[0], f[1], f[2]
		code, h, body, err := fetch(noRedirects, withRules.URL+from)
		if err != nil {
			t.Fatal(err)
		}
		switch status {
		case "302":
			if code != 302 || h.Get("Location") != to {
				t.Errorf("%s with _redirects: %d → %q; want 302 → %s", from, code, h.Get("Location"), to)
			}
			// Without rules, the host serves the directory's page.
			code, _, body, err = fetch(noRedirects, plain.URL+from+"/")
			if err != nil {
				t.Fatal(err)
			}
			if want := `<meta http-equiv="refresh" content="0; url=` + to + `">`; code != 200 || !bytes.Contains(body, []byte(want)) {
				t.Errorf("%s/ without _redirects: %d, want 200 with %s", from, code, want)
			}
		case "200":
			if ct := h.Get("Content-Type"); code != 200 || !strings.HasPrefix(ct, "application/json") {
				t.Errorf("%s with _redirects: %d %s; want the JSON of %s", from, code, ct, to)
			}
			if file := readFile(t, e.dir, strings.TrimPrefix(to, e.base)); string(body) != file {
				t.Errorf("%s with _redirects: the body is not %s", from, to)
			}
		default:
			t.Errorf("_redirects %q: status %s", line, status)
		}
		if code, _, _, err := fetch(noRedirects, plain.URL+to); err != nil || code != 200 {
			t.Errorf("%s → %s: the target answers %d %v", from, to, code, err)
		}
		n++
	}
	// one line per lesson and language, per policy the copy holds and
	// language (the default and each preset one parameter away from it; a
	// lesson of over 100 steps the default only), the lesson without a
	// language, and the API's lessons and frames
	cfg, err := loaded()
	if err != nil {
		t.Fatal(err)
	}
	want := 1
	for _, l := range cfg.Lessons {
		held, long := 1, framesOf(t, e, l.ID) > 100
		for _, p := range l.PresetPolicies() {
			diff := 0
			for _, pr := range l.Params() {
				if p.Get(pr.Name) != l.DefaultPolicy().Get(pr.Name) {
					diff++
				}
			}
			if diff == 1 && !long {
				held++
			}
		}
		want += 2 + 2*held + 1 + 1
	}
	if n != want {
		t.Errorf("_redirects has %d lines, want %d", n, want)
	}
	code, _, body, err := fetch(noRedirects, plain.URL+"/no/such/page")
	if err != nil || code != 404 || !bytes.Contains(body, []byte("static copy")) {
		t.Errorf("a missing page: %d %v; want 404 with the copy's 404 page saying what needs the server", code, err)
	}
	code, _, body, err = fetch(noRedirects, plain.URL+"/ja/context-memory/compaction-on.memory-on.threshold-73.rec-1/1/")
	if err != nil || code != 404 || !bytes.Contains(body, []byte(`lang="ja"`)) || !bytes.Contains(body, []byte("ctxsim serve")) {
		t.Errorf("a typed threshold under /ja/: %d %v; want 404 with the Japanese 404 page naming ctxsim serve", code, err)
	}
}

// TestExportUnderBase exports two lessons for /ctxsim/ (a project page) and
// serves the directory there: every link stays under /ctxsim/ and works,
// the step field of the thirty-step lesson reaches its steps, and
// _headers and _redirects name paths under /ctxsim/.
func TestExportUnderBase(t *testing.T) {
	e := mustExport(t, baseExport)
	c := checkLinks(t, e)
	if len(c.templates) == 0 {
		t.Errorf("no page offers the step field; the thirty-step lesson's pages do")
	}
	seen := differences{}
	for _, p := range samplePages(t, e) {
		sameAsLive(t, e, p, seen)
	}
	if seen["static step field"] == 0 || seen["server-only note"] == 0 {
		t.Errorf("the sample shows %v; want the static step field and the server-only note", seen)
	}
	checkHeaders(t, e)
	for _, name := range []string{"_headers", "_redirects"} {
		for _, line := range strings.Split(strings.TrimSpace(readFile(t, e.dir, name)), "\n") {
			if strings.HasPrefix(line, " ") {
				continue // a header of the path above
			}
			for _, f := range strings.Fields(line) {
				if strings.HasPrefix(f, "/") && !strings.HasPrefix(f, "/ctxsim/") {
					t.Errorf("%s: %q names %s, outside /ctxsim/", name, line, f)
				}
			}
		}
	}
}
