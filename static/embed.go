// Package static holds the CSS, the vendored htmx and the page script,
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
