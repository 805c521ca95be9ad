package web

import (
	"bytes"
	"context"
	"fmt"
	"sync"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"ctxsim/web/internal/lru"
)

// Every page of a lesson state is a pure function of its canonical path
// (the URL is the state), so it is rendered once and then served from
// memory. The page cache is keyed by that path: LessonURL for the lesson
// page, presenter view, notes and comparisons, handoutURL for handouts, and
// /{lang} for the index, whose "/" resolves its language first. Only pages
// that rendered are kept; errors and redirects never reach the cache.
// Nothing of the request is rendered into a page: the page builders see
// only a lesson, a State and its runs.
//
// A kept page gets its gzip and brotli encodings the first time a client
// asks for each, once, not when it is kept: compressing both costs ~2 ms a
// page here, more than rendering it, and a classroom's browsers all ask for
// the same one (gzip over plain HTTP, br over HTTPS).

// Default bounds of the caches; Config overrides them.
const (
	defaultPageCacheBytes  = 64 << 20 // ~1,200 step pages of 37 KB with both encodings (~56 KB)
	defaultReplayCacheRuns = 256      // replays of typed policies; a typed-threshold page needs ~7
)

// Compression levels of kept pages. Each page is compressed once per
// coding while its first visitor waits, so the levels are the fast end of
// the good ratios: gzip 6 is what the gzip middleware used before; brotli 5
// is ~6% smaller than that at about the same cost (~1 ms for a 37 KB
// page), while brotli 9 and above cost 10–75 ms a page here.
const (
	pageGzipLevel = 6
	pageBrQuality = 5
)

// caches are the Server's memory of pages already rendered, a bounded LRU
// (the replays of non-preset policies are kept by runs).
type caches struct {
	pages *lru.Cache[*body]
	zip   *compressor // encodings of kept pages
	bufs  sync.Pool   // *bytes.Buffer to render into
}

// newCaches sizes the page cache from cfg: 0 means the default, a negative
// bound keeps nothing (every request renders, for benchmarks).
func newCaches(cfg Config) *caches {
	pages := cfg.PageCacheBytes
	if pages == 0 {
		pages = defaultPageCacheBytes
	}
	return &caches{pages: lru.New[*body](pages), zip: newCompressor(pageGzipLevel, pageBrQuality)}
}

// cachedPage returns the page kept for the request's path, if any. Only a
// request without a query may take it: policy parameters in the query
// redirect to another page.
func (s *Server) cachedPage(c echo.Context) (*body, bool) {
	u := c.Request().URL
	if u.RawQuery != "" {
		return nil, false
	}
	return s.caches.pages.Get(u.Path)
}

// servePage answers with the page kept under key, its canonical path,
// building and rendering it first when it is not kept. Concurrent first
// visitors of one page wait for a single render.
func (s *Server) servePage(c echo.Context, key, vary string, build func() (templ.Component, error)) error {
	return s.serveFrom(c, s.caches.pages, key, vary, build)
}

// serveFrom is servePage with the pages kept in cache.
func (s *Server) serveFrom(c echo.Context, cache *lru.Cache[*body], key, vary string, build func() (templ.Component, error)) error {
	ctx := context.WithoutCancel(c.Request().Context()) // the render is shared: one visitor leaving must not fail it for the others
	b, err := cache.GetOrMake(key, func() (*body, int64, error) {
		comp, err := build()
		if err != nil {
			return nil, 0, err
		}
		raw, err := s.renderPage(ctx, comp)
		if err != nil {
			return nil, 0, fmt.Errorf("render %s: %w", key, err)
		}
		b := newBody(raw, echo.MIMETextHTMLCharsetUTF8, s.caches.zip)
		b.grew = func(n int64) { cache.Grow(key, b, n) }
		return b, int64(len(key) + len(raw)), nil
	})
	if err != nil {
		return err
	}
	return writeBody(c, b, vary)
}

// renderPage renders a component into a buffer first, so a failing
// component never leaves half a page behind a 200, and returns a copy sized
// to the page.
func (s *Server) renderPage(ctx context.Context, comp templ.Component) ([]byte, error) {
	buf, _ := s.caches.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer s.caches.bufs.Put(buf)
	buf.Reset()
	if err := comp.Render(ctx, buf); err != nil {
		return nil, err
	}
	return bytes.Clone(buf.Bytes()), nil
}
