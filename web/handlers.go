package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"ctxsim/scenarios"
	"ctxsim/web/httperr"
	"ctxsim/web/page"
	"ctxsim/web/uploads"
)

// healthz answers 200 while the server serves lessons, for supervisors
// and load balancers, with what works: {"lessons": "ok", "rooms": "ok"},
// rooms "unavailable" while the room store cannot be used (NATS down, or
// its bucket being made again after NATS lost it).
func (s *Server) healthz(c echo.Context) error {
	rooms := "ok"
	if err := s.rooms.Health(c.Request().Context()); err != nil {
		rooms = "unavailable"
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
	return c.JSON(http.StatusOK, healthJSON{Lessons: "ok", Rooms: rooms})
}

// healthJSON is the body of /healthz.
type healthJSON struct {
	Lessons string `json:"lessons"`
	Rooms   string `json:"rooms"`
}

// index lists the lessons in the visitor's language. /en and /ja name it;
// "/" resolves it from the cookie or Accept-Language, so it varies on
// those, and shares the page of the language it resolves to.
func (s *Server) index(c echo.Context) error {
	lang := s.langOf(c)
	vary := varyCoding + ", Accept-Language, Cookie"
	if c.Param("lang") != "" {
		rememberLang(c, lang)
		vary = varyCoding
	}
	if len(s.lib().pending) > 0 {
		// Not kept: the list changes as each pending lesson joins.
		comp, err := s.pages.Index(lang, s.lib().list, s.lib().pending)
		if err != nil {
			return err
		}
		raw, err := s.renderPage(c.Request().Context(), comp)
		if err != nil {
			return err
		}
		c.Response().Header().Set(echo.HeaderCacheControl, "no-store")
		return writeBody(c, newBody(raw, echo.MIMETextHTMLCharsetUTF8, s.caches.zip), vary)
	}
	return s.servePage(c, "/"+lang, vary, func() (templ.Component, error) {
		lib := s.lib()
		return s.pages.Index(lang, lib.list, lib.pending)
	})
}

// langOrLesson serves /en and /ja as the index, and sends /<lesson> to the
// lesson in the visitor's language.
func (s *Server) langOrLesson(c echo.Context) error {
	v := c.Param("lang")
	if slices.Contains(languages(), v) {
		return s.index(c)
	}
	if l, ok := s.lib().byID[v]; ok {
		return c.Redirect(http.StatusFound, firstStep(s.langOf(c), l))
	}
	if uploads.IsID(v) {
		l, err := s.lesson(v)
		if err != nil {
			return err
		}
		return c.Redirect(http.StatusFound, firstStep(s.langOf(c), l))
	}
	if err := s.preparing(s.lib(), v); err != nil {
		return err
	}
	return httperr.NoSuch("page " + httperr.Quote(v))
}

// lessonStart redirects to step 1 of the default or the given policy.
func (s *Server) lessonStart(c echo.Context) error {
	lang, l, err := s.langAndLesson(c.Param("lang"), c.Param("lesson"))
	if err != nil {
		return err
	}
	p := l.DefaultPolicy()
	if seg := c.Param("policy"); seg != "" {
		if p, err = l.ParsePolicy(seg); err != nil {
			return err
		}
	}
	if p, err = ApplyQuery(l.Lesson, p, c.QueryParams()); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}))
}

// lessonState serves one state of a lesson in any of its views: the page,
// the presenter view, the speaker notes, or a comparison of two policies.
// Policy parameters given as a query (?threshold=73, from a form or a
// hand-typed link) redirect to the canonical path. A canonical path with
// no query is answered from the page cache without parsing it again.
func (s *Server) lessonState(c echo.Context) error {
	if b, ok := s.cachedPage(c); ok {
		rememberLang(c, c.Param("lang"))
		return writeBody(c, b, varyCoding)
	}
	st, l, err := s.ParseStateURL(c.Request().URL.Path)
	if err != nil {
		return err
	}
	if q := c.QueryParams(); q.Has("step") {
		return s.redirectStep(c, l, st, q["step"])
	} else if st.Compare == nil && HasPolicyQuery(l.Lesson, q) {
		return s.redirectQuery(c, l, st, q)
	}
	rememberLang(c, st.Lang)
	build := func() (templ.Component, error) { return s.pages.Page(l, st) }
	if u := s.localUpload(l); u != nil {
		// The projector and the speaker notes show the lesson alone.
		return s.serveUpload(c, u, st.Lang, page.LessonURL(st), st.View == "", build)
	}
	return s.servePage(c, page.LessonURL(st), varyCoding, build)
}

// redirectStep sends ?step=N (the step bar's jump field) to step N of the
// same state.
func (s *Server) redirectStep(c echo.Context, l *scenarios.Lesson, st page.State, v []string) error {
	n, err := s.pages.Positions(l, st)
	if err != nil {
		return err
	}
	if len(v) != 1 {
		return httperr.BadParam("step", fmt.Sprintf("an integer from 1 to %d", n))
	}
	if st.Step, err = ParseStep(strings.TrimSpace(v[0]), n); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, page.LessonURL(st))
}

// redirectQuery sends a state with policy parameters in its query to the
// canonical path of that policy, at the same point of the trace.
func (s *Server) redirectQuery(c echo.Context, l *scenarios.Lesson, st page.State, q url.Values) error {
	np, err := ApplyQuery(l.Lesson, st.Policy, q)
	if err != nil {
		return err
	}
	if st.Step, err = s.pages.SamePoint(l, st, np); err != nil {
		return err
	}
	st.Policy = np
	return c.Redirect(http.StatusFound, page.LessonURL(st))
}

// handout serves the printable handout of a lesson under one policy.
func (s *Server) handout(c echo.Context) error {
	if b, ok := s.cachedPage(c); ok {
		return writeBody(c, b, varyCoding)
	}
	lang, l, err := s.langAndLesson(c.Param("lang"), c.Param("lesson"))
	if err != nil {
		return err
	}
	p, err := l.ParsePolicy(c.Param("policy"))
	if err != nil {
		return err
	}
	st := page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}
	build := func() (templ.Component, error) { return s.pages.Handout(l, st) }
	if u := s.localUpload(l); u != nil {
		return s.serveUpload(c, u, lang, page.HandoutURL(st), true, build)
	}
	return s.servePage(c, page.HandoutURL(st), varyCoding, build)
}
