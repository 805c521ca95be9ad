package page

import (
	"slices"
	"strings"

	"ctxsim/sim"
	"ctxsim/views"
)

// A static copy of the lessons (ctxsim export) holds every step of every
// preset policy in every view, each policy's handout and the comparisons
// of CopyPairs. A Builder with Config.Static builds the pages of that
// copy: the same pages, except that a link to a comparison the copy does
// not hold is disabled, controls that need the server (rooms, ?step=N) are
// left out or done by the page script, and notes say what needs the
// server.

// CopyPairs are the comparisons a static copy holds: every preset with
// the default on the right (where the Compare link of a preset leads), and
// the default with each quick mode (where the default's Compare link and
// its digit keys lead).
func CopyPairs(l *sim.Lesson) [][2]sim.Policy {
	def := l.DefaultPolicy()
	var out [][2]sim.Policy
	for _, p := range l.PresetPolicies() {
		out = append(out, [2]sim.Policy{p, def})
	}
	for _, q := range QuickPolicies(l) {
		if q != def {
			out = append(out, [2]sim.Policy{def, q})
		}
	}
	return out
}

// linkable reports whether a page this Builder builds may link to st: always,
// except that a static copy holds only CopyPairs of comparisons.
func (b *Builder) linkable(l *sim.Lesson, st State) bool {
	if !b.static || st.Compare == nil {
		return true
	}
	def := l.DefaultPolicy()
	return *st.Compare == def || (st.Policy == def && slices.Contains(QuickPolicies(l), *st.Compare))
}

// serverOnlyValues says, on a page of a static copy, which values of the
// lesson's parameters need the server: those the buttons do not offer (a
// threshold typed into the URL). Empty when the buttons offer every value.
func (b *Builder) serverOnlyValues(l *sim.Lesson, ui views.UI) string {
	if !b.static {
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
