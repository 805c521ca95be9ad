package export

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"ctxsim/web/page"
)

// links maps the server's paths to the copy's URLs and files. A page is a
// directory holding index.html, linked with a trailing slash (every static
// host serves …/3/ from …/3/index.html, and sends …/3 there); assets and
// API documents are files under their own names.
type links struct{ base string }

// isFile reports whether server path p is a file of the copy as it is
// (a hashed asset, an API document, a block's text) rather than a page.
func isFile(p string) bool {
	return strings.HasPrefix(p, "/static/") || strings.HasPrefix(p, "/api/") || strings.HasSuffix(p, page.TextSuffix)
}

// href is the URL of server path p in the copy, under the base path.
func (k links) href(p string) string {
	p = strings.Trim(p, "/")
	if p == "" || isFile("/"+p) {
		return k.base + p
	}
	return k.base + p + "/"
}

// fileOf is the file, relative to the copy's directory, that holds the
// document at server path p.
func fileOf(p string) string {
	p = strings.Trim(p, "/")
	switch {
	case p == "":
		return "index.html"
	case isFile("/" + p):
		return p
	}
	return p + "/index.html"
}

// urlAttrs are the attributes of a rendered page that hold a URL of this
// site: links, sources, form actions and the data attributes the scripts
// read (data-step-url is a template, {step} standing for a step number;
// data-text is a block text the sheet loads; data-messages-js the scripts'
// words, loaded when first needed).
var urlAttrs = map[string]bool{"href": true, "src": true, "action": true, "data-state-url": true, "data-step-url": true, "data-text": true, "data-messages-js": true}

// rewrite points every site URL of a page (an attribute value starting
// with one slash) at the copy. templ writes every attribute double-quoted
// and escaped, and text never holds a raw quote, so `name="/` is always an
// attribute. A link with a query would need the server (the copy's files
// ignore queries): it is an error.
func (k links) rewrite(page []byte) ([]byte, error) {
	out := make([]byte, 0, len(page)+len(page)/16)
	for {
		i := bytes.Index(page, []byte(`="/`))
		if i < 0 {
			return append(out, page...), nil
		}
		end := bytes.IndexByte(page[i+2:], '"')
		if end < 0 {
			return nil, errors.New("an attribute value has no closing quote")
		}
		v := string(page[i+2 : i+2+end])
		out = append(out, page[:i+2]...)
		page = page[i+2+end:]
		if !urlAttrs[attrName(out[:len(out)-2])] || strings.HasPrefix(v, "//") {
			out = append(out, v...)
			continue
		}
		p, frag, _ := strings.Cut(v, "#")
		if strings.Contains(p, "?") {
			return nil, fmt.Errorf("a link with a query needs the server: %s", v)
		}
		out = append(out, k.href(p)...)
		if frag != "" {
			out = append(append(out, '#'), frag...)
		}
	}
}

// attrName is the attribute name that ends b, "" when what ends b is not a
// name preceded by white space.
func attrName(b []byte) string {
	i := len(b)
	for i > 0 && (b[i-1] >= 'a' && b[i-1] <= 'z' || b[i-1] == '-') {
		i--
	}
	if i == 0 || i == len(b) || !(b[i-1] == ' ' || b[i-1] == '\n' || b[i-1] == '\t') {
		return ""
	}
	return string(b[i:])
}
