package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"ctxsim/static"
	"ctxsim/views"
)

// asset is one static file served under a content-hashed name.
type asset struct {
	body  []byte
	ctype string
	etag  string
}

// assetSet maps hashed names to files; urls are what the pages link to.
type assetSet struct {
	byName map[string]asset
	urls   views.Assets
}

func buildAssets(blockIDs []string, messages []byte) (assetSet, error) {
	set := assetSet{byName: map[string]asset{}}
	add := func(name string, body []byte) string {
		sum := sha256.Sum256(body)
		h := hex.EncodeToString(sum[:])[:12]
		ext := path.Ext(name)
		hashed := strings.TrimSuffix(name, ext) + "." + h + ext
		set.byName[hashed] = asset{body: body, ctype: mime.TypeByExtension(ext), etag: `"` + h + `"`}
		return "/static/" + hashed
	}
	read := func(name string) ([]byte, error) {
		b, err := fs.ReadFile(static.FS(), name)
		if err != nil {
			return nil, fmt.Errorf("static asset: %w", err)
		}
		return b, nil
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"app.css", &set.urls.CSS}, {"app.js", &set.urls.JS}, {"htmx.min.js", &set.urls.Htmx}, {"favicon.svg", &set.urls.Icon}, {"room.js", &set.urls.Room}} {
		b, err := read(f.name)
		if err != nil {
			return set, err
		}
		*f.dst = add(f.name, b)
	}
	set.urls.Scale = add("scale.css", scaleCSS(blockIDs))
	set.urls.Messages = add("messages.js", messages)
	return set, nil
}

// scaleCSS generates the height and position classes of the window
// drawing (h-N, y-N: N thousandths of the window) and a view-transition
// name for every block id the preset runs show. Classes instead of inline
// styles keep the Content-Security-Policy strict.
func scaleCSS(ids []string) []byte {
	var b strings.Builder
	b.WriteString("/* generated at start-up by web/assets.go */\n")
	for u := 0; u <= maxU; u++ {
		fmt.Fprintf(&b, ".h-%d{height:calc(var(--u)*%d)}.y-%d{top:calc(var(--u)*%d)}\n", u, u, u, u)
	}
	// fit-N: one drawing scale per lesson, chosen so that its tallest box
	// (N u) fits the viewport: the window never rescales between steps.
	for n := unitsPerWindow; n <= maxU; n++ {
		fmt.Fprintf(&b, ".fit-%d{--col-h:clamp(240px,calc((100vh - var(--chrome-h))*%d/%d),720px)}\n", n, unitsPerWindow, n)
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		fmt.Fprintf(&b, "[data-vt=%q]{view-transition-name:vt-%s}\n", id, id)
	}
	return []byte(b.String())
}

// static serves a hashed asset. Names come from a map built at start-up, so
// no request path ever reaches a file system.
func (s *Server) static(c echo.Context) error {
	a, ok := s.assets.byName[c.Param("file")]
	if !ok {
		return notFound("static file " + quote(c.Param("file")))
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "public, max-age=31536000, immutable")
	h.Set("ETag", a.etag)
	if c.Request().Header.Get("If-None-Match") == a.etag {
		return c.NoContent(http.StatusNotModified)
	}
	if c.Request().Method == http.MethodHead {
		h.Set(echo.HeaderContentType, a.ctype)
		return c.NoContent(http.StatusOK)
	}
	return c.Blob(http.StatusOK, a.ctype, a.body)
}
