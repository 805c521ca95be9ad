package web

import (
	"html"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"
)

// catalogKey is what a missing catalog message reads like on a page: its
// key (catalog.Messages.T returns the key when the message is missing).
var catalogKey = regexp.MustCompile(`\b(ui|panel|event|badge|kind|role|param|value|origin|cache|diff|legend|line|rules|counters|pass|cost|block|help|js)\.[a-z][a-z0-9_=-]*(\.[a-z0-9_=-]+)*`)

// TestEveryWordTranslated renders every frame of every preset policy of
// every lesson, in both languages, and finds no catalog key left in the
// text: every word the page asked the catalog for exists.
func TestEveryWordTranslated(t *testing.T) {
	s := newTestServer(t)
	h := s.Handler()
	pages := 0
	for _, l := range s.lib().list {
		for _, p := range l.PresetPolicies() {
			r, _ := s.run(l, p)
			for i := range r.Frames {
				for _, lang := range languages() {
					path := LessonURL(State{Lang: lang, Lesson: l.ID, Policy: p, Step: i + 1})
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
					if rec.Code != http.StatusOK {
						t.Fatalf("GET %s = %d", path, rec.Code)
					}
					text := html.UnescapeString(tags.ReplaceAllString(rec.Body.String(), " "))
					if k := catalogKey.FindString(text); k != "" {
						t.Fatalf("GET %s shows the catalog key %q: its message is missing", path, k)
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
