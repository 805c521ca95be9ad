package web

// Tests of the tiered-compaction lesson's frames API and page. Expected
// values come from /work/shared/LESSONS.md (lesson `tiered-compaction`)
// and the lesson's own story: session.go is read by tool_use toolu_03 at
// iteration 3 and is 27 results from the tail at the first pass.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"ctxsim/sim"
)

const (
	tieredAPI     = "/api/lessons/tiered-compaction/frames"
	tieredDefault = "strategy-tiered.floor-on.summarizer-ok.budget-attempts.pairs-kept"
	tieredOff     = "strategy-tiered.floor-off.summarizer-ok.budget-attempts.pairs-kept"
	sessionRead   = "result-toolu_03" // the read of internal/auth/session.go
	tieredPass    = 11                // the first pass, in every policy
)

func tieredGet(t *testing.T, s *Server, path string) *httptest.ResponseRecorder {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

// tieredDoc is the frames API document, decoded loosely so that the test
// sees the field names a client sees.
type tieredDoc struct {
	Lesson string            `json:"lesson"`
	Policy map[string]string `json:"policy"`
	Frames []map[string]any  `json:"frames"`
}

func tieredFrames(t *testing.T, s *Server, query string) tieredDoc {
	t.Helper()
	rec := tieredGet(t, s, tieredAPI+query)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s%s = %d; want 200\n%s", tieredAPI, query, rec.Code, rec.Body.String())
	}
	var doc tieredDoc
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("GET %s%s: %v", tieredAPI, query, err)
	}
	if len(doc.Frames) == 0 {
		t.Fatalf("GET %s%s: no frames", tieredAPI, query)
	}
	return doc
}

func blocksOf(f map[string]any) []map[string]any {
	var out []map[string]any
	for _, b := range f["blocks"].([]any) {
		out = append(out, b.(map[string]any))
	}
	return out
}

func eventsOfJSON(f map[string]any, typ string) []map[string]any {
	var out []map[string]any
	for _, e := range f["events"].([]any) {
		if m := e.(map[string]any); m["type"] == typ {
			out = append(out, m)
		}
	}
	return out
}

func counter(f map[string]any, name string) int {
	c, ok := f["counters"].(map[string]any)
	if !ok {
		return -1
	}
	n, ok := c[name].(float64)
	if !ok {
		return -1
	}
	return int(n)
}

func TestTieredFramesAPIShape(t *testing.T) {
	s := newTestServer(t)
	doc := tieredFrames(t, s, "")
	if doc.Lesson != "tiered-compaction" || doc.Policy["strategy"] != "tiered" || doc.Policy["floor"] != "on" ||
		doc.Policy["summarizer"] != "ok" || doc.Policy["budget"] != "attempts" || doc.Policy["pairs"] != "kept" {
		t.Fatalf("lesson %q policy %v; want tiered-compaction with the default policy", doc.Lesson, doc.Policy)
	}
	kinds := map[string]bool{}
	events := 0
	for i, f := range doc.Frames {
		for _, k := range []string{"tokens_saved", "compression_calls", "rereads", "round_trips", "cache_invalidations"} {
			if counter(f, k) < 0 {
				t.Fatalf("frame %d: counters lack %s: %v", i+1, k, f["counters"])
			}
		}
		bs := blocksOf(f)
		for j, b := range bs {
			switch b["role"] {
			case "tool":
				for _, k := range []string{"tool", "tool_use_id", "chars", "tier", "distance"} {
					if _, ok := b[k]; !ok {
						t.Fatalf("frame %d block %v: a tool result without %q", i+1, b["id"], k)
					}
				}
				kinds[b["kind"].(string)] = true
				call := bs[j-1]
				if call["kind"] != "tool_call" || call["role"] != "assistant" || call["tool_use_id"] != b["tool_use_id"] || call["tool"] != b["tool"] {
					t.Errorf("frame %d: result %v (tool_use_id %v) is not right after its call (got %v %v)", i+1, b["id"], b["tool_use_id"], call["kind"], call["tool_use_id"])
				}
			case "assistant":
				if b["tool_use_id"] == nil || b["tool_use_id"] == "" {
					t.Errorf("frame %d: assistant block %v carries no tool_use_id", i+1, b["id"])
				}
			}
		}
		// Every cache_compaction event names its tier and the message
		// index (the system prompt is not a message: block index-1) of
		// the result it rewrote, now of that tier.
		for _, e := range eventsOfJSON(f, "cache_compaction") {
			events++
			tier, tok := e["tier"].(float64)
			idx, iok := e["index"].(float64)
			if !tok || !iok || int(idx)+1 >= len(bs) {
				t.Fatalf("frame %d: cache_compaction event %v lacks tier or index", i+1, e)
			}
			if b := bs[int(idx)+1]; b["id"] != e["block"] || b["tier"] != tier {
				t.Errorf("frame %d: event %v: messages.%d is %v at tier %v", i+1, e, int(idx), b["id"], b["tier"])
			}
		}
	}
	for _, k := range []string{"tool_result", "summary", "excerpt", "stub"} {
		if !kinds[k] {
			t.Errorf("no tool result of kind %q in any frame (kinds %v)", k, kinds)
		}
	}
	last := doc.Frames[len(doc.Frames)-1]
	if n := counter(last, "cache_invalidations"); n != events || n == 0 {
		t.Errorf("cache_invalidations = %d; want the %d cache_compaction events", n, events)
	}
	// The first pass is a frame of kind "pass"; where the session.go read
	// sits then (distance 27, a Tier 2 excerpt) is the engine's, in
	// sim/tiered_test.go TestTieredLessonStory, and the page's, in
	// TestTieredPage.
	if pass := doc.Frames[tieredPass-1]; pass["kind"] != string(sim.FramePass) {
		t.Fatalf("frame %d kind %v; want the first pass", tieredPass, pass["kind"])
	}
}

// The switches' final counters (floor off: one re-read; age: two and no
// model calls; a broken summarizer running away or capped) were asserted
// here through the frames API and are the engine's, in sim/tiered_test.go
// TestTieredRereadCycle and TestTieredLessonCounters.

var refusedIndex = regexp.MustCompile(`^invalid_request_error: messages\.(\d+): ` + "`tool_use`" + ` ids were found without ` + "`tool_result`" + ` blocks immediately after: (toolu_\w+)\.`)

func TestTieredFramesAPIRefused(t *testing.T) {
	s := newTestServer(t)
	// One refused run shows the encoding (error text, kind, the refused
	// event's index); that every policy with pairs broken is refused at an
	// orphaned call is sim/tiered_test.go TestTieredPairsAllPolicies.
	for _, q := range []string{"?pairs=broken"} {
		t.Run(q, func(t *testing.T) {
			doc := tieredFrames(t, s, q)
			f := doc.Frames[len(doc.Frames)-1]
			msg, _ := f["error"].(string)
			m := refusedIndex.FindStringSubmatch(msg)
			if f["kind"] != "refused" || m == nil {
				t.Fatalf("last frame kind %v error %q; want a refused frame with the provider's error", f["kind"], msg)
			}
			var idx int
			fmt.Sscan(m[1], &idx)
			bs := blocksOf(f)
			if call := bs[idx+1]; call["kind"] != "tool_call" || call["tool_use_id"] != m[2] || (idx+2 < len(bs) && bs[idx+2]["tool_use_id"] == m[2]) {
				t.Errorf("error names messages.%d (%s); that message is %v %v, want a tool_use without its result", idx, m[2], call["kind"], call["tool_use_id"])
			}
			evs := eventsOfJSON(f, "refused")
			if len(evs) != 1 || evs[0]["index"] != float64(idx) {
				t.Errorf("refused events %v; want one naming index %d", evs, idx)
			}
			for _, g := range doc.Frames[:len(doc.Frames)-1] {
				if g["error"] != nil {
					t.Errorf("frame %v has error %v before the refusal", g["step"], g["error"])
				}
			}
		})
	}
}

func TestTieredFramesAPIBadValues(t *testing.T) {
	s := newTestServer(t)
	for _, tc := range []struct{ query, param string }{
		{"?strategy=lru", "strategy"},
		{"?floor=maybe", "floor"},
		{"?summarizer=flaky", "summarizer"},
		{"?budget=tokens", "budget"},
		{"?pairs=some", "pairs"},
		{"?floor=on&floor=off", "floor"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			rec := tieredGet(t, s, tieredAPI+tc.query)
			var e errorBody
			if rec.Code != http.StatusBadRequest || json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Param != tc.param {
				t.Errorf("GET %s%s = %d %q; want 400 naming %s", tieredAPI, tc.query, rec.Code, rec.Body.String(), tc.param)
			}
		})
	}
}

// rowOf returns the attributes of the drawn row whose main block is id:
// its classes (role, kind, states) and its text alternative.
func rowOf(t *testing.T, html, id string) string {
	t.Helper()
	m := regexp.MustCompile(`<a class="row [^"]*"[^>]*data-row="` + regexp.QuoteMeta(id) + `"[^>]*>`).FindString(html)
	if m == "" {
		t.Fatalf("no row with data-id %q", id)
	}
	return m
}

func TestTieredPage(t *testing.T) {
	s := newTestServer(t)
	page := func(policy string, step int) string {
		path := fmt.Sprintf("/en/tiered-compaction/%s/%d", policy, step)
		rec := tieredGet(t, s, path)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET %s = %d", path, rec.Code)
		}
		return rec.Body.String()
	}
	// Before the pass: the read is whole; at the pass: cut by the floor,
	// badged with tier and distance; with the floor off: a stub.
	if row := rowOf(t, page(tieredDefault, 3), sessionRead); !strings.Contains(row, `kind-tool_result`) {
		t.Errorf("step 3: session.go row %s; want the whole result", row)
	}
	html := page(tieredDefault, tieredPass)
	if row := rowOf(t, html, sessionRead); !strings.Contains(row, `kind-excerpt`) || !strings.Contains(row, "T2·d27") {
		t.Errorf("first pass: session.go row %s; want an excerpt badged T2·d27", row)
	}
	for _, id := range []string{"counters-panel", "pass-panel", "rules-panel"} {
		if !strings.Contains(html, `data-testid="`+id+`"`) {
			t.Errorf("first pass: no %s", id)
		}
	}
	if !strings.Contains(html, `is-first-changed`) || !strings.Contains(html, "messages.2") {
		t.Errorf("first pass: the cache invalidation point (messages.2) is not marked")
	}
	if row := rowOf(t, page(tieredOff, tieredPass), sessionRead); !strings.Contains(row, `kind-stub`) || !strings.Contains(row, "T1·d27") {
		t.Errorf("floor off, first pass: session.go row %s; want a stub badged T1·d27", row)
	}
	// The mode buttons keep the point of the trajectory, even where the
	// other policy has no such frame: from the refusal to pairs kept.
	refused := page("strategy-tiered.floor-on.summarizer-ok.budget-attempts.pairs-broken", 12)
	link := regexp.MustCompile(`href="([^"]+)"[^>]*data-testid="mode-pairs-kept"`).FindStringSubmatch(refused)
	if link == nil || !strings.HasSuffix(link[1], "/"+tieredDefault+"/12") {
		t.Errorf("refused frame: mode-pairs-kept links to %v; want step 12 of the default policy (iteration 31)", link)
	}
}

// TestBrowserTieredFloor flips the floor off at the first pass in a real
// browser: the session.go row becomes a stub, and one step later the agent
// re-reads the file and the re-read counter rises.
func TestBrowserTieredFloor(t *testing.T) {
	b := browser(t, 1440, 900, true)
	path := func(policy string, step int) string {
		return fmt.Sprintf("/en/tiered-compaction/%s/%d", policy, step)
	}
	kindJS := `document.querySelector('[data-testid=block][data-id="` + sessionRead + `"]')?.dataset.kind ?? "<none>"`
	rereadsJS := `(() => {
		const row = [...document.querySelectorAll('[data-testid=counters-panel] .panel-row')]
			.find(r => r.querySelector('dt')?.textContent.trim() === 're-reads');
		return row ? row.querySelector('dd').textContent.trim() : "<none>";
	})()`

	b.open(path(tieredDefault, tieredPass))
	b.waitStep(tieredPass, 22)
	b.waitJS("session.go row, floor on", kindJS, "excerpt")
	b.waitJS("re-reads, floor on", rereadsJS, "0")

	b.clickID("mode-floor-off")
	b.waitPath(path(tieredOff, tieredPass))
	b.waitSettled()
	b.waitJS("session.go row, floor off", kindJS, "stub")
	b.waitJS("re-reads before the next edit", rereadsJS, "0")
	if got := mustEval[string](b, `document.querySelector('[data-testid=mode-floor-off]')?.getAttribute("aria-current") ?? ""`); got != "true" {
		t.Errorf("mode-floor-off aria-current = %q; want true", got)
	}

	b.clickID("step-next")
	b.waitPath(path(tieredOff, tieredPass+1))
	b.waitSettled()
	b.waitJS("re-reads after the re-read", rereadsJS, "1")
	if !b.exists(`[data-testid=block][data-id="result-toolu_rr1"]`) {
		t.Errorf("no row for the re-read (result-toolu_rr1)")
	}
	b.waitJS("the old read is still a stub", kindJS, "stub")
}
