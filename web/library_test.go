package web

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"ctxsim/web/internal/testlessons"
)

// TestPreparedAfterStart: a lesson the server prepares after it listens
// (an imported session) answers 503 with Retry-After while it is being
// prepared (and Refresh on its pages, so a browser comes back by itself),
// the index says so, and it serves like any lesson once added; one that
// failed answers 404. An id the server has cannot be pending or added.
func TestPreparedAfterStart(t *testing.T) {
	s := newServerWith(t, Config{})
	l, err := testlessons.Testdata("recorded-shape")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Pending(l.ID, "session-broken"); err != nil {
		t.Fatal(err)
	}
	if err := s.Pending("context-memory"); err == nil {
		t.Errorf("Pending(context-memory) = nil; want an error (the server has it)")
	}
	for _, tc := range []struct{ path, refresh, says string }{
		{"/en/recorded-shape", "3", "Lesson recorded-shape is being prepared"},
		{"/ja/recorded-shape/default/1", "3", "レッスン recorded-shape を準備中です"},
		{"/recorded-shape", "3", "Lesson recorded-shape is being prepared"},
		{"/api/lessons/recorded-shape/frames", "", `lesson \"recorded-shape\" is being prepared`},
	} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			rec := do(t, s, method, tc.path)
			if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != "3" || rec.Header().Get("Refresh") != tc.refresh {
				t.Errorf("%s %s while preparing = %d, Retry-After %q, Refresh %q; want 503, 3, %q",
					method, tc.path, rec.Code, rec.Header().Get("Retry-After"), rec.Header().Get("Refresh"), tc.refresh)
			}
			if method == http.MethodGet && !strings.Contains(rec.Body.String(), tc.says) {
				t.Errorf("GET %s while preparing does not say %q:\n%s", tc.path, tc.says, rec.Body.String())
			}
		}
	}
	index := get(t, s, "/en").Body.String()
	if !strings.Contains(index, `data-testid="preparing"`) || !strings.Contains(index, "Being prepared: recorded-shape, session-broken.") {
		t.Errorf("the index does not say which lessons are being prepared")
	}
	// Readers see the library before or after the lesson joins, never half
	// of it (go test -race).
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, p := range []string{"/en", "/en/recorded-shape", "/api/lessons/recorded-shape/frames", "/ja/context-memory"} {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if code := do(t, s, http.MethodGet, p).Code; code >= 500 && code != http.StatusServiceUnavailable {
					t.Errorf("GET %s while the lesson joins = %d", p, code)
					return
				}
			}
		})
	}
	if err := s.Add(l); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	for _, p := range l.PresetPolicies() {
		if _, ok := s.runs.Kept(l, p); !ok {
			t.Errorf("once added, %s under %s is not kept: Add serves the default run first, then keeps every preset", l.ID, p)
		}
	}
	s.Drop("session-broken")
	if rec := get(t, s, "/en/recorded-shape"); rec.Code != http.StatusFound {
		t.Errorf("GET /en/recorded-shape once added = %d; want 302 to step 1", rec.Code)
	}
	if rec := get(t, s, "/api/lessons/recorded-shape/frames"); rec.Code != http.StatusOK {
		t.Errorf("frames API once added = %d; want 200", rec.Code)
	}
	if rec := get(t, s, "/en/session-broken"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /en/session-broken once dropped = %d; want 404", rec.Code)
	}
	index = get(t, s, "/en").Body.String()
	if strings.Contains(index, `data-testid="preparing"`) || !strings.Contains(index, l.Title.In("en")) {
		t.Errorf("the index once every lesson settled still says preparing, or lacks %q", l.Title.In("en"))
	}
	if err := s.Add(l); err == nil {
		t.Errorf("Add(recorded-shape) again = nil; want an error")
	}
}

func do(t *testing.T, s *Server, method, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	return rec
}
