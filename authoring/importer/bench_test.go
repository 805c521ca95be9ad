package importer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ctxsim/authoring/transcript"
	"ctxsim/authoring/transcript/synth"
)

// BenchmarkImport10k imports a generated Claude Code session of about
// 10,000 records (200 user turns of 24 tool calls, a compaction every 8
// turns): read, build, load and replay under every preset.
func BenchmarkImport10k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "synthetic.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	n, err := synth.Write(f, synth.Options{Turns: 200, Rounds: 24, CompactEvery: 8, ResultChars: 2000, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	f.Close()
	tok := counter(b)
	b.ReportMetric(float64(n), "records")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := transcript.Read(path, transcript.Options{Redact: true})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Write(context.Background(), s, Options{Dir: b.TempDir(), Redacted: true, Now: time.Now(), Tokens: tok}); err != nil {
			b.Fatal(err)
		}
	}
}
