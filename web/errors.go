package web

import (
	"bytes"
	"errors"
	"log/slog"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"

	"ctxsim/views"
)

// ParamError is a URL parameter whose value is not allowed (HTTP 400).
type ParamError struct {
	Param   string
	Allowed string
}

// Error names the parameter and what it allows.
func (e *ParamError) Error() string {
	return "parameter " + e.Param + ": allowed " + e.Allowed
}

func badParam(name, allowed string) error { return &ParamError{Param: name, Allowed: allowed} }

// NotFoundError is a lesson or page that does not exist (HTTP 404).
type NotFoundError struct {
	What string // e.g. `lesson "nope"`
}

// Error says what was not found.
func (e *NotFoundError) Error() string { return e.What + " not found" }

// errorBody is the JSON error of the API.
type errorBody struct {
	Error   string       `json:"error"`
	Param   string       `json:"param,omitempty"`
	Allowed string       `json:"allowed,omitempty"`
	Lessons []lessonJSON `json:"lessons,omitempty"`
}

// handleError is the one place errors become responses. Bad input gets 400 or
// 404 with what is allowed; anything else is a 500 that shows no internals
// and is the only kind logged.
func (s *Server) handleError(err error, c echo.Context) {
	if c.Response().Committed {
		return
	}
	status, body := s.classify(err)
	if status >= 500 {
		s.log.Error("request failed", "path", c.Request().URL.Path, "err", err)
	}
	if c.Request().Method == http.MethodHead {
		_ = c.NoContent(status)
		return
	}
	if strings.HasPrefix(c.Request().URL.Path, "/api/") {
		_ = c.JSON(status, body)
		return
	}
	lang := s.langOf(c)
	page := views.ErrorPage{
		Lang: lang, UI: views.UIFor(lang), Status: status, Assets: s.assets.urls,
		Param: body.Param, Allowed: body.Allowed, Message: body.Error,
	}
	for _, l := range s.lessons.list {
		page.Lessons = append(page.Lessons, views.Link{Label: l.Title.In(lang), URL: "/" + lang + "/" + l.ID})
	}
	var buf bytes.Buffer
	if rerr := views.Error(page).Render(c.Request().Context(), &buf); rerr != nil {
		s.log.Error("render error page", "err", rerr)
		_ = c.String(status, body.Error)
		return
	}
	_ = c.HTMLBlob(status, buf.Bytes())
}

func (s *Server) classify(err error) (int, errorBody) {
	var pe *ParamError
	var nf *NotFoundError
	var he *echo.HTTPError
	switch {
	case errors.As(err, &pe):
		return http.StatusBadRequest, errorBody{Error: pe.Error(), Param: pe.Param, Allowed: pe.Allowed}
	case errors.As(err, &nf):
		return http.StatusNotFound, errorBody{Error: nf.Error(), Lessons: s.lessonsJSON()}
	case errors.As(err, &he):
		msg := http.StatusText(he.Code)
		if he.Code == http.StatusNotFound {
			return he.Code, errorBody{Error: "page not found", Lessons: s.lessonsJSON()}
		}
		return he.Code, errorBody{Error: msg}
	default:
		return http.StatusInternalServerError, errorBody{Error: "internal error"}
	}
}

// discardLogger is used when no logger is given.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
