package web

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"net/http"
	"path"
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

func buildAssets(messages []byte) (assetSet, error) {
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
	}{{"app.css", &set.urls.CSS}, {"app.js", &set.urls.JS}, {"favicon.svg", &set.urls.Icon}, {"room.js", &set.urls.Room}} {
		b, err := read(f.name)
		if err != nil {
			return set, err
		}
		*f.dst = add(f.name, b)
	}
	set.urls.Messages = add("messages.js", messages)
	return set, nil
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
