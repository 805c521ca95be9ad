package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bigWant is what Read should find in a generated transcript.
type bigWant struct {
	records, messages, compactions int
	sidechain, offBranch           int
	progress, snapshots            int
	output                         int // sum of output tokens, each API message once
	lastText                       string
}

// bigWriter writes a synthetic Claude Code transcript record by record.
type bigWriter struct {
	w    *bufio.Writer
	n    int    // records written
	tip  string // uuid the next chain record continues
	want bigWant
	t0   time.Time
}

func (g *bigWriter) write(rec map[string]any) {
	rec["sessionId"] = "big-session"
	rec["cwd"] = "/home/alice/work/big"
	rec["timestamp"] = g.t0.Add(time.Duration(g.n) * time.Second).Format(time.RFC3339Nano)
	line, _ := json.Marshal(rec) // maps of strings, numbers and slices always encode
	g.w.Write(line)
	g.w.WriteByte('\n')
	g.n++
}

// chain writes a record on the main chain.
func (g *bigWriter) chain(uuid string, rec map[string]any) {
	rec["uuid"], rec["parentUuid"], rec["isSidechain"] = uuid, g.tip, false
	g.write(rec)
	g.tip = uuid
}

// toolOutput is a tool result of about size bytes, with a home path per line
// for the redactor to find.
func toolOutput(turn, size int) string {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "/home/alice/work/big/pkg%d/file%d.go:%d: func handler%d(w http.ResponseWriter, r *http.Request) { // TODO\n", turn%7, i%50, i, i)
	}
	return b.String()
}

// turn writes one user prompt, an assistant message split into a text record
// and a tool_use record sharing its id (usage repeated), a progress record
// and the tool result.
func (g *bigWriter) turn(i int) {
	usage := map[string]any{"input_tokens": 3, "cache_read_input_tokens": 1000 + i, "cache_creation_input_tokens": 50, "output_tokens": i%100 + 1,
		"cache_creation": map[string]any{"ephemeral_5m_input_tokens": 50}}
	msgID := fmt.Sprintf("msg_%d", i)
	g.chain(fmt.Sprintf("u%d", i), map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": fmt.Sprintf("Step %d: look at the handlers.", i)}})
	g.chain(fmt.Sprintf("a%d", i), map[string]any{"type": "assistant", "message": map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Reading batch %d.", i)}}, "usage": usage}})
	call := fmt.Sprintf("toolu_%d", i)
	g.chain(fmt.Sprintf("b%d", i), map[string]any{"type": "assistant", "message": map[string]any{"id": msgID, "role": "assistant", "model": "claude-sonnet-4-5",
		"content": []any{map[string]any{"type": "tool_use", "id": call, "name": "Grep", "input": map[string]any{"pattern": "TODO", "path": "/home/alice/work/big"}}}, "usage": usage}})
	g.write(map[string]any{"type": "progress", "uuid": fmt.Sprintf("p%d", i), "parentUuid": g.tip, "data": map[string]any{"type": "hook_progress"}})
	size := 1 << 10
	if i%10 == 0 {
		size = 100 << 10
	}
	g.chain(fmt.Sprintf("r%d", i), map[string]any{"type": "user", "message": map[string]any{"role": "user",
		"content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": toolOutput(i, size)}}}})
	g.want.messages += 3
	g.want.progress++
	g.want.output += i%100 + 1
	g.want.lastText = fmt.Sprintf("Reading batch %d.", i)
}

// extras writes, between turns, a compaction every 500 turns, a sidechain
// pair every 300 and one abandoned branch.
func (g *bigWriter) extras(i int) {
	if i > 0 && i%500 == 0 {
		prev := g.tip
		g.tip = ""
		g.chain(fmt.Sprintf("cb%d", i), map[string]any{"type": "system", "subtype": "compact_boundary", "logicalParentUuid": prev,
			"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 160000 + i}})
		g.chain(fmt.Sprintf("cs%d", i), map[string]any{"type": "user", "isCompactSummary": true,
			"message": map[string]any{"role": "user", "content": fmt.Sprintf("Summary before step %d.", i)}})
		g.want.compactions++
	}
	if i%300 == 0 {
		g.write(map[string]any{"type": "user", "uuid": fmt.Sprintf("s%d", i), "parentUuid": nil, "isSidechain": true, "message": map[string]any{"role": "user", "content": "sub task"}})
		g.write(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("sa%d", i), "parentUuid": fmt.Sprintf("s%d", i), "isSidechain": true,
			"message": map[string]any{"id": fmt.Sprintf("msg_s%d", i), "role": "assistant", "content": "done"}})
		g.want.sidechain += 2
	}
	if i == 100 {
		g.write(map[string]any{"type": "assistant", "uuid": "abandoned", "parentUuid": g.tip,
			"message": map[string]any{"id": "msg_abandoned", "role": "assistant", "content": "an answer the user rewound"}})
		g.want.offBranch++
	}
}

// writeBigSession writes a transcript of exactly n records (n ≥ 100) with
// large tool results to path and returns what Read should find.
func writeBigSession(tb testing.TB, path string, n int) bigWant {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	g := &bigWriter{w: bufio.NewWriterSize(f, 1<<20), t0: time.Date(2025, 7, 1, 9, 0, 0, 0, time.UTC)}
	for i := 0; g.n+12 <= n; i++ {
		g.extras(i)
		g.turn(i)
	}
	for g.n < n {
		g.write(map[string]any{"type": "file-history-snapshot", "messageId": "x", "snapshot": map[string]any{}})
		g.want.snapshots++
	}
	if err := g.w.Flush(); err != nil {
		tb.Fatal(err)
	}
	g.want.records = g.n
	return g.want
}

// TestReadLargeClaudeCode reads a generated 10,000-record, ~20 MB transcript.
func TestReadLargeClaudeCode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	want := writeBigSession(t, path, 10000)
	if fi, err := os.Stat(path); err != nil || fi.Size() < 15<<20 {
		t.Fatalf("generated transcript: %v, %d bytes; want at least 15 MiB", err, fi.Size())
	}
	s := mustRead(t, path, Options{Redact: true, Home: "/home/alice"})
	output := 0
	for _, m := range s.Messages {
		if m.Usage != nil {
			output += m.Usage.Output
		}
	}
	skipped := map[string]int{"sidechain": want.sidechain, "off-branch": want.offBranch, "progress": want.progress, "file-history-snapshot": want.snapshots}
	switch {
	case s.Records != want.records:
		t.Errorf("Read(big).Records = %d; want %d", s.Records, want.records)
	case len(s.Messages) != want.messages:
		t.Errorf("len(Read(big).Messages) = %d; want %d", len(s.Messages), want.messages)
	case len(s.Compactions) != want.compactions:
		t.Errorf("len(Read(big).Compactions) = %d; want %d", len(s.Compactions), want.compactions)
	case output != want.output:
		t.Errorf("Read(big) output tokens = %d; want %d (each API message once)", output, want.output)
	case !equalCounts(s.Skipped, skipped):
		t.Errorf("Read(big).Skipped = %v; want %v", s.Skipped, skipped)
	case s.Messages[len(s.Messages)-2].Text != want.lastText:
		t.Errorf("Read(big) last assistant text = %q; want %q", s.Messages[len(s.Messages)-2].Text, want.lastText)
	case s.Redactions["home"] == 0 || strings.Contains(s.Messages[len(s.Messages)-1].Text, "/home/alice"):
		t.Errorf("Read(big) left the home directory in: %v", s.Redactions)
	}
	for i, c := range s.Compactions {
		if c.Summary == "" || c.Trigger != "auto" || c.Before <= 0 || c.Before > len(s.Messages) {
			t.Errorf("Read(big).Compactions[%d] = %+v; want a summary and a place", i, c)
		}
	}
}

// BenchmarkReadClaudeCode10k reads a generated 10,000-record, ~20 MB
// transcript with redaction on, as the import command does, and reports the
// memory the process got from the OS (MiB) as a bound on its peak.
func BenchmarkReadClaudeCode10k(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	writeBigSession(b, path, 10000)
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	b.SetBytes(fi.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Read(path, Options{Redact: true, Home: "/home/alice"}); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.Sys)/(1<<20), "sys-MiB")
	b.ReportMetric(float64(ms.HeapSys)/(1<<20), "heap-sys-MiB")
}
