package rooms

import (
	"net/http"
	"net/netip"

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
