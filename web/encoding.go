package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"
)

// Bodies kept in memory (rendered pages, static assets) are sent in the
// content coding the client prefers, from encodings made once per body, not
// per request. Everything else the server writes (JSON, error pages) is
// compressed per request by echo's gzip middleware, which skips the routes
// that pick their own coding (see routes.go).

// coding is a content coding a kept body can be sent in.
type coding int

const (
	identity coding = iota
	gzipCoding
	brCoding
	numCodings
)

// name is the coding's Content-Encoding token ("" for identity).
func (cd coding) name() string {
	switch cd {
	case gzipCoding:
		return "gzip"
	case brCoding:
		return "br"
	}
	return ""
}

// minCompressLen is the smallest body worth compressing; below it a coding's
// framing costs more than it saves. The gzip middleware uses the same.
const minCompressLen = 1024

// varyCoding is the Vary of a response that depends on the request only
// through its Accept-Encoding.
const varyCoding = echo.HeaderAcceptEncoding

// body is a response body kept in memory with its gzip and brotli
// encodings. Each encoding is made at most once, the first time a client
// asks for it, and kept with the body.
type body struct {
	raw   []byte
	ctype string
	hash  string        // of raw: the base of every ETag of the body
	zip   *compressor   // makes the encodings not made yet; nil when all are made
	grew  func(n int64) // told the size of each encoding made; may be nil
	enc   [numCodings]encoded
}

type encoded struct {
	once sync.Once
	data []byte // nil when compression failed: the body goes out as identity
}

func newBody(raw []byte, ctype string, zip *compressor) *body {
	sum := sha256.Sum256(raw)
	return &body{raw: raw, ctype: ctype, hash: hex.EncodeToString(sum[:8]), zip: zip}
}

// etag is the strong ETag of the body in coding cd. The codings get
// distinct tags because they are distinct byte sequences (RFC 9110, 8.8.3).
func (b *body) etag(cd coding) string {
	if cd == identity {
		return `"` + b.hash + `"`
	}
	return `"` + b.hash + "-" + cd.name() + `"`
}

// offers narrows the coding a client prefers to one this body has: small
// bodies are only sent as they are.
func (b *body) offers(cd coding) coding {
	if len(b.raw) < minCompressLen {
		return identity
	}
	return cd
}

// encoding returns the body in coding cd, making that encoding if it is
// the first time, and the coding actually used: identity if compression
// failed.
func (b *body) encoding(cd coding) ([]byte, coding) {
	if cd == identity {
		return b.raw, identity
	}
	e := &b.enc[cd]
	e.once.Do(func() {
		if b.zip == nil {
			return // a body whose encodings were all made up front
		}
		data, err := b.zip.compress(cd, b.raw)
		if err != nil {
			return // never happens with an in-memory buffer; identity is always correct
		}
		e.data = data
		if b.grew != nil {
			b.grew(int64(len(data)))
		}
	})
	if e.data == nil {
		return b.raw, identity
	}
	return e.data, cd
}

// matches reports whether an If-None-Match header names this body in any
// coding: every coding decodes to the same bytes, so the client's copy is
// current. Comparison is weak, as RFC 9110 asks for If-None-Match.
func (b *body) matches(ifNoneMatch string) bool {
	if ifNoneMatch == "" {
		return false
	}
	for tag := range strings.SplitSeq(ifNoneMatch, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" {
			return true
		}
		for cd := range numCodings {
			if tag == b.etag(cd) {
				return true
			}
		}
	}
	return false
}

// writeBody answers with b in the coding the request prefers: 304 when the
// client's copy is current, headers only for HEAD. vary lists the request
// headers the response depends on.
func writeBody(c echo.Context, b *body, vary string) error {
	req, h := c.Request(), c.Response().Header()
	cd := b.offers(negotiate(strings.Join(req.Header.Values(echo.HeaderAcceptEncoding), ",")))
	h.Set(echo.HeaderVary, vary)
	if b.matches(req.Header.Get("If-None-Match")) {
		h.Set("ETag", b.etag(cd))
		return c.NoContent(http.StatusNotModified)
	}
	data, cd := b.encoding(cd)
	h.Set("ETag", b.etag(cd))
	h.Set(echo.HeaderContentType, b.ctype)
	if cd != identity {
		h.Set(echo.HeaderContentEncoding, cd.name())
	}
	h.Set(echo.HeaderContentLength, strconv.Itoa(len(data)))
	if req.Method == http.MethodHead {
		return c.NoContent(http.StatusOK)
	}
	return c.Blob(http.StatusOK, b.ctype, data)
}

// negotiate picks the coding for an Accept-Encoding header: the highest
// q-value among br, gzip and identity, a tie going to br, then gzip. "*"
// stands for every coding the header does not name; q=0 excludes a coding.
// Identity is acceptable, at the lowest preference, unless excluded; when
// every coding is excluded, identity is sent anyway (RFC 9110, 12.5.3).
func negotiate(header string) coding {
	q := [numCodings]float64{-1, -1, -1} // -1: not named
	star := -1.0
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		v := qValue(params)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "br":
			q[brCoding] = v
		case "gzip", "x-gzip":
			q[gzipCoding] = v
		case "identity":
			q[identity] = v
		case "*":
			star = v
		}
	}
	for _, cd := range []coding{gzipCoding, brCoding} {
		if q[cd] < 0 {
			q[cd] = max(star, 0)
		}
	}
	if q[identity] < 0 {
		q[identity] = 0.0001 // acceptable, below any named coding
		if star == 0 {
			q[identity] = 0
		}
	}
	best := identity
	for _, cd := range []coding{gzipCoding, brCoding} {
		if q[cd] > 0 && q[cd] >= q[best] {
			best = cd
		}
	}
	return best
}

// qValue reads the q parameter of one Accept-Encoding element: 1 when
// absent, 0 when malformed (a coding we cannot read the weight of is not
// one to choose).
func qValue(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
		k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(k, "q") {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > 1 {
			return 0
		}
		return f
	}
	return 1
}

// compressor makes gzip and brotli encodings at fixed levels, reusing its
// writers: a new brotli writer allocates megabytes of tables.
type compressor struct {
	gzipLevel int
	brQuality int
	gz, br    sync.Pool
	bufs      sync.Pool // *bytes.Buffer
}

func newCompressor(gzipLevel, brQuality int) *compressor {
	return &compressor{gzipLevel: gzipLevel, brQuality: brQuality}
}

// compress returns raw in coding cd, in a slice of its own.
func (z *compressor) compress(cd coding, raw []byte) ([]byte, error) {
	buf, _ := z.bufs.Get().(*bytes.Buffer)
	if buf == nil {
		buf = new(bytes.Buffer)
	}
	defer z.bufs.Put(buf)
	buf.Reset()
	var err error
	switch cd {
	case gzipCoding:
		err = encode(&z.gz, buf, raw, func() (resetWriter, error) { return gzip.NewWriterLevel(buf, z.gzipLevel) })
	case brCoding:
		err = encode(&z.br, buf, raw, func() (resetWriter, error) { return brotli.NewWriterLevel(buf, z.brQuality), nil })
	default:
		return nil, fmt.Errorf("compress: no coding %d", cd)
	}
	if err != nil {
		return nil, fmt.Errorf("compress %s: %w", cd.name(), err)
	}
	return bytes.Clone(buf.Bytes()), nil
}

// resetWriter is a compressing writer that starts over on another
// destination (gzip.Writer, brotli.Writer).
type resetWriter interface {
	io.WriteCloser
	Reset(io.Writer)
}

// encode writes raw to buf through a writer of pool, or a new one from
// open when the pool has none, and gives the writer back.
func encode(pool *sync.Pool, buf *bytes.Buffer, raw []byte, open func() (resetWriter, error)) error {
	w, _ := pool.Get().(resetWriter)
	if w == nil {
		var err error
		if w, err = open(); err != nil {
			return err
		}
	} else {
		w.Reset(buf)
	}
	defer pool.Put(w)
	if _, err := w.Write(raw); err != nil {
		return err
	}
	return w.Close()
}

// dynamicGzip is echo's gzip middleware for the bodies made per request
// (the JSON of the API and the rooms). It skips the routes whose handlers pick
// their own content coding (kept pages, static assets), so their bodies
// are never compressed twice, and the rooms' event streams, which must not
// wait on a gzip buffer.
func (s *Server) dynamicGzip() echo.MiddlewareFunc {
	return middleware.GzipWithConfig(middleware.GzipConfig{MinLength: minCompressLen,
		Skipper: func(c echo.Context) bool { return s.encoded[c.Path()] || isEventStream(c.Request().URL.Path) }})
}

// isEventStream reports whether path is a room's event stream, which must
// not be gzipped: each event has to leave the server at once.
func isEventStream(path string) bool {
	return strings.HasPrefix(path, "/rooms/") && strings.HasSuffix(path, "/events")
}
