package web

import (
	"reflect"
	"testing"

	"ctxsim/web/httperr"
	"ctxsim/web/page"
)

// FuzzParseStateURL: the one parser of lesson state paths (pages and the
// states presenters publish to rooms) never panics; what it refuses is a
// 400 or a 404 naming what is wrong, never a 500; what it accepts has a
// canonical URL that parses to the same state. Seeds are in
// testdata/fuzz/FuzzParseStateURL.
func FuzzParseStateURL(f *testing.F) {
	f.Add(defaultState + "/3")
	s := newTestServer(f)
	f.Fuzz(func(t *testing.T, path string) {
		st, l, err := s.ParseStateURL(path)
		if err != nil {
			if e := classify(err); e.Code != httperr.Invalid && e.Code != httperr.NotFound {
				t.Fatalf("ParseStateURL(%q) = %v (code %d); want a 400 or a 404", path, err, e.Code)
			}
			return
		}
		if l == nil || l.ID != st.Lesson {
			t.Fatalf("ParseStateURL(%q) = lesson %v for state %+v", path, l, st)
		}
		again, _, err := s.ParseStateURL(page.LessonURL(st))
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Fatalf("ParseStateURL(%q) = %+v; its canonical URL %q parses to %+v, %v", path, st, page.LessonURL(st), again, err)
		}
	})
}
