package web

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// benchGet measures the whole handler on a server that keeps no page and
// no replay, so these numbers stay comparable with those from before the
// caches: routing, replays of typed policies, view model, templ render,
// security headers (no compression: the request does not ask for it).
func benchGet(b *testing.B, path string) {
	s := newUncachedServer(b)
	benchServe(b, s, path, "")
}

// benchServe measures GET path with an Accept-Encoding header on s.
func benchServe(b *testing.B, s *Server, path, accept string) {
	req := httptest.NewRequest(http.MethodGet, path, nil)
	if accept != "" {
		req.Header.Set("Accept-Encoding", accept)
	}
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

// BenchmarkStepPageCached serves the compaction frame of the default mode
// from the page cache, brotli-encoded, as a browser asks for it over HTTPS.
func BenchmarkStepPageCached(b *testing.B) {
	benchServe(b, newTestServer(b), defaultState+"/8", "gzip, br")
}

// BenchmarkStepPageTypedThresholdCold measures what the first visitor of a
// typed-threshold page waits for, with the caches on: before every
// iteration both caches are emptied (timer stopped), so each request
// replays its typed policies (its own and those of its mode links, each
// once) and renders, hashes and compresses the page. Preset runs stay: every
// server makes them at start-up. The sub-benchmarks split the cost by what
// the request accepts: identity (render only), gzip (+ gzip -6) and
// "gzip, br" (+ brotli -5).
func BenchmarkStepPageTypedThresholdCold(b *testing.B) {
	s := newServerWith(b, Config{})
	path := "/en/context-memory/compaction-on.memory-on.threshold-73.rec-1/8"
	for _, enc := range []struct{ name, accept string }{{"identity", ""}, {"gzip", "gzip"}, {"br", "gzip, br"}} {
		b.Run(enc.name, func(b *testing.B) {
			req := httptest.NewRequest(http.MethodGet, path, nil)
			if enc.accept != "" {
				req.Header.Set("Accept-Encoding", enc.accept)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				b.StopTimer()
				s.caches.pages.Reset()
				s.runs.replays.Reset()
				rec := httptest.NewRecorder()
				b.StartTimer()
				s.Handler().ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("GET %s = %d", path, rec.Code)
				}
			}
		})
	}
}
