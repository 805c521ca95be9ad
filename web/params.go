package web

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"ctxsim/sim"
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

// PolicySegment is the canonical path segment of p for l: its engine's
// parameters as name-value, in order, joined by dots
// (compaction-on.memory-on.threshold-92.rec-1).
func PolicySegment(l *sim.Lesson, p sim.Policy) string {
	prs := sim.ParamsOf(l)
	parts := make([]string, len(prs))
	for i, pr := range prs {
		parts[i] = pr.Name + "-" + pr.Get(p)
	}
	return strings.Join(parts, ".")
}

// ParsePolicySegment reads a segment made by PolicySegment. Every parameter
// of the lesson must appear once, in any order.
func ParsePolicySegment(l *sim.Lesson, seg string) (sim.Policy, error) {
	var p sim.Policy
	seen := map[string]bool{}
	for _, part := range strings.Split(seg, ".") {
		name, val, _ := strings.Cut(part, "-")
		pr, ok := lessonParam(l, name)
		if !ok {
			return p, badParam("policy", "a segment like "+PolicySegment(l, l.DefaultPolicy()))
		}
		if !pr.Set(&p, val) {
			return p, badParam(pr.Name, pr.Allowed())
		}
		seen[name] = true
	}
	for _, pr := range sim.ParamsOf(l) {
		if !seen[pr.Name] {
			return p, badParam(pr.Name, pr.Allowed()+" (missing from the policy segment)")
		}
	}
	return p, nil
}

// ApplyQuery sets the lesson's policy parameters present in q on p, for the
// frames API and for query links that redirect to a canonical path.
// Parameters of other engines are ignored.
func ApplyQuery(l *sim.Lesson, p sim.Policy, q url.Values) (sim.Policy, error) {
	for _, pr := range sim.ParamsOf(l) {
		vs, ok := q[pr.Name]
		if !ok {
			continue
		}
		if len(vs) != 1 || !pr.Set(&p, vs[0]) {
			return p, badParam(pr.Name, pr.Allowed())
		}
	}
	return p, nil
}

// HasPolicyQuery reports whether q names any of the lesson's parameters.
func HasPolicyQuery(l *sim.Lesson, q url.Values) bool {
	for _, pr := range sim.ParamsOf(l) {
		if q.Has(pr.Name) {
			return true
		}
	}
	return false
}

func lessonParam(l *sim.Lesson, name string) (sim.Param, bool) {
	for _, pr := range sim.ParamsOf(l) {
		if pr.Name == name {
			return pr, true
		}
	}
	return sim.Param{}, false
}

// LessonURL is the canonical path of a lesson state:
// /{lang}/{lesson}/{policy}[/vs/{policy}]/{step}[/{view}].
func LessonURL(l *sim.Lesson, s State) string {
	u := fmt.Sprintf("/%s/%s/%s", s.Lang, s.Lesson, PolicySegment(l, s.Policy))
	if s.Compare != nil {
		u += "/vs/" + PolicySegment(l, *s.Compare)
	}
	u += "/" + strconv.Itoa(s.Step)
	if s.View != "" {
		u += "/" + s.View
	}
	return u
}

// ParseView reads the view suffix of a state URL.
func ParseView(v string) (string, error) {
	switch v {
	case "", ViewPresent, ViewNotes:
		return v, nil
	}
	return "", badParam("view", ViewPresent+"|"+ViewNotes)
}

// ParseStep reads a 1-based step number no larger than n.
func ParseStep(v string, n int) (int, error) {
	i, err := strconv.Atoi(v)
	if err != nil || i < 1 || i > n || strconv.Itoa(i) != v {
		return 0, badParam("step", fmt.Sprintf("an integer from 1 to %d", n))
	}
	return i, nil
}
