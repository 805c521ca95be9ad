package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The real Claude Code session (marot/spotter, MIT; see testdata/README.md)
// and the files Claude Code wrote beside it.
var (
	realSession = filepath.Join("testdata", "claude-code-real", "4d5611e5-241a-462a-8d15-5122611a9569.jsonl")
	realSide    = filepath.Join("testdata", "claude-code-real", "4d5611e5-241a-462a-8d15-5122611a9569", "subagents")
)

// fileFacts is what a test counts in a Claude Code file itself, with
// encoding/json and nothing of the reader: the provider's count of each
// request (input + cache writes + cache reads of each API message's usage,
// once per message id, in file order), and the lines of the records it
// needs.
type fileFacts struct {
	requests  []int // each request's size, in file order
	lines     []int // the line of each request's first record
	models    []string
	usages    []Usage
	boundary  int    // line of the compact_boundary, 0 if none
	preTokens int    // its compactMetadata.preTokens
	summary   string // the isCompactSummary record's text
	agentCall map[string]string
}

// countFile reads a Claude Code file record by record.
func countFile(t *testing.T, path string, sidechains bool) fileFacts {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	facts := fileFacts{agentCall: map[string]string{}}
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for line := 1; sc.Scan(); line++ {
		var r struct {
			Type            string `json:"type"`
			Subtype         string `json:"subtype"`
			IsSidechain     bool   `json:"isSidechain"`
			IsCompactSum    bool   `json:"isCompactSummary"`
			CompactMetadata struct {
				PreTokens int `json:"preTokens"`
			} `json:"compactMetadata"`
			ToolUseResult json.RawMessage `json:"toolUseResult"`
			Message       struct {
				ID      string          `json:"id"`
				Model   string          `json:"model"`
				Content json.RawMessage `json:"content"`
				Usage   *struct {
					Input    int `json:"input_tokens"`
					Creation int `json:"cache_creation_input_tokens"`
					Read     int `json:"cache_read_input_tokens"`
					Output   int `json:"output_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%s:%d: %v", path, line, err)
		}
		if r.IsSidechain && !sidechains {
			continue
		}
		switch {
		case r.Type == "assistant" && r.Message.Usage != nil && !seen[r.Message.ID]:
			seen[r.Message.ID] = true
			u := r.Message.Usage
			facts.requests = append(facts.requests, u.Input+u.Creation+u.Read)
			facts.lines = append(facts.lines, line)
			facts.models = append(facts.models, r.Message.Model)
			facts.usages = append(facts.usages, Usage{Input: u.Input, CacheRead: u.Read, CacheCreation: u.Creation, Output: u.Output})
		case r.Subtype == "compact_boundary":
			facts.boundary, facts.preTokens = line, r.CompactMetadata.PreTokens
		case r.IsCompactSum:
			json.Unmarshal(r.Message.Content, &facts.summary) //nolint:errcheck // the summary is a string in this file
		}
		var res struct {
			AgentID string `json:"agentId"`
		}
		if json.Unmarshal(r.ToolUseResult, &res) == nil && res.AgentID != "" {
			var blocks []struct {
				ToolUseID string `json:"tool_use_id"`
			}
			json.Unmarshal(r.Message.Content, &blocks) //nolint:errcheck // a result's content is blocks
			facts.agentCall[res.AgentID] = blocks[0].ToolUseID
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return facts
}

// TestRealSessionRequests checks that the chain of the real session holds
// every recorded request, each with the provider's count as the file
// records it, across the compaction whose logical parent is not in the file.
func TestRealSessionRequests(t *testing.T) {
	facts := countFile(t, realSession, false)
	s := mustRead(t, realSession, Options{})
	reqs := s.Requests()
	if len(reqs) != len(facts.requests) {
		t.Fatalf("Requests() = %d; the file records %d", len(reqs), len(facts.requests))
	}
	last := -1 // the last request before the compaction, by the file
	for i, r := range reqs {
		if r.Usage.InputTotal() != facts.requests[i] || s.Messages[r.Answer].Line != facts.lines[i] {
			t.Fatalf("request %d = %d tokens at line %d; the file says %d at line %d", i, r.Usage.InputTotal(), s.Messages[r.Answer].Line, facts.requests[i], facts.lines[i])
		}
		if facts.lines[i] < facts.boundary {
			last = i
		}
		if want := map[bool]int{true: -1, false: 0}[facts.lines[i] < facts.boundary]; r.Compaction != want {
			t.Errorf("request %d (line %d) follows compaction %d; want %d", i, facts.lines[i], r.Compaction, want)
		}
	}
	t.Logf("%d requests; the last before the compaction %d tokens, the first after %d", len(reqs), facts.requests[last], facts.requests[last+1])
	if len(s.Compactions) != 1 {
		t.Fatalf("Compactions = %d; want 1", len(s.Compactions))
	}
	c := s.Compactions[0]
	if c.Line != facts.boundary || c.PreTokens != facts.preTokens || c.Summary != facts.summary || c.Trigger != "auto" || c.Before != reqs[last+1].From {
		t.Errorf("Compactions[0] = line %d pre %d trigger %q summary %d bytes, before %d; the file says line %d pre %d, a %d-byte summary",
			c.Line, c.PreTokens, c.Trigger, len(c.Summary), c.Before, facts.boundary, facts.preTokens, len(facts.summary))
	}
	if s.Model != facts.models[0] || len(s.Skipped) == 0 || s.Skipped["off-branch"] != 0 {
		t.Errorf("Read() model %q, skipped %v; want %q and nothing off the chain", s.Model, s.Skipped, facts.models[0])
	}
	checkSession(t, s)
	checkAnswered(t, s)
}

// checkAnswered checks that every tool call has its result before the next
// request, but for the calls of the last answer.
func checkAnswered(t *testing.T, s *Session) {
	t.Helper()
	answered := map[string]bool{}
	for _, m := range s.Messages {
		if m.Role == Tool {
			answered[m.CallID] = true
		}
	}
	lastAnswer := 0
	for i, m := range s.Messages {
		if m.Role == Assistant {
			lastAnswer = i
		}
	}
	for i, m := range s.Messages[:lastAnswer] {
		for _, c := range m.Calls {
			if !answered[c.ID] {
				t.Errorf("Messages[%d] (line %d): call %s %s has no result on the chain", i, m.Line, c.ID, c.Name)
			}
		}
	}
}

// TestRealSessionSidecars checks the files beside the real session: the
// compaction call, which reads the session's prompt cache, and the Task
// sub-agent, linked to the call that started it.
func TestRealSessionSidecars(t *testing.T) {
	main := countFile(t, realSession, false)
	compact := countFile(t, filepath.Join(realSide, "agent-acompact-e1f845.jsonl"), true)
	sub := countFile(t, filepath.Join(realSide, "agent-a2898e3.jsonl"), true)
	s := mustRead(t, realSession, Options{Redact: true, Home: "/home/USER"})

	call := s.Compactions[0].Call
	if call == nil {
		t.Fatal("Compactions[0].Call = nil; want the compaction call of agent-acompact-e1f845.jsonl")
	}
	last := len(compact.usages) - 1
	if call.File != "agent-acompact-e1f845.jsonl" || call.Model != compact.models[last] || call.Usage == nil || *call.Usage != compact.usages[last] {
		t.Errorf("Call = %s %s %+v; the file says %s %+v", call.File, call.Model, call.Usage, compact.models[last], compact.usages[last])
	}
	if call.Through != s.Compactions[0].Before-1 || len(call.Prompt) == 0 || !strings.Contains(call.Prompt[len(call.Prompt)-1].Text, "summary") || call.Answer == "" {
		t.Errorf("Call through %d (want %d), prompt %d messages, answer %d bytes", call.Through, s.Compactions[0].Before-1, len(call.Prompt), len(call.Answer))
	}
	// The compactor's request reads what the session's last request before
	// the compaction wrote to the cache.
	lastBefore := 0
	for i, line := range main.lines {
		if line < main.boundary {
			lastBefore = main.requests[i]
		}
	}
	if call.Usage.CacheRead < lastBefore*99/100 || call.Usage.CacheRead > lastBefore {
		t.Errorf("Call reads %d from the cache; want within 1%% below the last request, %d", call.Usage.CacheRead, lastBefore)
	}
	t.Logf("compaction call: %+v, %d in; the session's last request %d", *call.Usage, call.Usage.InputTotal(), lastBefore)

	if len(s.Subagents) != 1 {
		t.Fatalf("Subagents = %d; want 1", len(s.Subagents))
	}
	sa := s.Subagents[0]
	if sa.AgentID != "a2898e3" || sa.CallID != main.agentCall["a2898e3"] || sa.LinkedBy != "agentId" || sa.Message < 0 {
		t.Fatalf("Subagents[0] = %+v; want agent a2898e3 linked by agentId to %s", sa, main.agentCall["a2898e3"])
	}
	found := false
	for _, c := range s.Messages[sa.Message].Calls {
		found = found || (c.ID == sa.CallID && c.Name == "Task")
	}
	reqs := sa.Session.Requests()
	if !found || len(reqs) != len(sub.requests) {
		t.Errorf("sub-agent: Task call found %v, %d requests; the file records %d", found, len(reqs), len(sub.requests))
	}
	for i, r := range reqs {
		if r.Usage.InputTotal() != sub.requests[i] {
			t.Errorf("sub-agent request %d = %d; the file says %d", i, r.Usage.InputTotal(), sub.requests[i])
		}
	}
	checkAnswered(t, sa.Session)
}

// TestReadFSMatchesRead reads the real session and its files from memory,
// as an upload would, and from disk: the same session.
func TestReadFSMatchesRead(t *testing.T) {
	files := Files{}
	add := func(name, path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = data
	}
	add("upload.jsonl", realSession)
	for _, base := range []string{"agent-a2898e3.jsonl", "agent-acompact-e1f845.jsonl"} {
		add(SidecarName("upload.jsonl", base), filepath.Join(realSide, base))
	}
	opt := Options{Redact: true, Home: "/home/USER"}
	mem, err := ReadFS(files, "upload.jsonl", opt)
	if err != nil {
		t.Fatal(err)
	}
	disk := mustRead(t, realSession, opt)
	mem.File, disk.File = "", ""
	for what, pair := range map[string][2]any{"messages": {mem.Messages, disk.Messages}, "compactions": {mem.Compactions, disk.Compactions},
		"sub-agents": {mem.Subagents, disk.Subagents}, "redactions": {mem.Redactions, disk.Redactions}} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("ReadFS(in memory) differs from Read(disk) in its %s", what)
		}
	}
	if SidecarName("dir/s.jsonl", "agent-x.jsonl") != "dir/s/subagents/agent-x.jsonl" {
		t.Errorf("SidecarName = %q", SidecarName("dir/s.jsonl", "agent-x.jsonl"))
	}
}
