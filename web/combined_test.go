package web

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/web/internal/testlessons"
	"ctxsim/web/page"
)

// TestCombinedLesson: a lesson written as data only, combining the tiered
// compressor with memory across two sessions, is served like any other:
// every frame of every preset policy renders in both languages, in the
// page, the presenter view and a comparison. (Its narration is checked
// true in every state in package page.)
func TestCombinedLesson(t *testing.T) {
	base, err := builtins()
	if err != nil {
		t.Fatal(err)
	}
	l, err := testlessons.Testdata("tiered-memory")
	if err != nil {
		t.Fatalf("LoadDir: %v", err)
	}
	s, err := New(Config{Lessons: append(append([]*scenarios.Lesson{}, base.Lessons...), l), Tokens: base.Tokens, Hosts: testHosts})
	if err != nil {
		t.Fatalf("New with the combined lesson: %v", err)
	}
	h := s.Handler()
	get := func(path string) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s = %d", path, rec.Code)
		}
	}
	def := l.DefaultPolicy()
	for _, p := range l.PresetPolicies() {
		r, err := s.runs.Run(l, p)
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Frames {
			for _, lang := range languages() {
				st := page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: i + 1}
				get(page.LessonURL(st))
				if p == def {
					st.View = page.ViewPresent
					get(page.LessonURL(st))
				}
			}
		}
		if p != def {
			get(page.LessonURL(page.State{Lang: "en", Lesson: l.ID, Policy: def, Compare: &p, Step: 1}))
		}
	}
	get("/api/lessons/" + l.ID + "/frames?strategy=age&memory=off")
}
