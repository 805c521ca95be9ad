package web

import (
	"encoding/json"
	"strings"
	"testing"
)

type statusDoc struct {
	Lesson    string
	Frames    []map[string]any
	CostModel map[string]float64 `json:"cost_model"`
	Measured  map[string]float64
}

func statusFrames(t *testing.T, s *Server, query string) statusDoc {
	t.Helper()
	rec := get(t, s, "/api/lessons/status-bar/frames"+query)
	if rec.Code != 200 {
		t.Fatalf("GET status frames%s = %d\n%s", query, rec.Code, rec.Body.String())
	}
	var d statusDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestStatusFramesAPI: the status-bar frames carry a cache (reused and
// recomputed tokens) and the document its cost_model and measured costs,
// with alpha given in hundredths in the URL and as a fraction in the
// document. The figures (8 frames, a status block is the user's, append
// recomputes less than replace, less than a clock) are the engine's, in
// sim/status_test.go TestStatusBlocksPerMode and TestRecomputedOrder, and
// reused + recomputed = total in sim/cache_test.go.
func TestStatusFramesAPI(t *testing.T) {
	s := newTestServer(t)
	d := statusFrames(t, s, "?status=replace")
	for i, f := range d.Frames {
		c, ok := f["cache"].(map[string]any)
		if !ok {
			t.Fatalf("frame %d has no cache", i+1)
		}
		for _, k := range []string{"reused_tokens", "recomputed_tokens"} {
			if _, ok := c[k].(float64); !ok {
				t.Errorf("frame %d: cache lacks %s: %v", i+1, k, c)
			}
		}
	}
	for _, k := range []string{"S", "R", "N", "alpha", "c_replace", "c_append"} {
		if _, ok := d.CostModel[k]; !ok {
			t.Errorf("cost_model lacks %q", k)
		}
	}
	for _, k := range []string{"c_replace", "c_append"} {
		if _, ok := d.Measured[k]; !ok {
			t.Errorf("measured lacks %q", k)
		}
	}
	if d.CostModel["alpha"] != 0.1 {
		t.Errorf("alpha = %v; want the default 0.1", d.CostModel["alpha"])
	}
	if d := statusFrames(t, s, "?alpha=50"); d.CostModel["alpha"] != 0.5 {
		t.Errorf("alpha=50: cost_model.alpha = %v; want 0.5", d.CostModel["alpha"])
	}
}

func TestStatusBadInput(t *testing.T) {
	s := newTestServer(t)
	for _, tc := range []struct{ query, param string }{
		{"?status=maybe", "status"}, {"?counter=2", "counter"}, {"?clock=yes", "clock"}, {"?alpha=0", "alpha"}, {"?alpha=0.1", "alpha"},
	} {
		rec := get(t, s, "/api/lessons/status-bar/frames"+tc.query)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"param":"`+tc.param+`"`) {
			t.Errorf("GET frames%s = %d %s; want 400 naming %s", tc.query, rec.Code, rec.Body.String(), tc.param)
		}
	}
	rec := get(t, s, "/en/status-bar/status-sometimes.counter-off.clock-off.alpha-10/1")
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), "off|replace|append") {
		t.Errorf("bad status in the path = %d; want 400 listing off|replace|append", rec.Code)
	}
}

func TestStatusPage(t *testing.T) {
	s := newTestServer(t)
	rec := get(t, s, "/en/status-bar/status-replace.counter-off.clock-off.alpha-10/8")
	if rec.Code != 200 {
		t.Fatalf("status page = %d\n%s", rec.Code, rec.Body.String())
	}
	body := rec.Body.String()
	for _, want := range []string{`data-testid="cache-panel"`, `data-testid="cost-panel"`, `data-testid="decision-panel"`,
		"C_replace", "is-cached", "is-first-changed", "0.5 s to 3–5 s", "&lt;agent_status&gt;", "Maximum calls to Xfinity reached (3/3)"} {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	// No MEMORY.md panel and no threshold line in a lesson without them.
	for _, bad := range []string{`data-testid="memory-file"`, `data-testid="threshold-line"`} {
		if strings.Contains(body, bad) {
			t.Errorf("status page shows %q", bad)
		}
	}
}

// TestBrowserStatusToggle: flipping the status bar from replace to append
// changes which blocks are drawn as cached.
func TestBrowserStatusToggle(t *testing.T) {
	b := browser(t, 1440, 900, true)
	b.open("/en/status-bar/status-replace.counter-off.clock-off.alpha-10/5")
	b.waitSettled()
	cachedIDs := func() string {
		return mustEval[string](b, `[...document.querySelectorAll('.row.is-cached [data-testid=block]')].map(e => e.dataset.id).join(",")`)
	}
	firstChanged := func() string {
		return mustEval[string](b, `document.querySelector('.row.is-first-changed [data-testid=block]')?.dataset.id ?? ""`)
	}
	replaceCached, replaceFirst := cachedIDs(), firstChanged()
	if !strings.HasPrefix(replaceFirst, "call-") {
		t.Errorf("replace: first changed block = %q; want the model's call after the removed status", replaceFirst)
	}
	b.clickID("mode-status-append")
	b.waitPath("/en/status-bar/status-append.counter-off.clock-off.alpha-10/5")
	b.waitSettled()
	appendCached, appendFirst := cachedIDs(), firstChanged()
	if appendCached == replaceCached {
		t.Errorf("cached blocks did not change when status went replace → append: %s", appendCached)
	}
	if !strings.Contains(appendCached, "status-4") || !strings.HasPrefix(appendFirst, "result-") {
		t.Errorf("append: cached %q, first changed %q; want the old status cached and the new tool result first to recompute", appendCached, appendFirst)
	}
	n := mustEval[int](b, `document.querySelectorAll('[data-testid=block][data-kind=status]').length`)
	if n != 5 {
		t.Errorf("append at call 5: %d status blocks drawn; want 5", n)
	}
	b.clickID("mode-clock-on")
	b.waitPath("/en/status-bar/status-append.counter-off.clock-on.alpha-10/5")
	b.waitSettled()
	if got := cachedIDs(); got != "" {
		t.Errorf("clock on: cached blocks %q; want none (the system prompt changed)", got)
	}
	if got := firstChanged(); got != "system" {
		t.Errorf("clock on: first changed %q; want system", got)
	}
}
