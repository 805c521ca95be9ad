package page

import (
	"slices"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// A static copy of the lessons (ctxsim export) must stay within what
// common hosts accept (20,000 files, 1 GB on the strictest), so it holds a
// chosen part of the states, each in full: the pages of CopyPolicies, every
// step in the normal view, the presenter view and the speaker notes; their
// handouts; and the comparisons of CopyPairs, in the normal and presenter
// views. A
// Builder with Config.Static builds the pages of that copy: the same pages,
// except that a link to a page the copy does not hold is disabled (and the
// page says what needs the server), controls that need the server (rooms,
// ?step=N) are left out or done by the page script.

// copyLongRun is the length above which a lesson's default run is a long
// session: a static copy holds it under its default policy only. A page of
// real-compaction (143 steps) is 50–300 KB, and its 36 presets held in
// every view would be ~20,000 files and ~2 GB.
const copyLongRun = 100

// CopyPolicies are the policies whose pages a static copy of l holds, the
// default first: the default and each preset one parameter away from it
// (where the default's mode buttons and the digit keys lead); a long
// session (more than copyLongRun steps) under its default only. The slice
// is shared: callers read it.
func (b *Builder) CopyPolicies(l *scenarios.Lesson) []sim.Policy {
	return b.copyOf(l).policies
}

// CopyPairs are the comparisons a static copy of l holds: the default
// (left) with each quick mode the copy holds, where the default's Compare
// link and a comparison's digit keys lead. The slice is shared: callers
// read it.
func (b *Builder) CopyPairs(l *scenarios.Lesson) [][2]sim.Policy {
	return b.copyOf(l).pairs
}

// copySet is what a static copy of one lesson holds.
type copySet struct {
	policies []sim.Policy    // CopyPolicies
	pairs    [][2]sim.Policy // CopyPairs
	presets  int             // how many preset policies the lesson has
}

// copyOf is what a static copy of l holds. Every link of every page of a
// copy asks, so a static Builder works it out once per lesson; a live one
// (asked only when a copy's documents are listed) each time.
func (b *Builder) copyOf(l *scenarios.Lesson) *copySet {
	if !b.static {
		return b.newCopySet(l)
	}
	if c, ok := b.copies.Load(l); ok {
		return c.(*copySet)
	}
	c, _ := b.copies.LoadOrStore(l, b.newCopySet(l))
	return c.(*copySet)
}

// newCopySet works out what a static copy of l holds.
func (b *Builder) newCopySet(l *scenarios.Lesson) *copySet {
	presets := l.PresetPolicies()
	def := l.DefaultPolicy()
	c := &copySet{policies: []sim.Policy{def}, presets: len(presets)}
	if fr, err := b.runs.Outline(l, def); err == nil && len(fr) <= copyLongRun {
		for _, p := range presets {
			if p != def && differences(l.Lesson, p, def) == 1 {
				c.policies = append(c.policies, p)
			}
		}
	}
	for _, q := range QuickPolicies(l.Lesson)[1:] {
		if slices.Contains(c.policies, q) {
			c.pairs = append(c.pairs, [2]sim.Policy{def, q})
		}
	}
	return c
}

// differences counts the parameters whose values differ in p and q.
func differences(l *sim.Lesson, p, q sim.Policy) int {
	n := 0
	for _, pr := range l.Params() {
		if p.Get(pr.Name) != q.Get(pr.Name) {
			n++
		}
	}
	return n
}

// linkable reports whether a page this Builder builds may link to st:
// always on a live server; in a static copy when the copy holds it.
func (b *Builder) linkable(l *scenarios.Lesson, st State) bool {
	if !b.static {
		return true
	}
	if st.Compare != nil {
		return slices.Contains(b.CopyPairs(l), [2]sim.Policy{st.Policy, *st.Compare})
	}
	return slices.Contains(b.CopyPolicies(l), st.Policy)
}

// withCompare is st comparing its policy with p.
func withCompare(st State, p sim.Policy) State { st.Compare = &p; return st }

// serverOnly says, on a page of a static copy, what of the lesson's modes
// needs the server: values the buttons do not offer (a threshold typed
// into the URL), and the modes the copy does not hold. Empty on a live
// server.
func (b *Builder) serverOnly(l *scenarios.Lesson, ui views.UI) string {
	if !b.static {
		return ""
	}
	var ranges []string
	for _, pr := range l.Params() {
		if len(pr.Choices) == 0 && len(pr.Offered()) < pr.Max-pr.Min+1 {
			ranges = append(ranges, ui.T("param."+pr.Name)+" "+itoa(pr.Min)+"–"+itoa(pr.Max))
		}
	}
	var out []string
	if len(ranges) > 0 {
		out = append(out, ui.F("ui.server-only.values", map[string]string{"params": strings.Join(ranges, ", ")}))
	}
	c := b.copyOf(l)
	if held := len(c.policies); held == 1 && c.presets > 1 {
		out = append(out, ui.T("ui.server-only.long"))
	} else if held < c.presets {
		out = append(out, ui.T("ui.server-only.modes"))
	}
	return strings.Join(out, " ")
}
