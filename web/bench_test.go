package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchGet measures the whole handler: routing, view model, templ render,
// security headers (no gzip: the request does not ask for it).
func benchGet(b *testing.B, path string) {
	s := newTestServer(b)
	req := httptest.NewRequest(http.MethodGet, path, nil)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", path, rec.Code)
		}
	}
}

// BenchmarkStepPage renders the compaction frame of the default mode.
func BenchmarkStepPage(b *testing.B) { benchGet(b, defaultState+"/8") }

// BenchmarkStepPageCustomThreshold runs the engine per request (73% is not a preset).
func BenchmarkStepPageCustomThreshold(b *testing.B) {
	benchGet(b, "/en/context-memory/compaction-on.memory-on.threshold-73.rec-1/8")
}

// BenchmarkFramesAPI encodes every frame of the default mode as JSON.
func BenchmarkFramesAPI(b *testing.B) { benchGet(b, "/api/lessons/context-memory/frames") }

// BenchmarkComparePage aligns two runs and renders both windows.
func BenchmarkComparePage(b *testing.B) {
	benchGet(b, defaultState+"/vs/compaction-off.memory-on.threshold-92.rec-1/8")
}

// BenchmarkStatusPage renders a status-bar frame with its cache and cost panels.
func BenchmarkStatusPage(b *testing.B) {
	benchGet(b, "/en/status-bar/status-append.counter-off.clock-off.alpha-10/8")
}

// BenchmarkTieredPage renders a tiered-compaction frame with its counters.
func BenchmarkTieredPage(b *testing.B) {
	benchGet(b, "/en/tiered-compaction/strategy-tiered.floor-on.summarizer-ok.budget-attempts.pairs-kept/12")
}
