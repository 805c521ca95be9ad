package page

import (
	"bytes"
	"context"
	"testing"

	"ctxsim/web/internal/testlessons"
)

// TestEveryWordTranslated renders every frame of every preset policy of
// every lesson, in both languages, and finds no catalog key left in the
// text: every word the page asked the catalog for exists.
func TestEveryWordTranslated(t *testing.T) {
	s := newFixture(t)
	pages := 0
	var buf bytes.Buffer
	for _, l := range s.lessons {
		texts := l.Texts()
		for _, p := range l.PresetPolicies() {
			r, _ := s.run(l, p)
			for i := range r.Frames {
				for _, lang := range languages() {
					st := State{Lang: lang, Lesson: l.ID, Policy: p, Step: i + 1}
					comp, err := s.b.Page(l, st)
					if err != nil {
						t.Fatalf("%s: %v", LessonURL(st), err)
					}
					buf.Reset()
					if err := comp.Render(context.Background(), &buf); err != nil {
						t.Fatalf("render %s: %v", LessonURL(st), err)
					}
					if k := testlessons.MissingKey(buf.String(), texts...); k != "" {
						t.Fatalf("%s shows the catalog key %q: its message is missing", LessonURL(st), k)
					}
					pages++
				}
			}
		}
	}
	if pages < 1000 {
		t.Errorf("checked %d pages; want every frame of every preset (over 1000)", pages)
	}
}
