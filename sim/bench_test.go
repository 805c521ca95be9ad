package sim_test

import (
	"testing"

	"ctxsim/sim"
)

// BenchmarkRunTypedThreshold replays context-memory at a threshold no
// button offers (73%): what a page with a typed threshold runs per request.
func BenchmarkRunTypedThreshold(b *testing.B) {
	benchRun(b, "context-memory", "threshold", "73")
}

// BenchmarkRunMechanical replays a threshold whose ranges have no card
// (96%): a mechanical excerpt is cut and counted.
func BenchmarkRunMechanical(b *testing.B) { benchRun(b, "context-memory", "threshold", "96") }

// BenchmarkRunStatus replays status-bar with its cost model (two more
// runs, replace and append).
func BenchmarkRunStatus(b *testing.B) { benchRun(b, "status-bar", "status", "append") }

// BenchmarkRunTiered replays the 40-iteration tiered lesson.
func BenchmarkRunTiered(b *testing.B) { benchRun(b, "tiered-compaction", "floor", "off") }

func benchRun(b *testing.B, id string, kv ...string) {
	tok, err := loadTok()
	if err != nil {
		b.Fatal(err)
	}
	ls, err := loadBuiltins()
	if err != nil {
		b.Fatal(err)
	}
	l := ls[id]
	p := policyOf(b, l, kv...)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := sim.Run(l, p, tok); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunStrategies replays compression-strategies under per result
// (the most iterations: five fetches).
func BenchmarkRunStrategies(b *testing.B) {
	benchRun(b, "compression-strategies", "strategy", "per-result")
}

// BenchmarkRunSliding replays the sliding window (a slide and a cache
// comparison at every round).
func BenchmarkRunSliding(b *testing.B) { benchRun(b, "sliding-window", "history", "sliding") }

// BenchmarkRunSubagent replays the isolated search (two windows).
func BenchmarkRunSubagent(b *testing.B) { benchRun(b, "subagent-isolation", "isolation", "on") }
