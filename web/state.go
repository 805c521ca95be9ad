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
)

// State is everything a lesson page shows, and so everything its URL holds.
type State struct {
	Lang    string
	Lesson  string
	Policy  sim.Policy
	Compare *sim.Policy // the second policy of a side-by-side comparison
	Step    int         // 1-based: a frame, or a position of the compared timeline
	View    string      // "", ViewPresent or ViewNotes
}

// Views of a lesson state besides the normal page.
const (
	ViewPresent = "present" // projector view: the window and the headline, large
	ViewNotes   = "notes"   // speaker notes: full narration and the next headline
)

// LessonURL is the canonical path of a lesson state:
// /{lang}/{lesson}/{policy}[/vs/{policy}]/{step}[/{view}].
func LessonURL(s State) string { return stateURL(s, strconv.Itoa(s.Step)) }

// stateURL is LessonURL with step in place of the step number.
func stateURL(s State, step string) string {
	u := "/" + s.Lang + "/" + s.Lesson + "/" + s.Policy.String()
	if s.Compare != nil {
		u += "/vs/" + s.Compare.String()
	}
	u += "/" + step
	if s.View != "" {
		u += "/" + s.View
	}
	return u
}

func handoutURL(st State) string {
	return "/" + st.Lang + "/" + st.Lesson + "/" + st.Policy.String() + "/handout"
}

// ParseStateURL reads the path of a lesson state, in any view, and checks
// it against the lessons: language, lesson, policies, the step in range. It
// is the one parser for the page routes and for the states a presenter
// publishes to a room.
func (s *Server) ParseStateURL(path string) (State, *scenarios.Lesson, error) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	if len(parts) < 4 || len(parts) > 7 {
		return State{}, nil, httperr.NoSuch("page " + httperr.Quote(path))
	}
	lang, l, err := s.langAndLesson(parts[0], parts[1])
	if err != nil {
		return State{}, nil, err
	}
	st := State{Lang: lang, Lesson: l.ID}
	if st.Policy, err = l.ParsePolicy(parts[2]); err != nil {
		return State{}, nil, err
	}
	rest := parts[3:]
	if rest[0] == "vs" {
		if len(rest) < 3 {
			return State{}, nil, httperr.NoSuch("page " + httperr.Quote(path))
		}
		b, err := l.ParsePolicy(rest[1])
		if err != nil {
			return State{}, nil, err
		}
		st.Compare, rest = &b, rest[2:]
	}
	if len(rest) > 2 {
		return State{}, nil, httperr.NoSuch("page " + httperr.Quote(path))
	}
	if len(rest) == 2 {
		if st.View, err = ParseView(rest[1]); err != nil {
			return State{}, nil, err
		}
		if st.Compare != nil && st.View == ViewNotes {
			return State{}, nil, httperr.BadParam("view", ViewPresent+" (a comparison has no speaker notes)")
		}
	}
	n, err := s.positions(l, st)
	if err != nil {
		return State{}, nil, err
	}
	if st.Step, err = ParseStep(rest[0], n); err != nil {
		return State{}, nil, err
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
	if LessonURL(st) != path {
		return "", httperr.BadParam("state", "the canonical path "+LessonURL(st))
	}
	st.View = ""
	return LessonURL(st), nil
}

// exampleState is a state path for messages: step 1 of the first lesson.
func (s *Server) exampleState() string {
	lib := s.lib()
	if len(lib.list) == 0 {
		return ""
	}
	l := lib.list[0]
	return LessonURL(State{Lang: "en", Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1})
}

// positions is how many steps a state's run (or compared timeline) has.
func (s *Server) positions(l *scenarios.Lesson, st State) (int, error) {
	ra, err := s.run(l, st.Policy)
	if err != nil {
		return 0, err
	}
	if st.Compare == nil {
		return len(ra.Frames), nil
	}
	rb, err := s.run(l, *st.Compare)
	if err != nil {
		return 0, err
	}
	return len(s.timeline(ra, rb)), nil
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
	case "", ViewPresent, ViewNotes:
		return v, nil
	}
	return "", httperr.BadParam("view", ViewPresent+"|"+ViewNotes)
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
