package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/web/httperr"
)

// A static copy of the lessons (ctxsim export) holds, in both languages,
// every step of every preset policy of every lesson in every view (page,
// presenter view, speaker notes), each policy's handout, the comparisons
// of every preset with the lesson's default (and of the default with each
// quick mode), the frames API of every preset, the assets and the index.
// A Server built with Config.Static renders the pages of that copy: the
// same pages, except that a link to a comparison the copy does not hold is
// disabled, controls that need the server (rooms, ?step=N) are left out or
// done by the page script, and notes say what needs the server.

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
	site.Assets = []string{s.assets.urls.CSS, s.assets.urls.JS, s.assets.urls.Icon, s.assets.urls.Messages}
	return site, nil
}

// lessonSite adds the pages, documents and short URLs of one lesson.
func (s *Server) lessonSite(site *Site, l *scenarios.Lesson) error {
	def := l.DefaultPolicy()
	frames := "/api/lessons/" + l.ID + "/frames"
	site.Docs = append(site.Docs, Doc{URL: frames, Path: frames + ".json"})
	site.Redirects = append(site.Redirects,
		Redirect{From: frames, To: frames + ".json", Status: http.StatusOK},
		Redirect{From: "/" + l.ID, To: LessonURL(State{Lang: languages()[0], Lesson: l.ID, Policy: def, Step: 1}), Status: http.StatusFound})
	for _, p := range l.PresetPolicies() {
		q := url.Values{}
		for _, nv := range p.Values() {
			q.Set(nv[0], nv[1])
		}
		site.Docs = append(site.Docs, Doc{URL: frames + "?" + q.Encode(), Path: frames + "/" + p.String() + ".json"})
	}
	for _, lang := range languages() {
		site.Redirects = append(site.Redirects, Redirect{From: "/" + lang + "/" + l.ID,
			To: LessonURL(State{Lang: lang, Lesson: l.ID, Policy: def, Step: 1}), Status: http.StatusFound})
		for _, p := range l.PresetPolicies() {
			if err := s.policySite(site, l, State{Lang: lang, Lesson: l.ID, Policy: p, Step: 1}); err != nil {
				return err
			}
		}
	}
	return nil
}

// policySite adds the pages of one preset policy in one language: every
// state in every view, the handout, the comparisons with it on the left,
// and its short URL. They come one after another, as they share windows
// (frameMemo).
func (s *Server) policySite(site *Site, l *scenarios.Lesson, st State) error {
	site.Redirects = append(site.Redirects, Redirect{From: "/" + st.Lang + "/" + l.ID + "/" + st.Policy.String(), To: LessonURL(st), Status: http.StatusFound})
	if err := s.statesOf(site, l, st, ViewPresent, ViewNotes); err != nil {
		return err
	}
	site.Pages = append(site.Pages, handoutURL(st))
	for _, pair := range staticPairs(l.Lesson) {
		if pair[0] == st.Policy {
			if err := s.statesOf(site, l, State{Lang: st.Lang, Lesson: l.ID, Policy: st.Policy, Compare: &pair[1]}, ViewPresent); err != nil {
				return err
			}
		}
	}
	return nil
}

// statesOf adds every step of st's run (or compared timeline) in the
// normal view and in views.
func (s *Server) statesOf(site *Site, l *scenarios.Lesson, st State, views ...string) error {
	n, err := s.positions(l, st)
	if err != nil {
		return err
	}
	for i := 1; i <= n; i++ {
		for _, v := range append([]string{""}, views...) {
			x := st
			x.Step, x.View = i, v
			site.Pages = append(site.Pages, LessonURL(x))
		}
	}
	return nil
}

// staticPairs are the comparisons a static copy holds: every preset with
// the default on the right (where the Compare link of a preset leads), and
// the default with each quick mode (where the default's Compare link and
// its digit keys lead).
func staticPairs(l *sim.Lesson) [][2]sim.Policy {
	def := l.DefaultPolicy()
	var out [][2]sim.Policy
	for _, p := range l.PresetPolicies() {
		out = append(out, [2]sim.Policy{p, def})
	}
	for _, q := range quickPolicies(l) {
		if q != def {
			out = append(out, [2]sim.Policy{def, q})
		}
	}
	return out
}

// linkable reports whether a page of this server may link to st: always,
// except that a static copy holds only staticPairs of comparisons.
func (s *Server) linkable(l *sim.Lesson, st State) bool {
	if !s.export || st.Compare == nil {
		return true
	}
	def := l.DefaultPolicy()
	return *st.Compare == def || (st.Policy == def && slices.Contains(quickPolicies(l), *st.Compare))
}

// serverOnlyValues says, on a page of a static copy, which values of the
// lesson's parameters need the server: those the buttons do not offer (a
// threshold typed into the URL). Empty when the buttons offer every value.
func (s *Server) serverOnlyValues(l *sim.Lesson, ui views.UI) string {
	if !s.export {
		return ""
	}
	var ranges []string
	for _, pr := range l.Params() {
		if len(pr.Choices) == 0 && len(pr.Offered()) < pr.Max-pr.Min+1 {
			ranges = append(ranges, ui.T("param."+pr.Name)+" "+itoa(pr.Min)+"–"+itoa(pr.Max))
		}
	}
	if len(ranges) == 0 {
		return ""
	}
	return ui.F("ui.server-only.values", map[string]string{"params": strings.Join(ranges, ", ")})
}

// NotFoundPage is the 404 page of a static copy in lang: it says what the
// copy holds and what needs the server.
func (s *Server) NotFoundPage(lang string) ([]byte, error) {
	return s.errorPage(context.Background(), lang, http.StatusNotFound,
		&httperr.Error{Code: httperr.NotFound, Msg: s.cat.For(lang).T("ui.static-404")})
}
