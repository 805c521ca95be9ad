package web

// Rooms: a presenter opens a room and gets a short code; anyone who opens
// /join/CODE follows the presenter's state live over Server-Sent Events.
// static/room.js is the browser side. A room holds only the presenter's
// current state URL, so after a network drop or a restart the presenter
// page re-publishes it and the audience lands on it again.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
)

const (
	roomTTL       = 2 * time.Hour    // a room with nobody attached expires this long after its last publish or subscriber
	roomLimit     = 10_000           // live rooms per process
	roomHeartbeat = 15 * time.Second // an SSE comment keeps proxies and NAT tables from dropping a quiet stream
	roomRetryMS   = "1000"           // EventSource reconnect delay after a drop, in ms
	roomWriteWait = 10 * time.Second // one event write: a client that takes longer is dropped
)

// roomRoutes registers the presenter-room and audience-follow routes. The
// store lives as long as e: handlers hold it, no global does.
func (s *Server) roomRoutes(e *echo.Echo) {
	s.mountRooms(e, newMemoryRooms(time.Now, roomTTL, roomLimit), e)
}

// mountRooms registers the room routes on e with store. pages serves the
// lesson pages: a published state must be one of them.
func (s *Server) mountRooms(e *echo.Echo, store RoomStore, pages http.Handler) *roomService {
	rs := &roomService{s: s, store: store, pages: pages, heartbeat: roomHeartbeat, shutdowns: map[*http.Server]chan struct{}{}}
	if len(s.lessons.list) > 0 {
		l := s.lessons.list[0]
		rs.example = LessonURL(l.Lesson, State{Lang: "en", Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1})
	}
	e.POST("/rooms", rs.api(rs.create))             // presenter: open a room → {code, key, join_url, state}
	e.GET("/rooms/:code", rs.api(rs.current))       // the room's current state: {code, state}
	e.PUT("/rooms/:code", rs.api(rs.publish))       // presenter: {key, state}; re-creates a room lost in a restart
	e.DELETE("/rooms/:code", rs.api(rs.close))      // presenter: {key}; ends the room for everyone
	e.GET("/rooms/:code/events", rs.api(rs.events)) // audience: text/event-stream, one "state" event per publish
	e.GET("/join/:code", rs.join)                   // audience: redirect to the current state + #follow=CODE
	return rs
}

type roomService struct {
	s         *Server
	store     RoomStore
	pages     http.Handler
	heartbeat time.Duration
	example   string // a state URL, for error messages

	mu        sync.Mutex
	shutdowns map[*http.Server]chan struct{} // closed when that server shuts down
}

// roomJSON is a room in the API. Key is only ever sent to its creator.
type roomJSON struct {
	Code    string `json:"code"`
	Key     string `json:"key,omitempty"`
	JoinURL string `json:"join_url,omitempty"`
	State   string `json:"state"`
}

// roomRequest is the body of POST, PUT and DELETE /rooms.
type roomRequest struct {
	Key   string `json:"key"`
	State string `json:"state"`
}

// api answers a room API error with a JSON body, like /api/ does.
func (rs *roomService) api(h echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		err := h(c)
		if err == nil || c.Response().Committed {
			return err
		}
		status, body := rs.classify(err)
		if status >= 500 {
			rs.s.log.Error("room request failed", "path", c.Request().URL.Path, "err", err)
		}
		hdr := c.Response().Header()
		hdr.Set("Cache-Control", "no-store")
		if status == http.StatusServiceUnavailable {
			hdr.Set("Retry-After", "60")
		}
		return c.JSON(status, body)
	}
}

func (rs *roomService) classify(err error) (int, errorBody) {
	switch {
	case errors.Is(err, ErrNoRoom):
		return http.StatusNotFound, errorBody{Error: err.Error()}
	case errors.Is(err, ErrRoomKey):
		return http.StatusForbidden, errorBody{Error: ErrRoomKey.Error(), Param: "key"}
	case errors.Is(err, ErrRoomsFull):
		return http.StatusServiceUnavailable, errorBody{Error: "too many open rooms, try again later"}
	}
	status, body := rs.s.classify(err)
	body.Lessons = nil
	return status, body
}

func roomCodeParam(c echo.Context) (string, error) {
	code, ok := parseRoomCode(c.Param("code"))
	if !ok {
		return "", badParam("code", "6 characters of "+roomAlphabet)
	}
	return code, nil
}

// readRoomRequest decodes a JSON body; an empty one is allowed if optional.
func readRoomRequest(c echo.Context, in *roomRequest, optional bool) error {
	err := json.NewDecoder(c.Request().Body).Decode(in)
	if err == nil || optional && errors.Is(err, io.EOF) {
		return nil
	}
	return badParam("body", `JSON {"key": "…", "state": "/en/…"}`)
}

func roomKeyParam(k string) error {
	if !validRoomKey(k) {
		return badParam("key", "the 32 hex digits that POST /rooms returned")
	}
	return nil
}

// roomStatePath is the shape of a lesson state URL (LessonURL), view
// included; group 1 is the state without its view.
var roomStatePath = regexp.MustCompile(`^(/[a-z]{2}/[a-z0-9][a-z0-9-]{0,63}/[a-z0-9.-]{1,200}(?:/vs/[a-z0-9.-]{1,200})?/[1-9][0-9]{0,5})(?:/(?:` +
	ViewPresent + `|` + ViewNotes + `))?$`)

// checkState accepts only the canonical URL of a lesson state this site
// serves, and returns it without a view suffix: the audience follows the
// state, each in the view it chose, and never gets the speaker notes.
// Rather than re-implement the lesson routes, it asks them: the page must
// answer 200 and name itself by the same URL (data-state-url), which also
// turns away non-canonical spellings that followers could not match.
func (rs *roomService) checkState(ctx context.Context, v string) (string, error) {
	bad := badParam("state", "the path of a lesson state, like "+rs.example)
	m := roomStatePath.FindStringSubmatch(v)
	if m == nil {
		return "", bad
	}
	state := m[1]
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, state, nil)
	if err != nil {
		return "", bad
	}
	w := &probeWriter{header: http.Header{}}
	rs.pages.ServeHTTP(w, req)
	if w.status != http.StatusOK || !bytes.Contains(w.body.Bytes(), []byte(`data-state-url="`+state+`"`)) {
		return "", bad
	}
	return state, nil
}

// probeWriter records the status and body of an in-process request.
type probeWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *probeWriter) Header() http.Header { return w.header }

func (w *probeWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *probeWriter) Write(b []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(b)
}

func (rs *roomService) create(c echo.Context) error {
	ctx := c.Request().Context()
	var in roomRequest
	if err := readRoomRequest(c, &in, true); err != nil {
		return err
	}
	var state string
	if in.State != "" {
		var err error
		if state, err = rs.checkState(ctx, in.State); err != nil {
			return err
		}
	}
	code, key, err := rs.store.Create(ctx)
	if err != nil {
		return err
	}
	if state != "" {
		if err := rs.store.Publish(ctx, code, key, state); err != nil {
			return err
		}
	}
	h := c.Response().Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Location", "/rooms/"+code)
	return c.JSON(http.StatusCreated, roomJSON{Code: code, Key: key, JoinURL: c.Scheme() + "://" + c.Request().Host + "/join/" + code, State: state})
}

func (rs *roomService) current(c echo.Context) error {
	code, err := roomCodeParam(c)
	if err != nil {
		return err
	}
	state, err := rs.store.Current(c.Request().Context(), code)
	if err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, roomJSON{Code: code, State: state})
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

func (rs *roomService) publish(c echo.Context) error {
	ctx := c.Request().Context()
	code, in, err := keyedRequest(c)
	if err != nil {
		return err
	}
	state, err := rs.checkState(ctx, in.State)
	if err != nil {
		return err
	}
	if err := rs.store.Ensure(ctx, code, in.Key, state); err != nil {
		return err
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.JSON(http.StatusOK, roomJSON{Code: code, State: state})
}

func (rs *roomService) close(c echo.Context) error {
	code, in, err := keyedRequest(c)
	if err != nil {
		return err
	}
	if err := rs.store.Close(c.Request().Context(), code, in.Key); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// join sends a member of the audience to the presenter's state. The
// fragment tells room.js which room to follow; it never reaches a server.
func (rs *roomService) join(c echo.Context) error {
	code, err := roomCodeParam(c)
	if err != nil {
		return err
	}
	state, err := rs.store.Current(c.Request().Context(), code)
	if errors.Is(err, ErrNoRoom) {
		return &NotFoundError{What: "room " + quote(code)}
	} else if err != nil {
		return err
	}
	if state == "" {
		state = "/" // the presenter has not shown a lesson yet: wait on the index
	}
	c.Response().Header().Set("Cache-Control", "no-store")
	return c.Redirect(http.StatusFound, state+"#follow="+code)
}

// isEventStream reports whether path is a room's event stream, which must
// not be gzipped: each event has to leave the server at once.
func isEventStream(path string) bool {
	return strings.HasPrefix(path, "/rooms/") && strings.HasSuffix(path, "/events")
}

// events streams the room's states: the current one first, then one event
// per publish, a comment every heartbeat, and "closed" when the presenter
// ends the room. On a server shutdown the stream just ends, so clients
// reconnect (retry: 1000) to the next server.
func (rs *roomService) events(c echo.Context) error {
	code, err := roomCodeParam(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(c.Request().Context())
	defer cancel()
	states, err := rs.store.Subscribe(ctx, code)
	if err != nil {
		return err
	}
	res := c.Response()
	rc := http.NewResponseController(res)
	// The server's WriteTimeout (30 s) is meant for pages and would cut the
	// stream: lift it; each write gets its own deadline below. (net/http
	// already lifts the read deadline while a handler runs after the body.)
	_ = rc.SetWriteDeadline(time.Time{})
	h := res.Header()
	h.Set(echo.HeaderContentType, "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // nginx: do not buffer the stream
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
		case state, ok := <-states:
			if !ok {
				if ctx.Err() == nil {
					send("event: closed\ndata: " + code + "\n\n")
				}
				return nil
			}
			if !send("event: state\ndata: " + state + "\n\n") {
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

// shutdownSignal returns a channel closed when the http.Server serving r
// shuts down: http.Server.Shutdown waits for open requests, and an event
// stream never ends by itself. It registers one hook per server.
func (rs *roomService) shutdownSignal(r *http.Request) <-chan struct{} {
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
