package page

import (
	"slices"
	"strconv"

	"ctxsim/scenarios"
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

// HandoutURL is the path of the handout of st's lesson under its policy.
func HandoutURL(st State) string {
	return "/" + st.Lang + "/" + st.Lesson + "/" + st.Policy.String() + "/handout"
}

// OtherLang is the language the language switch leads to: the next one
// of scenarios.Languages, round.
func OtherLang(lang string) string { return otherLang(lang) }

func otherLang(lang string) string {
	ls := scenarios.Languages
	return ls[(slices.Index(ls, lang)+1)%len(ls)]
}
