// Package rooms is the room service: a presenter opens a room and gets a
// short random code; anyone who opens /join/CODE follows the presenter's
// state live over Server-Sent Events. static/room.js is the browser side.
// A room holds only the presenter's current state URL, in a store.Store: in
// this process's memory (rooms end with the process) or in NATS (rooms
// outlive a server restart and are shared by every server on that NATS).
// The presenter's key is only compared with what the store holds: no
// request can take a code that is not its own. The routes are registered
// with the site's others, in web/routes.go; what a state URL is, is asked
// of the site (Config.CheckState).
package rooms

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"

	"ctxsim/web/hosts"
	"ctxsim/web/httperr"
	"ctxsim/web/internal/limit"
	"ctxsim/web/rooms/store"
)

const (
	roomHeartbeat = 15 * time.Second // an SSE comment keeps proxies and NAT tables from dropping a quiet stream
	roomRetryMS   = "1000"           // EventSource reconnect delay after a drop, in ms
	roomWriteWait = 10 * time.Second // one event write: a client that takes longer is dropped
	roomReport    = time.Minute      // how often refused requests are summed up in the log
)

// Config is what a Service is built from.
type Config struct {
	Store store.Store // where rooms live
	// Limits bound clients' rooms and event streams; zero fields take
	// DefaultLimits.
	Limits Limits
	// Trusted are the proxies whose X-Forwarded-Host counts as this site
	// (the same-origin check). The client address a request is limited by
	// is echo's RealIP, which the server sets up with the same proxies.
	Trusted []netip.Prefix
	// CheckState accepts only the canonical path of a lesson state the site
	// serves, in any view, and returns the state the audience follows: the
	// same path without its view (followers each keep the view they chose,
	// and never get the speaker notes).
	CheckState func(path string) (string, error)
	// Example is a state path for error messages ("" for none).
	Example string
	Log     *slog.Logger // where refusals are summed up; none when nil
}

// New is the room service over cfg.Store. Its routes are in
// web/routes.go.
func New(cfg Config) *Service {
	lim := limit.Defaults(cfg.Limits, DefaultLimits())
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: cfg.Store, heartbeat: roomHeartbeat, shutdowns: map[*http.Server]chan struct{}{}, lan: lanAddrs,
		creates: limit.NewRate(lim.CreateBurst, lim.CreateEvery, time.Now), streams: newStreamGate(lim.Streams, lim.ClientStreams),
		owners:  newOwners(lim.ClientRooms),
		proxies: hosts.Proxies(cfg.Trusted), follow: cfg.CheckState, example: cfg.Example, log: log}
}

// Service serves the rooms. It is safe for concurrent use.
type Service struct {
	store     store.Store
	heartbeat time.Duration
	follow    func(string) (string, error) // Config.CheckState
	example   string                       // a state URL, for error messages
	// lan lists this machine's addresses a classroom may reach it on.
	lan     func() []net.IP
	creates *limit.Rate   // POST /rooms per client
	owners  *owners       // the live rooms each client opened
	streams *streamGate   // open event streams
	proxies hosts.Proxies // proxies whose X-Forwarded-* headers count
	refused refusals
	log     *slog.Logger

	mu        sync.Mutex
	shutdowns map[*http.Server]chan struct{} // closed when that server shuts down
}

// ReportRefusals logs the refusals of each minute until ctx ends, and
// once more then.
func (rs *Service) ReportRefusals(ctx context.Context) {
	t := time.NewTicker(roomReport)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			rs.Report()
			return
		case <-t.C:
			rs.Report()
		}
	}
}

// Report logs one line with the refusals counted since the last report, if
// any, and starts counting again.
func (rs *Service) Report() { rs.refused.report(rs.log) }

// refuse counts a refusal and returns err.
func (rs *Service) refuse(reason string, err error) error {
	rs.refused.add(reason)
	return err
}

// checkOrigin refuses a room change asked by another site's page.
func (rs *Service) checkOrigin(c echo.Context) error {
	if r := c.Request(); !sameOrigin(r, rs.proxies.Asked(r)) {
		return rs.refuse(refusedCrossSite, &httperr.Error{Code: httperr.Forbidden, Param: "origin", Msg: "rooms are opened and changed from this site's own pages only"})
	}
	return nil
}

// roomJSON is a room in the API. Key is only ever sent to its creator.
type roomJSON struct {
	Code    string `json:"code"`
	Key     string `json:"key,omitempty"`
	JoinURL string `json:"join_url,omitempty"`
	// JoinURLs are every address the audience can join from: JoinURL
	// (the one the presenter used), then this machine's network addresses
	// where the server answers too. The presenter picks the one to show.
	JoinURLs []string `json:"join_urls,omitempty"`
	State    string   `json:"state"`
	// Seq counts the room's publishes: the event id of State on the
	// room's event stream.
	Seq uint64 `json:"seq,omitempty"`
}

// roomRequest is the body of POST, PUT and DELETE /rooms.
type roomRequest struct {
	Key   string `json:"key"`
	State string `json:"state"`
}

func roomCodeParam(c echo.Context) (string, error) {
	code, ok := store.ParseCode(c.Param("code"))
	if !ok {
		return "", httperr.BadParam("code", "6 characters of "+store.Alphabet)
	}
	return code, nil
}

// readRoomRequest decodes a JSON body; an empty one is allowed if optional.
func readRoomRequest(c echo.Context, in *roomRequest, optional bool) error {
	err := json.NewDecoder(c.Request().Body).Decode(in)
	if err == nil || optional && errors.Is(err, io.EOF) {
		return nil
	}
	return httperr.BadParam("body", `JSON {"key": "…", "state": "/en/…"}`)
}

func roomKeyParam(k string) error {
	if !store.ValidKey(k) {
		return httperr.BadParam("key", "the 32 hex digits that POST /rooms returned")
	}
	return nil
}

// checkState accepts only the canonical URL of a lesson state this site
// serves, and returns it without a view suffix: the audience follows the
// state, each in the view it chose, and never gets the speaker notes. The
// site parses the URL with the page routes' own parser
// (Config.CheckState), so non-canonical spellings that followers could
// not match are turned away.
func (rs *Service) checkState(v string) (string, error) {
	bad := httperr.BadParam("state", "the path of a lesson state, like "+rs.example)
	if len(v) > 1024 || !strings.HasPrefix(v, "/") {
		return "", bad
	}
	follow, err := rs.follow(v)
	if err != nil {
		return "", bad
	}
	return follow, nil
}

// Create opens a room: same-origin requests only, a few per client, and
// none while the room table is full.
func (rs *Service) Create(c echo.Context) error {
	ctx := c.Request().Context()
	if err := rs.checkOrigin(c); err != nil {
		return err
	}
	var in roomRequest
	if err := readRoomRequest(c, &in, true); err != nil {
		return err
	}
	var state string
	if in.State != "" {
		var err error
		if state, err = rs.checkState(in.State); err != nil {
			return err
		}
	}
	client := clientOf(c)
	if ok, wait := rs.creates.Allow(client); !ok {
		return rs.refuse(refusedCreateRate, &httperr.Error{Code: httperr.TooMany, Msg: "too many rooms opened from this address, try again later",
			RetryAfter: int(wait.Seconds()) + 1})
	}
	if !rs.reserveRoom(ctx, client) {
		return rs.refuse(refusedClientRooms, &httperr.Error{Code: httperr.TooMany, RetryAfter: clientRoomsRetryAfter,
			Msg: "too many open rooms opened from this address: end one (DELETE /rooms/{code}) or try again later"})
	}
	code, key, err := rs.store.Create(ctx)
	rs.owners.settle(client, code)
	if err != nil {
		rs.creates.Refund(client)
		return rs.storeErr(err)
	}
	var st store.State
	if state != "" {
		if st, err = rs.store.Publish(ctx, code, key, state); err != nil {
			return rs.storeErr(err)
		}
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Location", "/rooms/"+code)
	urls := rs.joinURLs(c, code)
	return c.JSON(http.StatusCreated, roomJSON{Code: code, Key: key, JoinURL: urls[0], JoinURLs: urls, State: st.URL, Seq: st.Seq})
}

// clientRoomsRetryAfter is the Retry-After, in seconds, of a client at its
// cap of live rooms: one may end or expire any time.
const clientRoomsRetryAfter = 60

// reserveRoom takes a place among client's live rooms for one more. At the
// cap, the client's rooms are checked against the store first: those that
// ended (closed, expired, lost) free their places. When the rooms of all
// clients tracked pass their bound, every one is checked.
func (rs *Service) reserveRoom(ctx context.Context, client string) bool {
	if rs.owners.overBound() {
		rs.forgetEnded(ctx, rs.owners.of(""))
		rs.owners.rebound()
	}
	if rs.owners.reserve(client) {
		return true
	}
	rs.forgetEnded(ctx, rs.owners.of(client))
	return rs.owners.reserve(client)
}

// forgetEnded drops the codes of rooms the store no longer holds.
func (rs *Service) forgetEnded(ctx context.Context, codes []string) {
	for _, code := range codes {
		if _, err := rs.store.Current(ctx, code); errors.Is(err, store.ErrNoRoom) {
			rs.owners.drop(code)
		}
	}
}

// joinURLs are the addresses an audience can join a room from: the one
// the presenter used, then each network address of this machine on which
// the server answers too (a presenter on localhost needs one of those for
// a class; a server listening on localhost only has none).
func (rs *Service) joinURLs(c echo.Context, code string) []string {
	path := "/join/" + code
	out := []string{c.Scheme() + "://" + rs.proxies.Asked(c.Request()) + path}
	local, ok := c.Request().Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok {
		return out
	}
	_, port, err := net.SplitHostPort(local.String())
	if err != nil {
		return out
	}
	for _, ip := range rs.lan() {
		hostport := net.JoinHostPort(ip.String(), port)
		if strings.Contains(out[0], "://"+hostport+"/") || !answers(hostport) {
			continue
		}
		out = append(out, c.Scheme()+"://"+hostport+path)
		if len(out) == maxJoinURLs {
			break
		}
	}
	return out
}

// maxJoinURLs bounds the addresses a room offers (and the probes it makes).
const maxJoinURLs = 5

// answers reports whether something accepts connections at hostport: the
// server itself, when it listens on that address.
func answers(hostport string) bool {
	conn, err := net.DialTimeout("tcp", hostport, 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// lanAddrs are this machine's IPv4 addresses other than loopback and
// link-local ones.
func lanAddrs() []net.IP {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return nil
	}
	var out []net.IP
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			out = append(out, n.IP)
		}
	}
	return out
}

// Health is nil when rooms can be used now; it waits at most a second.
func (rs *Service) Health(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	return rs.store.Health(ctx)
}

// Current answers the room's current state: {code, state, seq}.
func (rs *Service) Current(c echo.Context) error {
	code, err := roomCodeParam(c)
	if err != nil {
		return err
	}
	st, err := rs.current(c.Request().Context(), code)
	if err != nil {
		return rs.storeErr(err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, roomJSON{Code: code, State: st.URL, Seq: st.Seq})
}

// keyedRequest reads the room code and a presenter's request, which must
// carry a well-formed key.
func keyedRequest(c echo.Context) (string, roomRequest, error) {
	var in roomRequest
	code, err := roomCodeParam(c)
	if err != nil {
		return "", in, err
	}
	if err := readRoomRequest(c, &in, false); err != nil {
		return "", in, err
	}
	return code, in, roomKeyParam(in.Key)
}

// Publish sets the room's state. A room that is gone (closed, expired, or
// ended with the process that held it) stays gone: 404.
func (rs *Service) Publish(c echo.Context) error {
	ctx := c.Request().Context()
	if err := rs.checkOrigin(c); err != nil {
		return err
	}
	code, in, err := keyedRequest(c)
	if err != nil {
		return err
	}
	state, err := rs.checkState(in.State)
	if err != nil {
		return err
	}
	st, err := rs.store.Publish(ctx, code, in.Key, state)
	if err != nil {
		return rs.storeErr(err)
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, roomJSON{Code: code, State: st.URL, Seq: st.Seq})
}

// End closes the room for everyone: the presenter's {key}.
func (rs *Service) End(c echo.Context) error {
	if err := rs.checkOrigin(c); err != nil {
		return err
	}
	code, in, err := keyedRequest(c)
	if err != nil {
		return err
	}
	if err := rs.store.Close(c.Request().Context(), code, in.Key); err != nil {
		return rs.storeErr(err)
	}
	rs.owners.drop(code)
	return c.NoContent(http.StatusNoContent)
}

// Join sends a member of the audience to the presenter's state. The
// fragment tells room.js which room to follow; it never reaches a server.
func (rs *Service) Join(c echo.Context) error {
	code, err := roomCodeParam(c)
	if err != nil {
		return err
	}
	st, err := rs.current(c.Request().Context(), code)
	if errors.Is(err, store.ErrNoRoom) {
		return httperr.NoSuch("room " + httperr.Quote(code))
	} else if err != nil {
		return rs.storeErr(err)
	}
	state := st.URL
	if state == "" {
		state = "/" // the presenter has not shown a lesson yet: wait on the index
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Redirect(http.StatusFound, state+"#follow="+code)
}

// current is the room's state. A room whose state is a page that is gone
// (an uploaded session, forgotten or expired) is gone with it: ErrNoRoom.
func (rs *Service) current(ctx context.Context, code string) (store.State, error) {
	st, err := rs.store.Current(ctx, code)
	if err != nil || st.URL == "" {
		return st, err
	}
	var he *httperr.Error
	if _, ferr := rs.follow(st.URL); errors.As(ferr, &he) && he.Code == httperr.NotFound {
		return store.State{}, store.ErrNoRoom
	}
	return st, nil
}

// storeErr counts the store's refusals (full, unavailable) and returns
// the error a client gets for each of the store's errors.
func (rs *Service) storeErr(err error) error {
	switch {
	case errors.Is(err, store.ErrNoRoom):
		return &httperr.Error{Code: httperr.NotFound, Msg: store.ErrNoRoom.Error()}
	case errors.Is(err, store.ErrRoomKey):
		return &httperr.Error{Code: httperr.Forbidden, Param: "key", Msg: store.ErrRoomKey.Error()}
	case errors.Is(err, store.ErrRoomsFull):
		rs.refused.add(refusedRoomsFull)
		return &httperr.Error{Code: httperr.Unavailable, Msg: "too many open rooms, try again later"}
	case errors.Is(err, store.ErrUnavailable):
		rs.refused.add(refusedUnavailable)
		return &httperr.Error{Code: httperr.Unavailable, Msg: "rooms are unavailable for a moment, try again", RetryAfter: 2}
	}
	return err
}

// streamRetryAfter is the Retry-After of a refused event stream, in seconds.
const streamRetryAfter = 10

// Events streams the room's states: the current one first (unless the
// client says, with Last-Event-ID, that it has it), then one event per
// publish, each with its id, a comment every heartbeat, and "closed" when
// the presenter ends the room. On a server shutdown the stream just ends,
// so clients reconnect (retry: 1000) to the next server. Streams are
// capped per client and in total: 429 with Retry-After.
func (rs *Service) Events(c echo.Context) error {
	code, err := roomCodeParam(c)
	if err != nil {
		return err
	}
	if c.Request().Method == http.MethodHead {
		return rs.eventsHead(c, code)
	}
	release, reason := rs.streams.acquire(clientOf(c))
	if reason != "" {
		return rs.refuse(reason, &httperr.Error{Code: httperr.TooMany, Msg: "too many open event streams, try again later", RetryAfter: streamRetryAfter})
	}
	defer release()
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	if _, err := rs.current(ctx, code); errors.Is(err, store.ErrNoRoom) {
		return rs.storeErr(err) // gone, or showing a page that is
	}
	states, err := rs.store.Subscribe(ctx, code)
	if err != nil {
		return rs.storeErr(err)
	}
	have, _ := strconv.ParseUint(c.Request().Header.Get("Last-Event-ID"), 10, 64)
	res := c.Response()
	rc := http.NewResponseController(res)
	streamHeaders(res.Header())
	// The server's WriteTimeout (30 s) is meant for pages and would cut the
	// stream: lift it; each write gets its own deadline below. (net/http
	// already lifts the read deadline while a handler runs after the body.)
	_ = rc.SetWriteDeadline(time.Time{})
	res.WriteHeader(http.StatusOK)
	send := func(msg string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(roomWriteWait))
		if _, err := io.WriteString(res, msg); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send("retry: " + roomRetryMS + "\n\n") {
		return nil
	}
	beat := time.NewTicker(rs.heartbeat)
	defer beat.Stop()
	shutdown := rs.shutdownSignal(c.Request())
	for {
		select {
		case st, ok := <-states:
			if !ok {
				if ctx.Err() == nil {
					send("event: closed\ndata: " + code + "\n\n")
				}
				return nil
			}
			if st.Seq == have {
				continue // the client had it when it reconnected
			}
			if !send("id: " + strconv.FormatUint(st.Seq, 10) + "\nevent: state\ndata: " + st.URL + "\n\n") {
				return nil
			}
		case <-beat.C:
			if !send(": keep-alive\n\n") {
				return nil
			}
		case <-shutdown:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}

// eventsHead answers HEAD on a room's event stream as GET would start it
// (its status and headers) without opening a stream: 404 for a room that
// is not there.
func (rs *Service) eventsHead(c echo.Context, code string) error {
	if _, err := rs.store.Current(c.Request().Context(), code); err != nil {
		return rs.storeErr(err)
	}
	streamHeaders(c.Response().Header())
	return c.NoContent(http.StatusOK)
}

// streamHeaders are the headers of an event stream.
func streamHeaders(h http.Header) {
	h.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
}

// shutdownSignal returns a channel closed when the http.Server serving r
// shuts down: http.Server.Shutdown waits for open requests, and an event
// stream never ends by itself. It registers one hook per server.
func (rs *Service) shutdownSignal(r *http.Request) <-chan struct{} {
	srv, _ := r.Context().Value(http.ServerContextKey).(*http.Server)
	if srv == nil {
		return nil // never ready
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	ch, ok := rs.shutdowns[srv]
	if !ok {
		ch = make(chan struct{})
		rs.shutdowns[srv] = ch
		srv.RegisterOnShutdown(func() {
			rs.mu.Lock()
			defer rs.mu.Unlock()
			close(ch)
			delete(rs.shutdowns, srv)
		})
	}
	return ch
}
