package web

import (
	"net/url"
	"strings"
	"testing"
)

// TestQRCode: /qr.svg draws a join address as a QR code, and refuses what
// is not an address or too long with a 400 naming the parameter.
func TestQRCode(t *testing.T) {
	s := newTestServer(t)
	rec := get(t, s, "/qr.svg?text="+url.QueryEscape("http://192.168.1.23:8080/join/UY2YF2"))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(rec.Body.String(), "<svg") {
		t.Errorf("/qr.svg = %d %s %.60s", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	for _, bad := range []string{"", "javascript:alert(1)", "http://x/" + strings.Repeat("a", 200)} {
		rec := get(t, s, "/qr.svg?text="+url.QueryEscape(bad))
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "text") {
			t.Errorf("/qr.svg?text=%.30q = %d; want 400 naming text", bad, rec.Code)
		}
	}
}
