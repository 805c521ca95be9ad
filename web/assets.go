package web

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"mime"
	"path"
	"strings"
	"sync"

	"github.com/a-h/templ"
	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"
	"github.com/tdewolff/minify/v2"
	"github.com/tdewolff/minify/v2/css"
	"github.com/tdewolff/minify/v2/js"
	"github.com/tdewolff/minify/v2/svg"

	"ctxsim/static"
	"ctxsim/views"
	"ctxsim/web/httperr"
)

// assetSet maps hashed names to files; urls are what the pages link to.
type assetSet struct {
	byName map[string]*body
	urls   views.Assets
}

// Static assets are compressed once, at start-up, at the best ratios:
// they are few and immutable, and every visitor downloads them. (Brotli 11
// saves ~1.7 KB a visitor over brotli 9 and costs ~0.2 s of start-up for
// the files in static/, one goroutine per file.)
const (
	assetGzipLevel = gzip.BestCompression
	assetBrQuality = brotli.BestCompression
)

// precompress makes the gzip and brotli encodings of every asset, then lets
// the compressor go: a brotli-11 writer holds ~24 MB of tables.
func (set assetSet) precompress() {
	zip := newCompressor(assetGzipLevel, assetBrQuality)
	var wg sync.WaitGroup
	for _, b := range set.byName {
		b.zip = zip
		wg.Go(func() {
			for _, cd := range []coding{gzipCoding, brCoding} {
				b.encoding(b.offers(cd))
			}
		})
	}
	wg.Wait()
	for _, b := range set.byName {
		b.zip = nil
	}
}

// minifier rewrites the stylesheet and the scripts without their comments
// and spaces (and the scripts' local names shortened): the files in
// static/ stay readable, visitors get the minified bytes. Measured on
// app.css and app.js (brotli 11): 9,222 -> 7,755 B and 6,227 -> 3,852 B.
func minifier() *minify.M {
	m := minify.New()
	m.AddFunc(".css", css.Minify)
	m.Add(".js", &js.Minifier{})
	m.Add(".svg", &svg.Minifier{})
	return m
}

// iconURL is the icon as a data: URL in the page itself: a separate file
// costs a request, ~500 B of response headers and 465 B of SVG on every
// first visit, where the minified SVG in the page costs ~250 B brotli.
// Only the characters a URL or an HTML attribute cannot hold are escaped,
// and the colon, so that the SVG namespace does not read as a link to
// another host.
func iconURL(svg []byte) templ.SafeURL {
	esc := strings.NewReplacer("%", "%25", "#", "%23", `"`, "%22", "'", "%27", "<", "%3C", ">", "%3E", "&", "%26", ":", "%3A", "\n", "")
	return templ.SafeURL("data:image/svg+xml," + esc.Replace(string(svg)))
}

// buildAssets names each asset by its content and keeps the bytes served:
// the files of static/, minified, and the catalog's messages (generated
// compact JSON, served as they are).
func buildAssets(messages []byte) (assetSet, error) {
	set := assetSet{byName: map[string]*body{}}
	add := func(name string, body []byte) string {
		sum := sha256.Sum256(body)
		h := hex.EncodeToString(sum[:])[:12]
		ext := path.Ext(name)
		hashed := strings.TrimSuffix(name, ext) + "." + h + ext
		set.byName[hashed] = newBody(body, mime.TypeByExtension(ext), nil)
		return "/static/" + hashed
	}
	m := minifier()
	read := func(name string) ([]byte, error) {
		b, err := fs.ReadFile(static.FS(), name)
		if err != nil {
			return nil, fmt.Errorf("static asset: %w", err)
		}
		if b, err = m.Bytes(path.Ext(name), b); err != nil {
			return nil, fmt.Errorf("static asset %s: minify: %w", name, err)
		}
		return b, nil
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"app.css", &set.urls.CSS}, {"app.js", &set.urls.JS}, {"room.js", &set.urls.Room}} {
		b, err := read(f.name)
		if err != nil {
			return set, err
		}
		*f.dst = add(f.name, b)
	}
	icon, err := read("favicon.svg")
	if err != nil {
		return set, err
	}
	set.urls.Icon = iconURL(icon)
	set.urls.Messages = add("messages.js", messages)
	return set, nil
}

// static serves a hashed asset. Names come from a map built at start-up, so
// no request path ever reaches a file system.
func (s *Server) static(c echo.Context) error {
	a, ok := s.assets.byName[c.Param("file")]
	if !ok {
		return httperr.NoSuch("static file " + httperr.Quote(c.Param("file")))
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	return writeBody(c, a, varyCoding)
}
