package web

import (
	"maps"
	"slices"
	"sync"

	"github.com/labstack/echo/v4"

	"ctxsim/scenarios"
	"ctxsim/web/httperr"
	"ctxsim/web/internal/lru"
	"ctxsim/web/page"
	"ctxsim/web/uploads"
)

// A block's text is served on its own (page.TextURL), content-addressed:
// the page's block sheet links to it and the page script loads it when the
// sheet opens. The texts are kept when a page that links to them is built:
// an uploaded session's in its own page cache (they go when it goes, and
// are answered, like its pages, only under its unguessable path, private),
// the others in a bounded cache of their own. A text asked for that is not
// kept (evicted, or asked of another server than the one that rendered the
// page) is found again by building the page named in the query ?at= (the
// page script sends its page's path), and 404 without it.

// textCacheBytes bounds the block texts kept for lessons served to anyone:
// the shipped lessons' distinct texts are ~1 MB in each language, an
// imported 10,000-record session's ~15 MB.
const textCacheBytes = 64 << 20

// texts keeps the block texts pages link to (page.TextKeeper).
type texts struct {
	s      *Server
	shared *lru.Cache[*body]
	mu     sync.Mutex
	all    map[string]string // a static copy's: every text, by URL (nil on a live server)
}

func newTexts(s *Server) *texts {
	t := &texts{s: s, shared: lru.New[*body](textCacheBytes)}
	if s.export {
		t.all = map[string]string{}
	}
	return t
}

// KeepText keeps text under url, in the cache of lesson l.
func (t *texts) KeepText(l *scenarios.Lesson, url, text string) {
	if t.all != nil {
		t.mu.Lock()
		t.all[url] = text
		t.mu.Unlock()
	}
	c := t.cacheOf(l)
	if _, ok := c.Get(url); ok {
		return
	}
	c.Put(url, newBody([]byte(page.TextBOM+text), echo.MIMETextPlainCharsetUTF8, t.s.caches.zip), int64(len(url)+len(text)))
}

// cacheOf is where l's texts are kept.
func (t *texts) cacheOf(l *scenarios.Lesson) *lru.Cache[*body] {
	if u := t.s.localUpload(l); u != nil {
		return u.pages
	}
	return t.shared
}

// Texts are the block texts of a static copy, by URL, in the order of
// their URLs: every text a page built so far links to. Nil on a Server
// not built with Config.Static.
func (s *Server) Texts() (urls []string, text func(url string) string) {
	t := s.texts
	if t.all == nil {
		return nil, nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	all := maps.Clone(t.all)
	return slices.Sorted(maps.Keys(all)), func(u string) string { return page.TextBOM + all[u] }
}

// blockText answers GET /{lang}/{lesson}/text/{hash}.txt: one block's
// text, as text/plain with a strong ETag; content-addressed, so cacheable
// for good (an uploaded session's: private, no-store, as its pages).
func (s *Server) blockText(c echo.Context) error {
	lang, l, err := s.langAndLesson(c.Param("lang"), c.Param("lesson"))
	if err != nil {
		return err
	}
	if !page.IsTextName(c.Param("file")) {
		return httperr.NoSuch("text " + httperr.Quote(c.Param("file")))
	}
	key := "/" + lang + "/" + l.ID + "/text/" + c.Param("file")
	cache := s.texts.cacheOf(l)
	b, ok := cache.Get(key)
	if at := c.QueryParam("at"); !ok && at != "" {
		if st, al, err := s.ParseStateURL(at); err == nil && al == l && st.Lang == lang {
			if _, err := s.pages.Page(l, st); err != nil {
				return err
			}
			b, ok = cache.Get(key)
		}
	}
	if !ok {
		return httperr.NoSuch("text " + httperr.Quote(c.Param("file")) + " of " + l.ID + " (open the page that shows it)")
	}
	if !uploads.IsID(l.ID) { // an upload's answers are private (privateUploads)
		c.Response().Header().Set(echo.HeaderCacheControl, "public, max-age=31536000, immutable")
	}
	return writeBody(c, b, varyCoding)
}

var _ page.TextKeeper = (*texts)(nil)
