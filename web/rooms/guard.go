package rooms

import (
	"net/http"
	"net/netip"
	"time"

	"github.com/labstack/echo/v4"

	"ctxsim/web/hosts"
)

// The guards of the rooms' writes, for the site's other writes too (an
// uploaded session is sent, and forgotten, under the same rules).

// SameSite reports whether a request that changes something may come from
// where it comes from: this site's own pages, or a client that is not a
// browser (see sameOrigin). With trusted proxies in front, the host one
// of them says the browser used counts as this site too.
func SameSite(r *http.Request, trusted []netip.Prefix) bool {
	return sameOrigin(r, hosts.Proxies(trusted).Asked(r))
}

// Client is the address a request is limited by (see clientOf).
func Client(c echo.Context) string { return clientOf(c) }

// RateLimiter is a token bucket per client, in a bounded table: burst
// requests at once, then one more per interval. It is safe for concurrent
// use.
type RateLimiter struct{ l *rateLimiter }

// NewRateLimiter returns a RateLimiter of burst requests, one more per
// every; now is the clock.
func NewRateLimiter(burst int, every time.Duration, now func() time.Time) *RateLimiter {
	return &RateLimiter{newRateLimiter(burst, every, now)}
}

// Allow takes one request of client's bucket; if there is none it says how
// long until there is.
func (r *RateLimiter) Allow(client string) (bool, time.Duration) { return r.l.allow(client) }
