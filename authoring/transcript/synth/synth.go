// Package synth writes synthetic agent sessions in Claude Code's JSON
// Lines format, for benchmarks and tests of import: every text says it is
// synthetic, and the session id starts with "synthetic-". Nothing it writes
// is a recording.
package synth

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"time"
)

// Options shape a synthetic session.
type Options struct {
	Turns        int // user turns; each is 2 + 2 × Rounds records (prompt, calls and results, answer)
	Rounds       int // tool calls per turn, each its own model call (0: 1)
	CompactEvery int // a compaction (2 records) after every this many turns (0: none)
	ResultChars  int // mean characters of a tool result
	Seed         uint64
}

// Write writes the session and returns how many records it wrote.
func Write(w io.Writer, o Options) (int, error) {
	g := &gen{w: bufio.NewWriterSize(w, 1<<16), r: rand.New(rand.NewPCG(o.Seed, 7)),
		at: time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC), o: o}
	for turn := 1; turn <= o.Turns && g.err == nil; turn++ {
		g.turn(turn)
		if o.CompactEvery > 0 && turn%o.CompactEvery == 0 && turn < o.Turns {
			g.compact(turn)
		}
	}
	if g.err == nil {
		g.err = g.w.Flush()
	}
	return g.n, g.err
}

type gen struct {
	w      *bufio.Writer
	r      *rand.Rand
	at     time.Time
	o      Options
	n      int
	parent string
	cache  int
	err    error
}

var tools = []struct{ name, key, arg string }{
	{"Read", "file_path", "/work/app/internal/store/store%d.go"},
	{"Bash", "command", "go test ./internal/store/... -run TestCase%d"},
	{"Grep", "pattern", "func Handle%d"},
	{"Edit", "file_path", "/work/app/internal/store/store%d.go"},
}

func (g *gen) turn(k int) {
	g.record("user", map[string]any{"role": "user", "content": fmt.Sprintf("Synthetic turn %d: look at case %d and fix what fails.", k, k)}, nil)
	rounds := max(g.o.Rounds, 1)
	for j := 1; j <= rounds; j++ {
		n := (k-1)*rounds + j
		tool := tools[n%len(tools)]
		callID := fmt.Sprintf("toolu_synth%06d", n)
		g.record("assistant", map[string]any{"id": fmt.Sprintf("msg_synth%06d", n), "role": "assistant", "model": "synthetic-model",
			"content": []any{
				map[string]any{"type": "text", "text": fmt.Sprintf("Synthetic: I will check case %d, step %d.", k, j)},
				map[string]any{"type": "tool_use", "id": callID, "name": tool.name, "input": map[string]any{tool.key: fmt.Sprintf(tool.arg, n)}},
			}, "usage": g.usage(40)}, nil)
		g.record("user", map[string]any{"role": "user", "content": []any{
			map[string]any{"type": "tool_result", "tool_use_id": callID, "content": g.result(n)},
		}}, nil)
	}
	g.record("assistant", map[string]any{"id": fmt.Sprintf("msg_synth%06db", k), "role": "assistant", "model": "synthetic-model",
		"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Synthetic: case %d passes after the change.", k)}},
		"usage":   g.usage(20)}, nil)
}

func (g *gen) compact(k int) {
	pre := g.cache
	g.record("system", nil, map[string]any{"subtype": "compact_boundary", "content": "Conversation compacted", "parentUuid": nil,
		"logicalParentUuid": g.parent, "compactMetadata": map[string]any{"trigger": "auto", "preTokens": pre}})
	g.record("user", map[string]any{"role": "user", "content": fmt.Sprintf(
		"This session is being continued from a previous conversation that ran out of context. Synthetic summary: turns up to %d fixed their cases; the next case is %d.", k, k+1)},
		map[string]any{"isCompactSummary": true, "isVisibleInTranscriptOnly": true})
	g.cache = 0
}

// usage grows the cached prefix as a real session's does.
func (g *gen) usage(out int) map[string]any {
	u := map[string]any{"input_tokens": 8, "cache_creation_input_tokens": 400, "cache_read_input_tokens": g.cache, "output_tokens": out}
	g.cache += 60 + g.o.ResultChars*3/10 // about what a result and a call cost
	return u
}

func (g *gen) result(k int) string {
	n := g.o.ResultChars/2 + g.r.IntN(g.o.ResultChars+1)
	var b strings.Builder
	fmt.Fprintf(&b, "synthetic output of case %d\n", k)
	for line := 1; b.Len() < n; line++ {
		fmt.Fprintf(&b, "%4d\tfunc handle%d_%d(ctx context.Context, id int64) error { return store.Touch(ctx, id+%d) }\n", line, k, line, g.r.IntN(1000))
	}
	return b.String()
}

func (g *gen) record(typ string, msg map[string]any, extra map[string]any) {
	if g.err != nil {
		return
	}
	g.n++
	g.at = g.at.Add(time.Duration(2+g.r.IntN(20)) * time.Second)
	uuid := fmt.Sprintf("synth-%06d", g.n)
	rec := map[string]any{"type": typ, "parentUuid": g.parent, "isSidechain": false, "cwd": "/work/app",
		"sessionId": "synthetic-session", "version": "synthetic", "uuid": uuid, "timestamp": g.at.Format("2006-01-02T15:04:05.000Z")}
	if g.parent == "" {
		rec["parentUuid"] = nil
	}
	if msg != nil {
		rec["message"] = msg
	}
	for k, v := range extra {
		rec[k] = v
	}
	g.parent = uuid
	data, err := json.Marshal(rec)
	if err != nil {
		g.err = err
		return
	}
	_, g.err = g.w.Write(append(data, '\n'))
}
