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
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/web/httperr"
)

func (s *Server) healthz(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }

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
		comp, err := s.indexView(lang)
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
	return s.servePage(c, "/"+lang, vary, func() (templ.Component, error) { return s.indexView(lang) })
}

// indexView builds the lesson list in lang.
func (s *Server) indexView(lang string) (templ.Component, error) {
	ui := s.cat.For(lang)
	p := views.IndexPage{Lang: lang, UI: ui, Assets: s.assets.urls,
		AltLang: views.Link{Label: ui.T("ui.other-lang"), URL: "/" + otherLang(lang) + "/"}}
	lib := s.lib()
	if len(lib.pending) > 0 {
		p.Preparing = ui.F("ui.preparing", map[string]string{"ids": strings.Join(lib.pending, ", ")})
	}
	for _, l := range lib.list {
		r, err := s.run(l, l.DefaultPolicy())
		if err != nil {
			return nil, err
		}
		st := State{Lang: lang, Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}
		intro := s.about(l, st, r, "about:intro")
		p.Lessons = append(p.Lessons, views.LessonCard{
			Title: l.Title.In(lang), URL: LessonURL(st), Intro: intro.Body,
			Steps: ui.F("ui.steps", map[string]string{"n": itoa(len(r.Frames))}),
		})
	}
	return views.Index(p), nil
}

// langOrLesson serves /en and /ja as the index, and sends /<lesson> to the
// lesson in the visitor's language.
func (s *Server) langOrLesson(c echo.Context) error {
	v := c.Param("lang")
	if slices.Contains(languages(), v) {
		return s.index(c)
	}
	if l, ok := s.lib().byID[v]; ok {
		return c.Redirect(http.StatusFound, LessonURL(State{Lang: s.langOf(c), Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}))
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
	return c.Redirect(http.StatusFound, LessonURL(State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}))
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
	return s.servePage(c, LessonURL(st), varyCoding, func() (templ.Component, error) { return s.stateView(l, st) })
}

// redirectStep sends ?step=N (the step bar's jump field) to step N of the
// same state.
func (s *Server) redirectStep(c echo.Context, l *scenarios.Lesson, st State, v []string) error {
	ra, err := s.run(l, st.Policy)
	if err != nil {
		return err
	}
	n := len(ra.Frames)
	if st.Compare != nil {
		rb, err := s.run(l, *st.Compare)
		if err != nil {
			return err
		}
		n = len(s.timeline(ra, rb))
	}
	if len(v) != 1 {
		return httperr.BadParam("step", fmt.Sprintf("an integer from 1 to %d", n))
	}
	if st.Step, err = ParseStep(strings.TrimSpace(v[0]), n); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, LessonURL(st))
}

// redirectQuery sends a state with policy parameters in its query to the
// canonical path of that policy, at the same point of the trace.
func (s *Server) redirectQuery(c echo.Context, l *scenarios.Lesson, st State, q url.Values) error {
	ra, err := s.run(l, st.Policy)
	if err != nil {
		return err
	}
	np, err := ApplyQuery(l.Lesson, st.Policy, q)
	if err != nil {
		return err
	}
	to, err := s.outline(l, np)
	if err != nil {
		return err
	}
	st.Policy, st.Step = np, alignStep(ra.Frames, ra.Frames[st.Step-1], to)
	return c.Redirect(http.StatusFound, LessonURL(st))
}

// stateView builds the page of one state in its view.
func (s *Server) stateView(l *scenarios.Lesson, st State) (templ.Component, error) {
	ra, err := s.run(l, st.Policy)
	if err != nil {
		return nil, err
	}
	in := pageInput{lesson: l, state: st, run: ra}
	if st.Compare != nil {
		return s.compareView(in)
	}
	switch st.View {
	case ViewPresent:
		page, err := s.presentPage(in)
		return views.Present(page), err
	case ViewNotes:
		page, err := s.notesPage(in)
		return views.Notes(page), err
	}
	page, err := s.lessonPage(in)
	return views.Lesson(page), err
}

// compareView builds two policies side by side at one position of their
// aligned timeline.
func (s *Server) compareView(in pageInput) (templ.Component, error) {
	rb, err := s.run(in.lesson, *in.state.Compare)
	if err != nil {
		return nil, err
	}
	cp, pp, err := s.comparePage(in, rb)
	if err != nil {
		return nil, err
	}
	if pp != nil {
		return views.Present(*pp), nil
	}
	return views.Compare(cp), nil
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
	st := State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}
	return s.servePage(c, handoutURL(st), varyCoding, func() (templ.Component, error) {
		r, err := s.run(l, p)
		if err != nil {
			return nil, err
		}
		return views.Handout(s.handoutPage(pageInput{lesson: l, state: st, run: r})), nil
	})
}

// pageInput is what the page builders need: a lesson, a state and the run
// of its (left) policy.
type pageInput struct {
	lesson *scenarios.Lesson
	state  State
	run    *sim.Replay
}

func otherLang(lang string) string {
	if lang == "ja" {
		return "en"
	}
	return "ja"
}
