package rooms

// Limits on what one client can ask of the rooms: room creation is rate
// limited per client address, the live rooms a client opened are capped,
// and event streams are capped per client and in total. Refusals are counted and logged as one summary line a minute,
// never one line each.

import (
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

// Limits bound what clients can ask of the rooms. Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	Streams       int // open event streams per server
	ClientStreams int // open event streams per client address
	// ClientRooms caps the live rooms a client address opened, those its
	// streams keep open past their expiry included.
	ClientRooms int
	CreateBurst int           // rooms a client may open at once
	CreateEvery time.Duration // then one more per this interval
}

// DefaultLimits: a class of a few hundred behind one NAT fits under
// ClientStreams; a presenter opens a few rooms a day, not hundreds.
func DefaultLimits() Limits {
	return Limits{Streams: 10_000, ClientStreams: 500, ClientRooms: 20, CreateBurst: 10, CreateEvery: 20 * time.Second}
}

// clientOf is the address requests are limited by: the request's peer, or
// with trusted proxies the client they name (echo's IPExtractor). IPv6
// clients are grouped by /64, which one host usually holds whole.
func clientOf(c echo.Context) string {
	a, err := netip.ParseAddr(c.RealIP())
	if err != nil {
		return c.RealIP()
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String()
	}
	return a.String()
}

// sameOrigin reports whether a request that changes rooms may come from
// where it comes from: a browser says where (Sec-Fetch-Site, Origin), and
// only this site's own pages may; clients that are not browsers (curl,
// tools) send neither and cannot be made to act for another site.
// asked is the host the browser asked for (hosts.Proxies.Asked): Host,
// or a trusted proxy's X-Forwarded-Host.
func sameOrigin(r *http.Request, asked string) bool {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" {
		return false
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return false // "null": a sandboxed frame, a file, a redirect across sites
	}
	return strings.EqualFold(u.Host, r.Host) || strings.EqualFold(u.Host, asked)
}

// owners are the rooms each client opened that were live when last seen,
// to cap them per client: a room held open by a stream outlives its TTL
// and the full-table sweep, so the creation rate alone does not bound a
// client's rooms. The codes are checked against the store only when a
// client is at its cap (the rooms that ended free their places), or when
// the table grows past its bound.
type owners struct {
	max int // rooms per client

	mu      sync.Mutex
	rooms   map[string][]string // client → codes
	owner   map[string]string   // code → client
	pending map[string]int      // client → rooms being opened
	bound   int                 // codes tracked before all are checked
}

// ownersBound is the codes tracked before all are checked against the
// store: twice the default room table.
const ownersBound = 20_000

func newOwners(max int) *owners {
	return &owners{max: max, rooms: map[string][]string{}, owner: map[string]string{}, pending: map[string]int{}, bound: ownersBound}
}

// reserve takes a place for a room client opens; settle gives it back.
func (o *owners) reserve(client string) bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.rooms[client])+o.pending[client] >= o.max {
		return false
	}
	o.pending[client]++
	return true
}

// settle ends a reservation: code is the room opened, "" if none was.
func (o *owners) settle(client, code string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pending[client]--; o.pending[client] <= 0 {
		delete(o.pending, client)
	}
	if code != "" {
		o.rooms[client] = append(o.rooms[client], code)
		o.owner[code] = client
	}
}

// drop forgets a room that ended.
func (o *owners) drop(code string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	client, ok := o.owner[code]
	if !ok {
		return
	}
	delete(o.owner, code)
	rs := slices.DeleteFunc(o.rooms[client], func(c string) bool { return c == code })
	if len(rs) == 0 {
		delete(o.rooms, client)
	} else {
		o.rooms[client] = rs
	}
}

// of lists the codes of client's rooms; every code when client is "".
func (o *owners) of(client string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	if client != "" {
		return slices.Clone(o.rooms[client])
	}
	out := make([]string, 0, len(o.owner))
	for c := range o.owner {
		out = append(out, c)
	}
	return out
}

// overBound reports whether the codes tracked passed the bound.
func (o *owners) overBound() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.owner) > o.bound
}

// rebound sets the bound, after a check of every code, to twice the rooms
// still live (at least ownersBound).
func (o *owners) rebound() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.bound = max(ownersBound, 2*len(o.owner))
}

// streamGate counts open event streams, per client and in total.
type streamGate struct {
	total, perClient int

	mu      sync.Mutex
	open    int
	clients map[string]int
}

func newStreamGate(total, perClient int) *streamGate {
	return &streamGate{total: total, perClient: perClient, clients: map[string]int{}}
}

// acquire opens a stream for client; the reason is "" when it may, else
// which limit it hit. release must be called once the stream ends.
func (g *streamGate) acquire(client string) (release func(), reason string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case g.open >= g.total:
		return nil, refusedStreams
	case g.clients[client] >= g.perClient:
		return nil, refusedClientStreams
	}
	g.open++
	g.clients[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			g.mu.Lock()
			defer g.mu.Unlock()
			g.open--
			if g.clients[client]--; g.clients[client] == 0 {
				delete(g.clients, client)
			}
		})
	}, ""
}

// Reasons a room request is refused, as the summary line names them.
const (
	refusedCreateRate    = "create_rate"    // POST /rooms over the client's rate
	refusedCrossSite     = "cross_site"     // a room request from another site's page
	refusedRoomsFull     = "rooms_full"     // POST /rooms with the room table full
	refusedStreams       = "streams"        // an event stream over the server's cap
	refusedClientStreams = "client_streams" // an event stream over the client's cap
	refusedClientRooms   = "client_rooms"   // POST /rooms with the client's live rooms at their cap
	refusedUnavailable   = "unavailable"    // the room store did not answer
)

// refusals counts refused room requests between two summary lines.
type refusals struct {
	mu     sync.Mutex
	counts map[string]int
}

func (r *refusals) add(reason string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.counts == nil {
		r.counts = map[string]int{}
	}
	r.counts[reason]++
}

// report logs one line with the counts since the last report, if any, and
// starts counting again.
func (r *refusals) report(log *slog.Logger) {
	r.mu.Lock()
	counts := r.counts
	r.counts = nil
	r.mu.Unlock()
	if len(counts) == 0 {
		return
	}
	args := make([]any, 0, 2*len(counts))
	for _, k := range []string{refusedCreateRate, refusedClientRooms, refusedCrossSite, refusedRoomsFull, refusedStreams, refusedClientStreams, refusedUnavailable} {
		if n := counts[k]; n > 0 {
			args = append(args, k, n)
		}
	}
	log.Warn("rooms: requests refused in the last interval", args...)
}
