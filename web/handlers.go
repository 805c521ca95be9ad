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
		c.Response().Header().Set(echo.HeaderContentType, echo.MIMETextHTMLCharsetUTF8)
		return c.NoContent(status)
	}
	return c.HTMLBlob(status, buf.Bytes())
}

func (s *Server) healthz(c echo.Context) error { return c.String(http.StatusOK, "ok\n") }

// index lists the lessons in the visitor's language.
func (s *Server) index(c echo.Context) error {
	lang := s.langOf(c)
	ui := s.cat.For(lang)
	p := views.IndexPage{Lang: lang, UI: ui, Assets: s.assets.urls,
		AltLang: views.Link{Label: ui.T("ui.other-lang"), URL: "/" + otherLang(lang) + "/"}}
	for _, l := range s.lessons.list {
		r, err := s.run(l, l.DefaultPolicy())
		if err != nil {
			return err
		}
		st := State{Lang: lang, Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}
		intro := s.about(l, st, r, "about:intro")
		p.Lessons = append(p.Lessons, views.LessonCard{
			Title: l.Title.In(lang), URL: LessonURL(st), Intro: intro.Body,
			Steps: ui.F("ui.steps", map[string]string{"n": itoa(len(r.Frames))}),
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
	if slices.Contains(languages(), v) {
		return s.index(c)
	}
	if l, ok := s.lessons.byID[v]; ok {
		return c.Redirect(http.StatusFound, LessonURL(State{Lang: s.langOf(c), Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}))
	}
	return notFound("page " + quote(v))
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

// lessonState renders one state of a lesson in any of its views: the page,
// the presenter view, the speaker notes, or a comparison of two policies.
// Policy parameters given as a query (?threshold=73, from a form or a
// hand-typed link) redirect to the canonical path.
func (s *Server) lessonState(c echo.Context) error {
	st, l, err := s.ParseStateURL(c.Request().URL.Path)
	if err != nil {
		return err
	}
	ra, err := s.run(l, st.Policy)
	if err != nil {
		return err
	}
	if q := c.QueryParams(); st.Compare == nil && HasPolicyQuery(l.Lesson, q) {
		np, err := ApplyQuery(l.Lesson, st.Policy, q)
		if err != nil {
			return err
		}
		to, err := s.run(l, np)
		if err != nil {
			return err
		}
		st.Policy, st.Step = np, alignStep(ra.Frames, ra.Frames[st.Step-1], to.Frames)
		return c.Redirect(http.StatusFound, LessonURL(st))
	}
	rememberLang(c, st.Lang)
	in := pageInput{lesson: l, state: st, run: ra}
	if st.Compare != nil {
		return s.compareState(c, in)
	}
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
func (s *Server) compareState(c echo.Context, in pageInput) error {
	rb, err := s.run(in.lesson, *in.state.Compare)
	if err != nil {
		return err
	}
	cp, pp, err := s.comparePage(in, rb)
	if err != nil {
		return err
	}
	if pp != nil {
		return render(c, http.StatusOK, views.Present(*pp))
	}
	return render(c, http.StatusOK, views.Compare(cp))
}

// handout renders the printable handout of a lesson under one policy.
func (s *Server) handout(c echo.Context) error {
	lang, l, err := s.langAndLesson(c.Param("lang"), c.Param("lesson"))
	if err != nil {
		return err
	}
	p, err := l.ParsePolicy(c.Param("policy"))
	if err != nil {
		return err
	}
	r, err := s.run(l, p)
	if err != nil {
		return err
	}
	return render(c, http.StatusOK, views.Handout(s.handoutPage(pageInput{lesson: l, state: State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}, run: r})))
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
