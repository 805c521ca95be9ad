package web

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/web/httperr"
)

// errorBody is the JSON error of the API and the rooms.
type errorBody struct {
	Error   string       `json:"error"`
	Param   string       `json:"param,omitempty"`
	Allowed string       `json:"allowed,omitempty"`
	Lessons []lessonJSON `json:"lessons,omitempty"`
}

// classify turns any error into an *httperr.Error: ours as they are (the
// room service turns its store's into ours), the engine's policy errors as
// bad parameters, echo's by status; anything else is internal.
func classify(err error) *httperr.Error {
	var e *httperr.Error
	var pe *sim.PolicyError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &e):
		return e
	case errors.As(err, &pe):
		allowed := pe.Allowed
		if pe.Missing {
			allowed += " (missing from the policy segment)"
		}
		return httperr.BadParam(pe.Param, allowed).(*httperr.Error)
	case errors.As(err, &he):
		switch he.Code {
		case http.StatusNotFound:
			return &httperr.Error{Code: httperr.NotFound, Msg: "page not found"}
		case http.StatusMethodNotAllowed:
			// handleError names the methods the route table has for the path.
			return &httperr.Error{Code: httperr.BadMethod, Param: "method", Msg: "method not allowed"}
		case http.StatusRequestEntityTooLarge:
			return &httperr.Error{Code: httperr.TooLarge, Param: "body", Allowed: "at most 64 KB", Msg: "request body too large"}
		}
		if he.Code >= 400 && he.Code < 500 {
			return &httperr.Error{Code: httperr.Invalid, Msg: http.StatusText(he.Code)}
		}
	}
	return &httperr.Error{Code: httperr.Internal, Msg: "internal error"}
}

// isAPI reports whether a path answers JSON: the frames API and the rooms.
func isAPI(path string) bool {
	return strings.HasPrefix(path, "/api/") || strings.HasPrefix(path, "/rooms")
}

// handleError is the one place errors become responses: JSON for the API
// and the rooms, an HTML page otherwise. Only 5xx are logged; a 500 shows
// no internals. The HTML error page is rendered into a buffer, and if that
// fails the pre-rendered 500 page is sent.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	e := classify(err)
	if e.Code == httperr.BadMethod {
		// The router found the path under other methods: its Allow header
		// (set by echo from the route table) is what the message names.
		allow, _ := c.Get(echo.ContextKeyHeaderAllow).(string)
		if allow != "" {
			c.Response().Header().Set(echo.HeaderAllow, allow)
		}
		e = &httperr.Error{Code: e.Code, Param: e.Param, Msg: e.Msg, Allowed: allow}
	}
	status := e.Code.Status()
	if status >= 500 && e.Code == httperr.Internal {
		s.log.Error("request failed", "path", c.Request().URL.Path, "err", err)
	}
	h := c.Response().Header()
	if e.Code == httperr.Unavailable || e.Code == httperr.TooMany {
		h.Set("Retry-After", strconv.Itoa(cmp.Or(e.RetryAfter, 60)))
		if e.Reload && !isAPI(c.Request().URL.Path) {
			h.Set("Refresh", strconv.Itoa(cmp.Or(e.RetryAfter, 60)))
		}
	}
	head := c.Request().Method == http.MethodHead // same headers as GET, no body
	body := errorBody{Error: e.Msg, Param: e.Param, Allowed: e.Allowed}
	path := c.Request().URL.Path
	if isAPI(path) {
		h.Set("Cache-Control", "no-store")
		if head {
			h.Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
			_ = c.NoContent(status)
			return
		}
		if e.Code == httperr.NotFound && strings.HasPrefix(path, "/api/") {
			body.Lessons = s.lessonsJSON()
		}
		_ = c.JSON(status, body)
		return
	}
	if head {
		h.Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
		_ = c.NoContent(status)
		return
	}
	lang := s.langOf(c)
	// A visitor who left (or whose deadline passed) keeps the status their
	// request earned: rendering the page under their cancelled context
	// would fail it and turn a 404 into a 500.
	buf, rerr := s.errorPage(context.WithoutCancel(c.Request().Context()), lang, status, e)
	if rerr != nil {
		s.log.Error("render error page", "err", rerr)
		buf = s.page500[lang]
		status = http.StatusInternalServerError
	}
	_ = c.HTMLBlob(status, buf)
}

// errorPage renders the error page of e in lang.
func (s *Server) errorPage(ctx context.Context, lang string, status int, e *httperr.Error) ([]byte, error) {
	ui := s.cat.For(lang)
	page := views.ErrorPage{Lang: lang, UI: ui, Status: status, Assets: s.assets.urls, Param: e.Param, Allowed: e.Allowed, Message: e.Msg}
	if e.Key != "" {
		page.Message = ui.F(e.Key, e.Args)
	}
	if e.Code == httperr.Internal {
		page.Message = ui.T("ui.error.internal")
	}
	for _, l := range s.lib().list {
		page.Lessons = append(page.Lessons, views.Link{Label: l.Title.In(lang), URL: "/" + lang + "/" + l.ID})
	}
	var buf bytes.Buffer
	if err := views.Error(page).Render(ctx, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// prerender500 renders the 500 page of every language at start-up, for
// when the error page itself fails.
func (s *Server) prerender500() error {
	s.page500 = map[string][]byte{}
	for _, lang := range languages() {
		b, err := s.errorPage(context.Background(), lang, http.StatusInternalServerError, &httperr.Error{Code: httperr.Internal})
		if err != nil {
			return err
		}
		s.page500[lang] = b
	}
	return nil
}

// discardLogger is used when no logger is given.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
