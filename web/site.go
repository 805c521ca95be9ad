package web

import (
	"context"
	"errors"
	"net/http"

	"ctxsim/scenarios"
	"ctxsim/web/httperr"
	"ctxsim/web/page"
)

// A static copy of the lessons (ctxsim export) holds, in both languages,
// what page.Builder.CopyPolicies and CopyPairs choose (within what common
// hosts accept): every step of each chosen policy in every view (page,
// presenter view, speaker notes) and its handout, the chosen comparisons
// (page and presenter view), the texts of the blocks those pages show, the
// frames API of each lesson's default policy, the assets and the index. A
// Server built with Config.Static renders the pages of that copy: the same
// pages, except that a link to a page the copy does not hold is disabled,
// controls that need the server (rooms, ?step=N) are left out or done by
// the page script, and notes say what needs the server.

// Site lists every document of the static copy, each at the URL the
// server answers it at.
type Site struct {
	Pages     []string   // the canonical paths of the HTML pages
	Docs      []Doc      // the JSON documents of the frames API
	Assets    []string   // the paths of the hashed static files
	Redirects []Redirect // short URLs that lead to a page or a document
}

// Doc is a JSON document of the API: the URL the server answers it at and
// the path a static copy keeps it at (a static host ignores queries).
type Doc struct{ URL, Path string }

// Redirect sends From to To: with a 3xx Status the browser is sent there;
// with 200 To's content is served at From (a rewrite).
type Redirect struct {
	From, To string
	Status   int
}

// Site lists the documents of the static copy of s's lessons. It needs a
// Server built with Config.Static, whose pages link only within the copy.
func (s *Server) Site() (Site, error) {
	if !s.export {
		return Site{}, errors.New("site: the server was not built with Config.Static")
	}
	site := Site{Pages: []string{"/"}}
	for _, lang := range languages() {
		site.Pages = append(site.Pages, "/"+lang)
	}
	site.Docs = append(site.Docs, Doc{URL: "/api/lessons", Path: "/api/lessons.json"})
	site.Redirects = append(site.Redirects, Redirect{From: "/api/lessons", To: "/api/lessons.json", Status: http.StatusOK})
	for _, l := range s.lib().list {
		if err := s.lessonSite(&site, l); err != nil {
			return Site{}, err
		}
	}
	site.Assets = []string{s.assets.urls.CSS, s.assets.urls.JS, s.assets.urls.Messages}
	return site, nil
}

// lessonSite adds the pages, documents and short URLs of one lesson.
func (s *Server) lessonSite(site *Site, l *scenarios.Lesson) error {
	def := l.DefaultPolicy()
	frames := "/api/lessons/" + l.ID + "/frames"
	site.Docs = append(site.Docs, Doc{URL: frames, Path: frames + ".json"})
	site.Redirects = append(site.Redirects,
		Redirect{From: frames, To: frames + ".json", Status: http.StatusOK},
		Redirect{From: "/" + l.ID, To: page.LessonURL(page.State{Lang: languages()[0], Lesson: l.ID, Policy: def, Step: 1}), Status: http.StatusFound})
	for _, lang := range languages() {
		site.Redirects = append(site.Redirects, Redirect{From: "/" + lang + "/" + l.ID,
			To: page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: def, Step: 1}), Status: http.StatusFound})
		for _, p := range s.pages.CopyPolicies(l) {
			if err := s.policySite(site, l, page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}); err != nil {
				return err
			}
		}
	}
	return nil
}

// policySite adds the pages of one policy the copy holds, in one language:
// every state in every view, the handout, the comparisons with it on the
// left, and its short URL. They come one after another, as they share
// windows (frameMemo).
func (s *Server) policySite(site *Site, l *scenarios.Lesson, st page.State) error {
	site.Redirects = append(site.Redirects, Redirect{From: "/" + st.Lang + "/" + l.ID + "/" + st.Policy.String(), To: page.LessonURL(st), Status: http.StatusFound})
	if err := s.statesOf(site, l, st, page.ViewPresent, page.ViewNotes); err != nil {
		return err
	}
	site.Pages = append(site.Pages, page.HandoutURL(st))
	for _, pair := range s.pages.CopyPairs(l) {
		if pair[0] == st.Policy {
			if err := s.statesOf(site, l, page.State{Lang: st.Lang, Lesson: l.ID, Policy: st.Policy, Compare: &pair[1]}, page.ViewPresent); err != nil {
				return err
			}
		}
	}
	return nil
}

// statesOf adds every step of st's run (or compared timeline) in the
// normal view and in views.
func (s *Server) statesOf(site *Site, l *scenarios.Lesson, st page.State, views ...string) error {
	n, err := s.pages.Positions(l, st)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		for _, v := range append([]string{""}, views...) {
			x := st
			x.Step, x.View = i, v
			site.Pages = append(site.Pages, page.LessonURL(x))
		}
	}
	return nil
}

// NotFoundPage is the 404 page of a static copy in lang: it says what the
// copy holds and what needs the server.
func (s *Server) NotFoundPage(lang string) ([]byte, error) {
	return s.errorPage(context.Background(), lang, http.StatusNotFound,
		&httperr.Error{Code: httperr.NotFound, Msg: s.cat.For(lang).T("ui.static-404")})
}
