package importer

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// The shared real session (marot/spotter, MIT) and the shapes fixtures
// (jazzyalex/agent-sessions, MIT), in the transcript package's test data.
const realSession = "claude-code-real/4d5611e5-241a-462a-8d15-5122611a9569.jsonl"

// calibrated are the files the calibration tests import: the real
// session, the shapes fixtures of Claude Code (unknown fields included)
// and of Codex, and the small Codex files with compactions.
var calibrated = []string{realSession,
	"shapes/claude/small.jsonl", "shapes/claude/large.jsonl", "shapes/claude/schema_drift.jsonl",
	"shapes/claude/subagent/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f.jsonl",
	"shapes/codex/small.jsonl", "shapes/codex/large.jsonl",
	"cx_compaction.jsonl", "cx_local_compaction.jsonl", "cx_parallel.jsonl", "cx_plain.jsonl", "cc_compaction.jsonl", "cc_plain.jsonl"}

// TestCalibrated: at every recorded model call of the session as it
// happened, the frame that shows the request holds exactly what the
// provider counted, as this test reads it from the file itself: before
// the compaction, at it and after it. Every frame's categories sum to its
// total, and the request the file records nothing of is marked.
func TestCalibrated(t *testing.T) {
	for _, file := range calibrated {
		t.Run(filepath.Base(file), func(t *testing.T) {
			want := providerCounts(t, filepath.Join("..", "transcript", "testdata", file))
			l := importFile(t, file, 0)
			r, err := sim.Run(l.Lesson, l.DefaultPolicy(), counter(t))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, f := range r.Frames {
				if f.Provider != nil {
					got = append(got, f.Total)
				}
				checkCategories(t, f)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("the request frames hold %v; the file records %v", got, want)
			}
			if file == realSession {
				logFigures(t, r, want)
			}
			if len(want) > 0 {
				first := r.Frames[0].Blocks()
				if first[0].Kind != sim.KindUnseen && (len(first) < 2 || first[1].Kind != sim.KindUnseen) {
					t.Errorf("the first frame starts %s %s; want the block of what the file does not hold in the header", first[0].ID, first[0].Kind)
				}
			}
		})
	}
}

// TestRealSessionFigures: the real session's figures, from the file: 139
// requests, the first 26,450 tokens, the last before the compaction
// 164,831, the first after it 36,081 and reading only the stable prefix
// (21,478) from the cache.
func TestRealSessionFigures(t *testing.T) {
	want := providerCounts(t, filepath.Join("..", "transcript", "testdata", realSession))
	if len(want) != 139 || want[0] != 26450 || !slices.Contains(want, 164831) || !slices.Contains(want, 36081) {
		t.Fatalf("the file's requests: %d, first %d; want 139 from 26,450, with 164,831 and 36,081", len(want), want[0])
	}
	l := importFile(t, realSession, 0)
	r, err := sim.Run(l.Lesson, l.DefaultPolicy(), counter(t))
	if err != nil {
		t.Fatal(err)
	}
	after := false
	for _, f := range r.Frames {
		if f.Kind == sim.FrameReplaced {
			after = true
			if f.Total != 36081 {
				t.Errorf("the compaction leaves %d in the window; want the first request after it, 36,081", f.Total)
			}
			continue
		}
		if after && f.Provider != nil {
			if f.Provider.CacheRead != 21478 || f.Provider.Tokens != 36081 || !f.Provider.Matches {
				t.Errorf("the first request after the compaction: %+v; want 36,081 with 21,478 read from the cache", f.Provider)
			}
			cached := 0
			for _, b := range f.Blocks() {
				if b.Cached {
					cached += b.Tokens
				}
			}
			if cached > 21478 {
				t.Errorf("%d tokens of blocks are marked read from the cache; the provider read 21,478", cached)
			}
			break
		}
	}
	if !after {
		t.Fatal("the default policy does not compact where the session did")
	}
}

// TestOwnThreshold: the session's own threshold (its preTokens over the
// window) is offered, first, named for it; with compaction on at it, the
// replay compacts within a few model calls of where the session did.
func TestOwnThreshold(t *testing.T) {
	l := importFile(t, realSession, 0)
	pr, _ := l.Param("threshold")
	if pr.Presets[0] != "85" || pr.Labels["85"] != "value.threshold-own" || pr.Default != "85" {
		t.Fatalf("threshold presets %v, labels %v, default %s; want the session's own 85%% first, named, the default", pr.Presets, pr.Labels, pr.Default)
	}
	asRecorded, on := callsBefore(t, l, "recorded"), callsBefore(t, l, "on")
	if asRecorded < 0 || on < 0 || on-asRecorded > 3 || asRecorded-on > 3 {
		t.Errorf("the session compacted after %d model calls; at its own threshold the replay compacts after %d: want within 3", asRecorded, on)
	}
	t.Logf("compacted after %d model calls as recorded, after %d at the session's own threshold", asRecorded, on)
}

// callsBefore replays l with compaction mode and counts the request
// frames before its first compaction (-1: none).
func callsBefore(t *testing.T, l *scenarios.Lesson, mode string) int {
	t.Helper()
	p, err := l.With(l.DefaultPolicy(), "compaction", mode)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(l.Lesson, p, counter(t))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range r.Frames {
		switch {
		case f.Kind == sim.FrameSelected:
			return n
		case f.Kind == sim.FrameStep && f.Provider != nil:
			n++
		}
	}
	return -1
}

// checkCategories: a frame's categories sum to its total.
func checkCategories(t *testing.T, f sim.Frame) {
	t.Helper()
	sum := 0
	for _, c := range f.Categories {
		sum += c.Tokens
	}
	if sum != f.Total {
		t.Errorf("frame %d: categories %v sum to %d; the total is %d", f.Step, f.Categories, sum, f.Total)
	}
}

// logFigures reports the figures the coordinator's note quotes.
func logFigures(t *testing.T, r *sim.Replay, want []int) {
	t.Helper()
	var unseen []int
	last, next := 0, 0
	after := false
	for _, f := range r.Frames {
		if f.Kind == sim.FrameReplaced {
			after = true
		}
		if f.Provider == nil {
			continue
		}
		if len(unseen) == 0 || (after && next == 0) {
			unseen = append(unseen, f.Blocks()[0].Tokens)
		}
		if after && next == 0 {
			next = f.Total
		} else if !after {
			last = f.Total
		}
	}
	t.Logf("%d requests calibrated; unseen %v; last before the compaction %d, first after %d", len(want), unseen, last, next)
}

// importFile imports a file of the transcript package's test data (with
// its window, 0: the model family's) and loads it as serve does.
func importFile(t *testing.T, file string, window int) *scenarios.Lesson {
	t.Helper()
	dir := t.TempDir()
	rep, err := Write(context.Background(), read(t, file), Options{Dir: dir, Window: window, Redacted: true, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	return load(t, dir, rep.ID)
}

// providerCounts reads, from a session file itself, what the provider
// counted for each model call on the session's chain, in order: for
// Claude Code the input, cache-creation and cache-read tokens of each
// assistant message on the chain (a message id streamed over several
// records once); for Codex the input tokens of each token_count that
// follows an answer. It reads only what it needs, with encoding/json.
func providerCounts(t *testing.T, path string) []int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []rawRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r rawRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			recs = append(recs, r)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(recs) > 0 && recs[0].Payload != nil || len(recs) > 1 && recs[1].Payload != nil {
		return codexCounts(recs)
	}
	return claudeCounts(recs)
}

// rawRecord is the little of a record the test reads.
type rawRecord struct {
	Type          string  `json:"type"`
	UUID          string  `json:"uuid"`
	Parent        *string `json:"parentUuid"`
	LogicalParent *string `json:"logicalParentUuid"`
	Sidechain     bool    `json:"isSidechain"`
	Message       *struct {
		ID    string `json:"id"`
		Usage *struct {
			Input    int `json:"input_tokens"`
			Creation int `json:"cache_creation_input_tokens"`
			Read     int `json:"cache_read_input_tokens"`
		} `json:"usage"`
	} `json:"message"`
	Payload *struct {
		Type string `json:"type"`
		Role string `json:"role"`
		Info *struct {
			Total map[string]int `json:"total_token_usage"`
			Last  struct {
				Input int `json:"input_tokens"`
			} `json:"last_token_usage"`
		} `json:"info"`
	} `json:"payload"`
}

// claudeCounts follows the chain from the newest message back to the root
// (across a compaction by its logical parent, or, when that is not in the
// file, the newest record on a chain before it) and lists the usage of its
// assistant messages. A record that repeats the uuid of one before it is a
// copy: it is not read.
func claudeCounts(recs []rawRecord) []int {
	at := map[string]int{}
	leaf := -1
	for i, r := range recs {
		if _, dup := at[r.UUID]; dup {
			continue // a record repeating a uuid already read is a copy
		}
		if r.UUID != "" {
			at[r.UUID] = i
		}
		if (r.Type == "user" || r.Type == "assistant") && !r.Sidechain {
			leaf = i
		}
	}
	var chain []int
	visited := map[int]bool{}
	for i := leaf; i >= 0 && !visited[i]; {
		visited[i] = true
		chain = append(chain, i)
		r := recs[i]
		switch {
		case r.Parent != nil && *r.Parent != "":
			i = parentAt(at, *r.Parent)
		case r.LogicalParent != nil && *r.LogicalParent != "":
			if j, ok := at[*r.LogicalParent]; ok {
				i = j
				continue
			}
			i = -1
			for j := chain[len(chain)-1] - 1; j >= 0; j-- {
				if recs[j].UUID != "" && !recs[j].Sidechain && recs[j].Type != "progress" {
					i = j
					break
				}
			}
		default:
			i = -1
		}
	}
	slices.Reverse(chain)
	var out []int
	seen := map[string]bool{}
	for _, i := range chain {
		r := recs[i]
		if r.Type != "assistant" || r.Message == nil || r.Message.Usage == nil || seen[r.Message.ID] {
			continue
		}
		seen[r.Message.ID] = true
		u := r.Message.Usage
		out = append(out, u.Input+u.Creation+u.Read)
	}
	return out
}

func parentAt(at map[string]int, uuid string) int {
	if j, ok := at[uuid]; ok {
		return j
	}
	return -1
}

// codexCounts lists the input tokens of each token_count event that
// follows an answer (a response item of the assistant, or a call) with no
// compaction between, leaving out repeats (the same total usage again)
// and the harness's estimates.
func codexCounts(recs []rawRecord) []int {
	var out []int
	answered := false
	var total map[string]int
	for _, r := range recs {
		p := r.Payload
		if p == nil {
			continue
		}
		switch {
		case r.Type == "response_item" && (p.Role == "assistant" || strings.HasSuffix(p.Type, "call")):
			answered = true
		case r.Type == "compacted" || p.Type == "context_compacted":
			answered = false // a count after a compaction counts no answer before it
		case r.Type == "event_msg" && p.Type == "token_count" && p.Info != nil && p.Info.Last.Input > 0:
			if !answered || mapsEqual(total, p.Info.Total) {
				continue
			}
			total = p.Info.Total
			out = append(out, p.Info.Last.Input)
			answered = false
		}
	}
	return out
}

func mapsEqual(a, b map[string]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
