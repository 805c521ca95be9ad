// Package hosts decides whether a request is for this site: the host the
// browser asked for (Host, or the X-Forwarded-Host of a trusted proxy) and
// whether this server answers to it. A DNS-rebinding page makes a browser
// send the page's own name to this server; a server that answers only to
// its own names turns it away (421) before it can open rooms or read
// anything.
package hosts

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"regexp"
	"strings"
)

// Proxies are the address ranges of the trusted proxies: their
// X-Forwarded-For names the client, their X-Forwarded-Host the host the
// browser asked for.
type Proxies []netip.Prefix

// Peer reports whether r comes straight from a trusted proxy.
func (p Proxies) Peer(r *http.Request) bool {
	if len(p) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return false
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	for _, pr := range p {
		if pr.Contains(a.Unmap()) {
			return true
		}
	}
	return false
}

// Asked is the host (with its port, as sent) the browser asked for: the
// first X-Forwarded-Host of a trusted proxy that sends one, else Host.
func (p Proxies) Asked(r *http.Request) string {
	if p.Peer(r) {
		if f := r.Header.Get("X-Forwarded-Host"); f != "" {
			first, _, _ := strings.Cut(f, ",")
			return strings.TrimSpace(first)
		}
	}
	return r.Host
}

// Rule is the hosts this server answers to: every IP address, localhost
// (and names under .localhost), and the names it is given (serve -host).
//
// Any IP address is allowed, not only this machine's: a DNS-rebinding page
// always names its own host, never an address, and a server behind a port
// mapping (a container) is reached by addresses it does not hold.
type Rule struct {
	names   map[string]bool
	proxies Proxies
}

// New is the rule for names (each a DNS name, without a port) behind
// proxies.
func New(names []string, proxies Proxies) (*Rule, error) {
	r := &Rule{names: map[string]bool{}, proxies: proxies}
	for _, n := range names {
		n = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(n)), ".")
		if !nameRE.MatchString(n) || len(n) > 253 {
			return nil, fmt.Errorf("host %q: want a DNS name such as ctxsim.example.org (no scheme, no port)", n)
		}
		r.names[n] = true
	}
	return r, nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$`)

// ParseNames reads NAME[,NAME…] of a -host flag, repeated or not.
func ParseNames(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				out = append(out, f)
			}
		}
	}
	return out
}

// Asked is the host the browser asked for (Proxies.Asked).
func (r *Rule) Asked(req *http.Request) string { return r.proxies.Asked(req) }

// Allows reports whether r asks for a host this server answers to.
func (r *Rule) Allows(req *http.Request) bool { return r.allowsHost(r.proxies.Asked(req)) }

// allowsHost reports whether hostport (a Host header) names this server.
func (r *Rule) allowsHost(hostport string) bool {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	if h == "" {
		return false
	}
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || r.names[h]
}
