package web

import (
	"bytes"
	"net/http"
	"slices"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// render writes a component into a buffer first, so a failing component
// never leaves half a page behind a 200.
func render(c echo.Context, status int, comp templ.Component) error {
	var buf bytes.Buffer
	if err := comp.Render(c.Request().Context(), &buf); err != nil {
		return err
	}
	c.Response().Header().Set("Vary", "Accept-Language, Cookie")
	if c.Request().Method == http.MethodHead {
		return c.NoContent(status)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

func (s *Server) healthz(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }

// index lists the lessons in the visitor's language.
func (s *Server) index(c echo.Context) error {
	lang := s.langOf(c)
	ui := views.UIFor(lang)
	p := views.IndexPage{Lang: lang, UI: ui, Assets: s.assets.urls,
		AltLang: views.Link{Label: ui.OtherLang, URL: "/" + otherLang(lang) + "/"}}
	for _, l := range s.lessons.list {
		intro, _ := l.Section(lang, "intro")
		frames, err := s.run(l, l.DefaultPolicy())
		if err != nil {
			return err
		}
		p.Lessons = append(p.Lessons, views.LessonCard{
			Title: l.Title.In(lang), URL: LessonURL(l.Lesson, State{Lang: lang, Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}),
			Intro: intro.Body, Steps: len(frames),
		})
	}
	if c.Param("lang") != "" {
		rememberLang(c, lang)
	}
	return render(c, http.StatusOK, views.Index(p))
}

// langOrLesson serves /en and /ja as the index, and sends /<lesson> to the
// lesson in the visitor's language.
func (s *Server) langOrLesson(c echo.Context) error {
	v := c.Param("lang")
	if slices.Contains(scenarios.Languages, v) {
		return s.index(c)
	}
	if l, ok := s.lessons.byID[v]; ok {
		lang := s.langOf(c)
		return c.Redirect(http.StatusFound, LessonURL(l.Lesson, State{Lang: lang, Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}))
	}
	return &NotFoundError{What: "page " + quote(v)}
}

// lessonStart redirects to step 1 of the default or the given policy.
func (s *Server) lessonStart(c echo.Context) error {
	lang, l, err := s.langAndLesson(c)
	if err != nil {
		return err
	}
	p := l.DefaultPolicy()
	if seg := c.Param("policy"); seg != "" {
		if p, err = ParsePolicySegment(l.Lesson, seg); err != nil {
			return err
		}
	}
	if p, err = ApplyQuery(l.Lesson, p, c.QueryParams()); err != nil {
		return err
	}
	return c.Redirect(http.StatusFound, LessonURL(l.Lesson, State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}))
}

// lessonState renders one state of a lesson in any of its views: the page,
// the presenter view, the speaker notes, or a comparison of two policies.
// Policy parameters given as a query (?threshold=73, from a form or a
// hand-typed link) redirect to the canonical path.
func (s *Server) lessonState(c echo.Context) error {
	st, l, err := s.policyState(c)
	if err != nil {
		return err
	}
	if seg := c.Param("policyB"); seg != "" {
		b, err := ParsePolicySegment(l.Lesson, seg)
		if err != nil {
			return err
		}
		st.Compare = &b
	}
	if st.View, err = ParseView(c.Param("view")); err != nil {
		return err
	}
	if st.Compare != nil && st.View == ViewNotes {
		return badParam("view", ViewPresent+" (a comparison has no speaker notes)")
	}
	frames, err := s.run(l, st.Policy)
	if err != nil {
		return err
	}
	if st.Compare != nil {
		return s.compareState(c, l, st, frames)
	}
	if st.Step, err = ParseStep(c.Param("step"), len(frames)); err != nil {
		return err
	}
	if q := c.QueryParams(); HasPolicyQuery(l.Lesson, q) {
		np, err := ApplyQuery(l.Lesson, st.Policy, q)
		if err != nil {
			return err
		}
		to, err := s.run(l, np)
		if err != nil {
			return err
		}
		st.Policy, st.Step = np, alignStep(frames, frames[st.Step-1], to)
		return c.Redirect(http.StatusFound, LessonURL(l.Lesson, st))
	}
	in := pageInput{lesson: l, state: st, frames: frames}
	rememberLang(c, st.Lang)
	switch st.View {
	case ViewPresent:
		page, err := s.presentPage(in)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.Present(page))
	case ViewNotes:
		page, err := s.notesPage(in)
		if err != nil {
			return err
		}
		return render(c, http.StatusOK, views.Notes(page))
	}
	page, err := s.lessonPage(in)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Lesson(page))
}

// compareState renders two policies side by side at one position of their
// aligned timeline.
func (s *Server) compareState(c echo.Context, l *scenarios.Lesson, st State, fa []sim.Frame) error {
	fb, err := s.run(l, *st.Compare)
	if err != nil {
		return err
	}
	tl := alignRuns(fa, fb)
	if st.Step, err = ParseStep(c.Param("step"), len(tl)); err != nil {
		return err
	}
	cp, pp, err := s.comparePage(l, st, fa, fb, tl)
	if err != nil {
		return err
	}
	rememberLang(c, st.Lang)
	if pp != nil {
		return render(c, http.StatusOK, views.Present(*pp))
	}
	return render(c, http.StatusOK, views.Compare(cp))
}

// handout renders the printable handout of a lesson under one policy.
func (s *Server) handout(c echo.Context) error {
	st, l, err := s.policyState(c)
	if err != nil {
		return err
	}
	frames, err := s.run(l, st.Policy)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Handout(s.handoutPage(l, st, frames)))
}

// policyState reads the language, lesson and policy segment of a state URL.
func (s *Server) policyState(c echo.Context) (State, *scenarios.Lesson, error) {
	lang, l, err := s.langAndLesson(c)
	if err != nil {
		return State{}, nil, err
	}
	st := State{Lang: lang, Lesson: l.ID}
	st.Policy, err = ParsePolicySegment(l.Lesson, c.Param("policy"))
	return st, l, err
}

func (s *Server) langAndLesson(c echo.Context) (string, *scenarios.Lesson, error) {
	lang := c.Param("lang")
	if !slices.Contains(scenarios.Languages, lang) {
		return "", nil, &NotFoundError{What: "language " + quote(lang) + " (use en or ja)"}
	}
	id := c.Param("lesson")
	l, ok := s.lessons.byID[id]
	if !ok {
		return "", nil, &NotFoundError{What: "lesson " + quote(id)}
	}
	return lang, l, nil
}

func quote(s string) string {
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return `"` + s + `"`
}
