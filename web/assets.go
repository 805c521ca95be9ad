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

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"

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
		return httperr.NoSuch("static file " + httperr.Quote(c.Param("file")))
	}
	c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	return writeBody(c, a, varyCoding)
}
