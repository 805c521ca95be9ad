package page

import (
	"bytes"
	"context"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/web/internal/testlessons"
)

// TestEveryWordTranslated renders every frame of every preset policy of
// every lesson, built in or imported (testlessons.Imported: the importer
// writes their narration and picks their mechanisms), in every language,
// and finds no catalog key left in the text: every word the page asked
// the catalog for exists. This is the one place narration completeness
// is checked page by page (web's TestImportedLessons serves a page of
// each kind over HTTP and no longer renders every state).
func TestEveryWordTranslated(t *testing.T) {
	s := newFixture(t)
	imported, err := testlessons.Imported()
	if err != nil {
		t.Fatal(err)
	}
	b, err := testlessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	si, err := prepare(b.Tokens, imported)
	if err != nil {
		t.Fatalf("prepare the imported sessions: %v", err)
	}
	builtin := 0
	t.Run("builtin", func(t *testing.T) {
		for _, l := range s.lessons {
			builtin += everyWordOf(t, s, l)
		}
	})
	if builtin < 1000 {
		t.Errorf("checked %d pages of the built-in lessons; want every frame of every preset (over 1000)", builtin)
	}
	for _, l := range imported {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			if n := everyWordOf(t, si, l); n == 0 {
				t.Errorf("%s: no page checked", l.ID)
			}
		})
	}
}

// everyWordOf renders every frame of every preset of l in every language
// and fails on a catalog key left in the text; it returns the pages.
func everyWordOf(t *testing.T, s *fixture, l *scenarios.Lesson) int {
	t.Helper()
	pages := 0
	var buf bytes.Buffer
	texts := l.Texts()
	for _, p := range l.PresetPolicies() {
		r, err := s.run(l, p)
		if err != nil {
			t.Fatalf("%s: run %s: %v", l.ID, p, err)
		}
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
	return pages
}
