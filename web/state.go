package web

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web/httperr"
	"ctxsim/web/page"
)

// ParseStateURL reads the path of a lesson state, in any view, and checks
// it against the lessons: language, lesson, policies, the step in range. It
// is the one parser for the page routes and for the states a presenter
// publishes to a room.
func (s *Server) ParseStateURL(path string) (page.State, *scenarios.Lesson, error) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(parts) < 4 || len(parts) > 7 {
		return page.State{}, nil, httperr.NoSuch("page " + httperr.Quote(path))
	}
	lang, l, err := s.langAndLesson(parts[0], parts[1])
	if err != nil {
		return page.State{}, nil, err
	}
	st := page.State{Lang: lang, Lesson: l.ID}
	if st.Policy, err = l.ParsePolicy(parts[2]); err != nil {
		return page.State{}, nil, err
	}
	rest := parts[3:]
	if rest[0] == "vs" {
		if len(rest) < 3 {
			return page.State{}, nil, httperr.NoSuch("page " + httperr.Quote(path))
		}
		b, err := l.ParsePolicy(rest[1])
		if err != nil {
			return page.State{}, nil, err
		}
		st.Compare, rest = &b, rest[2:]
	}
	if len(rest) > 2 {
		return page.State{}, nil, httperr.NoSuch("page " + httperr.Quote(path))
	}
	if len(rest) == 2 {
		if st.View, err = ParseView(rest[1]); err != nil {
			return page.State{}, nil, err
		}
		if st.Compare != nil && st.View == page.ViewNotes {
			return page.State{}, nil, httperr.BadParam("view", page.ViewPresent+" (a comparison has no speaker notes)")
		}
	}
	n, err := s.pages.Positions(l, st)
	if err != nil {
		return page.State{}, nil, err
	}
	if st.Step, err = ParseStep(rest[0], n); err != nil {
		return page.State{}, nil, err
	}
	return st, l, nil
}

// followState is the state a room's audience follows when a presenter
// publishes path: path must be the canonical path of a lesson state this
// site serves, in any view; the audience gets it without its view.
func (s *Server) followState(path string) (string, error) {
	st, _, err := s.ParseStateURL(path)
	if err != nil {
		return "", err
	}
	if page.LessonURL(st) != path {
		return "", httperr.BadParam("state", "the canonical path "+page.LessonURL(st))
	}
	st.View = ""
	return page.LessonURL(st), nil
}

// exampleState is a state path for messages: step 1 of the first lesson.
func (s *Server) exampleState() string {
	lib := s.lib()
	if len(lib.list) == 0 {
		return ""
	}
	l := lib.list[0]
	return page.LessonURL(page.State{Lang: "en", Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1})
}

func (s *Server) langAndLesson(lang, id string) (string, *scenarios.Lesson, error) {
	if !slices.Contains(languages(), lang) {
		return "", nil, httperr.NoSuch("language " + httperr.Quote(lang) + " (use " + strings.Join(languages(), " or ") + ")")
	}
	l, err := s.lesson(id)
	if err != nil {
		return "", nil, err
	}
	return lang, l, nil
}

// ApplyQuery sets the lesson's policy parameters present in q on p, for the
// frames API and for query links that redirect to a canonical path.
// Parameters the lesson does not have are ignored.
func ApplyQuery(l *sim.Lesson, p sim.Policy, q url.Values) (sim.Policy, error) {
	for _, pr := range l.Params() {
		vs, ok := q[pr.Name]
		if !ok {
			continue
		}
		if len(vs) != 1 || !pr.Valid(vs[0]) {
			return p, httperr.BadParam(pr.Name, pr.Allowed())
		}
		var err error
		if p, err = l.With(p, pr.Name, vs[0]); err != nil {
			return p, err
		}
	}
	return p, nil
}

// HasPolicyQuery reports whether q names any of the lesson's parameters.
func HasPolicyQuery(l *sim.Lesson, q url.Values) bool {
	for _, pr := range l.Params() {
		if q.Has(pr.Name) {
			return true
		}
	}
	return false
}

// ParseView reads the view suffix of a state URL.
func ParseView(v string) (string, error) {
	switch v {
	case "", page.ViewPresent, page.ViewNotes:
		return v, nil
	}
	return "", httperr.BadParam("view", page.ViewPresent+"|"+page.ViewNotes)
}

// ParseStep reads a 1-based step number no larger than n.
func ParseStep(v string, n int) (int, error) {
	i, err := strconv.Atoi(v)
	if err != nil || i < 1 || i > n || strconv.Itoa(i) != v {
		return 0, httperr.BadParam("step", fmt.Sprintf("an integer from 1 to %d", n))
	}
	return i, nil
}

// languages are the languages of the pages.
func languages() []string { return scenarios.Languages }
