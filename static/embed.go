// Package static holds the stylesheet, the page and room scripts and the icon,
// embedded in the binary. Nothing is fetched from a CDN.
package static

import (
	"embed"
	"io/fs"
)

//go:embed *.css *.js *.svg
var files embed.FS

// FS returns the static files.
func FS() fs.FS { return files }
