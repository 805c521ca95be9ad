package page

import (
	"strings"
	"testing"

	"ctxsim/views"
	"ctxsim/views/draw"
)

// TestNamedRowsDrawn: at every step of every preset run, in every language
// and both styles, a row the headline or what changed names carries its
// own label with its whole name, inside its block or in the lane, never
// in a group.
func TestNamedRowsDrawn(t *testing.T) {
	s := newFixture(t)
	for _, l := range s.lessons {
		for _, p := range l.PresetPolicies() {
			r, err := s.run(l, p)
			if err != nil {
				t.Fatal(err)
			}
			for _, lang := range languages() {
				for i := range r.Frames {
					for _, st := range []draw.Style{draw.Page, draw.Projector} {
						v := newFrameView(l, p, r, i, s.cat.For(lang))
						v.style = st
						w := s.b.drawFrame(v)
						for _, msg := range unnamed(w) {
							t.Errorf("%s %s %s step %d (%s): %s", l.ID, p, lang, i+1, st.Name, msg)
						}
					}
				}
			}
		}
	}
}

// unnamed lists the named rows of w whose drawing does not carry their
// whole name on a label of their own.
func unnamed(w views.Window) []string {
	var out []string
	for i, r := range w.Rows {
		if !r.Named {
			continue
		}
		drawn := ""
		if r.Inside != nil {
			drawn = r.Inside.Name.Text
		}
		for _, c := range w.Callouts {
			if c.First <= i && i <= c.Last {
				if c.Group {
					drawn = "(in a group: " + c.Text.Text + ")"
					break
				}
				drawn = c.Text.Text
				for _, m := range c.More {
					drawn += m.Text
				}
			}
		}
		if !strings.Contains(drawn, r.Label) {
			out = append(out, "row "+r.ID+" "+r.Label+" is drawn as "+drawn)
		}
	}
	return out
}

// TestRunPanelsWhereTheRunIsSeen: the status lesson's cost panel, which
// weighs the whole run, is not on its first step (the status bar off,
// nothing weighed yet) and is on its last.
func TestRunPanelsWhereTheRunIsSeen(t *testing.T) {
	s := newFixture(t)
	l := s.byID["status-bar"]
	p, err := l.ParsePolicy("status-off.counter-off.clock-off.alpha-10")
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.run(l, p)
	if err != nil {
		t.Fatal(err)
	}
	has := func(i int) bool {
		for _, pn := range s.b.panels(newFrameView(l, p, r, i, s.cat.For("en"))) {
			if pn.ID == "cost-panel" {
				return true
			}
		}
		return false
	}
	if has(0) {
		t.Errorf("step 1 (status bar off) shows the cost panel")
	}
	if !has(len(r.Frames) - 1) {
		t.Errorf("the last step does not show the cost panel")
	}
}
