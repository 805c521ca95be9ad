package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web/internal/testlessons"
	"ctxsim/web/page"
)

// importedServer serves the built-in lessons and the imported sessions of
// testlessons.Imported.
var importedServer = sync.OnceValues(func() (*Server, error) {
	base, err := builtins()
	if err != nil {
		return nil, err
	}
	extra, err := testlessons.Imported()
	if err != nil {
		return nil, err
	}
	return New(Config{Lessons: append(append([]*scenarios.Lesson{}, base.Lessons...), extra...), Tokens: base.Tokens, Hosts: testHosts})
})

// TestImportedLessons: an imported session is a lesson like any other.
// Every state of every preset policy serves, in both languages, in the
// presenter view and beside the default; no catalog key shows. (Their
// narration is checked true in every state in package page.)
func TestImportedLessons(t *testing.T) {
	s, err := importedServer()
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	for _, id := range testlessons.ImportedIDs {
		l, ok := s.lib().byID[id]
		if !ok {
			t.Fatalf("the server has no lesson %s", id)
		}
		t.Run(id, func(t *testing.T) {
			def := l.DefaultPolicy()
			pages := 0
			kinds := map[sim.FrameKind]bool{}
			mechanical := false
			for _, p := range l.PresetPolicies() {
				r, err := s.runs.Run(l, p)
				if err != nil {
					t.Fatal(err)
				}
				for i, f := range r.Frames {
					kinds[f.Kind] = true
					mechanical = mechanical || (f.Pending != nil && f.Pending.Summary != nil && f.Pending.Summary.Mechanical)
					for _, lang := range languages() {
						st := page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: i + 1}
						body := getOK(t, h, page.LessonURL(st))
						if k := testlessons.MissingKey(body); k != "" {
							t.Fatalf("GET %s shows the catalog key %q", page.LessonURL(st), k)
						}
						pages++
						if p == def {
							st.View = page.ViewPresent
							getOK(t, h, page.LessonURL(st))
						}
					}
				}
				if p != def {
					getOK(t, h, page.LessonURL(page.State{Lang: "en", Lesson: l.ID, Policy: def, Compare: &p, Step: 1}))
				}
			}
			getOK(t, h, "/en/"+l.ID+"/"+def.String()+"/handout")
			t.Logf("%s: %d pages", id, pages)
			if id == "session-synthetic" && (!mechanical || !kinds[sim.FramePass] || !kinds[sim.FrameOverflow] || !kinds[sim.FrameSummary]) {
				t.Errorf("the synthetic session's presets show %v, mechanical excerpt %v; want a compaction to an excerpt, a compressor pass and an overflow", kinds, mechanical)
			}
		})
	}
}

func getOK(t *testing.T, h http.Handler, path string) string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", path, rec.Code)
	}
	return rec.Body.String()
}

// TestImportedPage: the page of an imported session says where it comes
// from, shows the provider's count beside the replay's on a model call,
// and the loss view beside a recorded summary.
func TestImportedPage(t *testing.T) {
	s, err := importedServer()
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	l := s.lib().byID["session-cc-compaction"]
	p := l.DefaultPolicy()
	if p.String() != "compaction-recorded.threshold-77.strategy-off.window-200000" {
		t.Fatalf("default policy %s; want compaction as recorded at the session's own threshold (77%%), the compressor off, the 200k window", p)
	}
	page := func(step int) string {
		return getOK(t, h, page.LessonURL(page.State{Lang: "en", Lesson: l.ID, Policy: p, Step: step}))
	}
	first := page(1)
	// Step 1 is the first model call's request: what the file does not
	// hold and the user's message, at the provider's count (9,020: 20 new,
	// 9,000 written to the cache).
	for _, want := range []string{"claude-opus-4-1", "2025-06-02 09:00 – 2025-06-02 09:06 UTC", "cc_compaction.jsonl", "ctxsim import",
		"not in the file", `data-testid="usage-panel"`, "9.0k", "20 new", `data-testid="categories"`} {
		if !strings.Contains(first, want) {
			t.Errorf("step 1 does not say %q", want)
		}
	}
	if !strings.Contains(first, "77% (the session&#39;s own)") {
		t.Error("step 1 does not offer the session's own threshold by its name")
	}
	// Step 4 is the recorded summary.
	four := page(4)
	for _, want := range []string{`data-testid="loss-panel"`, "This session is being continued", "cc_compaction.jsonl (line 5)"} {
		if !strings.Contains(four, want) {
			t.Errorf("step 4 (the recorded summary) lacks %q", want)
		}
	}
	var doc apiDoc
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/api/lessons/session-cc-compaction/frames?window=50000", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("frames API = %d: %s", rec.Code, rec.Body)
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Window != 50000 || doc.Policy["window"] != "50000" || doc.Policy["compaction"] != "recorded" {
		t.Errorf("frames API window %d, policy %v; want the 50000 window, compaction recorded", doc.Window, doc.Policy)
	}
	// The request frames carry the provider's count and its cache split;
	// every frame's categories sum to its total.
	f := doc.Frames[0]
	if f.ProviderTokens == nil || *f.ProviderTokens != 9020 || *f.ProviderTokens != f.TotalTokens || f.ProviderCacheRead == nil || *f.ProviderCacheRead != 0 ||
		f.ProviderCacheWritten == nil || *f.ProviderCacheWritten != 9000 {
		t.Errorf("frame 1: provider_tokens %v, cache read %v, written %v, total %d; want 9,020 (0 read, 9,000 written), the total", f.ProviderTokens, f.ProviderCacheRead, f.ProviderCacheWritten, f.TotalTokens)
	}
	for _, f := range doc.Frames {
		sum := 0
		for _, c := range f.Categories {
			sum += c.Tokens
		}
		if sum != f.TotalTokens || len(f.Categories) == 0 || f.Categories[0].Name != "unseen" {
			t.Errorf("frame %d: categories %v sum to %d; want the total %d, from what the file does not hold", f.Step, f.Categories, sum, f.TotalTokens)
		}
	}
}

// TestLongSession: a lesson whose default run is long is prepared under
// its default policy only; every other preset still serves, replayed on
// demand, and the box keeps the largest room below it.
func TestLongSession(t *testing.T) {
	s0, err := importedServer()
	if err != nil {
		t.Fatal(err)
	}
	l := s0.lib().byID["session-grouped"]
	s, err := New(Config{Lessons: []*scenarios.Lesson{l}, Tokens: s0.tok, LongRun: 1, Hosts: testHosts})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.lib().presets) != 1 {
		t.Errorf("%d preset runs kept from start-up; want 1 (the default)", len(s.lib().presets))
	}
	if _, ok := s.lib().presets[runKey{l.ID, l.DefaultPolicy()}]; !ok {
		t.Errorf("the default run is not kept")
	}
	if got, want := s.lib().reserve[l.ID], 30*page.BoxHeight/100.0; got != want {
		t.Errorf("reserve %v; want the largest class %v", got, want)
	}
	h := s.Handler()
	for _, p := range l.PresetPolicies() {
		r, err := sim.Run(l.Lesson, p, s.tok)
		if err != nil {
			t.Fatal(err)
		}
		n := len(r.Frames)
		page := getOK(t, h, page.LessonURL(page.State{Lang: "en", Lesson: l.ID, Policy: p, Step: n}))
		if want := fmt.Sprintf("Step %d of %d", n, n); !strings.Contains(page, want) {
			t.Errorf("%s: the last page does not say %q", p, want)
		}
	}
}
