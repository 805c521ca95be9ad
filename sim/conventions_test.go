package sim_test

import (
	"slices"
	"strings"
	"testing"

	"ctxsim/sim"
)

// words sizes a text by its words: the hand-built lessons below need
// sizes, not o200k_base counts.
type words struct{}

func (words) Count(s string) int { return len(strings.Fields(s)) }

// pairsLesson is a counted lesson of one task and n tool calls, each with
// its result, under pairs and the given mechanism that cuts history.
func pairsLesson(t *testing.T, n int, cut sim.Mechanism) *sim.Lesson {
	t.Helper()
	st := sim.Step{ID: "work", Type: sim.StepMessages, Messages: []sim.Message{
		{ID: "task", Role: sim.RoleUser, Kind: sim.KindText, Content: "do the task in several calls please"}}}
	for i := range n {
		id := "toolu_" + string(rune('a'+i))
		st.Messages = append(st.Messages,
			sim.Message{ID: "call-" + id, Role: sim.RoleAssistant, Kind: sim.KindToolCall, Tool: "run", ToolUseID: id, Args: "{}", Content: "run({})"},
			sim.Message{ID: "result-" + id, Role: sim.RoleTool, Kind: sim.KindToolResult, Tool: "run", ToolUseID: id,
				Content: "one two three four five six seven eight nine ten"})
	}
	l := &sim.Lesson{ID: "pairs", Window: 100, Counted: true,
		System:     sim.Message{ID: "system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Content: "system"},
		Trace:      []sim.Step{st},
		Mechanisms: []sim.Mechanism{sim.Pairs{}, cut}}
	if err := l.SetParamOrder(nil); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestPairsBrokenWithoutTiered: pairs: broken breaks the pairs of any
// mechanism that cuts history, not only the tiered compressor's: a sliding
// window slides a call out without its result, a compaction keeps a
// result without its call; the provider refuses the next request and
// names the orphan. Under kept, no request is refused.
func TestPairsBrokenWithoutTiered(t *testing.T) {
	tests := []struct {
		name string
		cut  sim.Mechanism
		kv   []string
	}{
		{"sliding window", sim.History{Choices: []string{sim.HistorySliding}, Messages: 3, Keep: 1}, nil},
		{"compaction's tail", sim.Compaction{Threshold: 10, Presets: []int{10}, Tail: 1}, []string{"compaction", "on", "threshold", "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := pairsLesson(t, 6, tt.cut)
			if !sim.Cuts(tt.cut) {
				t.Errorf("Cuts(%s) = false; want true", tt.cut.Name())
			}
			for _, pairs := range []string{"kept", "broken"} {
				r, err := sim.Run(l, policyOf(t, l, append([]string{"pairs", pairs}, tt.kv...)...), words{})
				if err != nil {
					t.Fatal(err)
				}
				refused := ""
				for _, f := range r.Frames {
					if f.Error != "" {
						refused = f.Error
						break
					}
				}
				switch {
				case pairs == "kept" && refused != "":
					t.Errorf("pairs kept: refused %q; want every request sent", refused)
				case pairs == "broken" && !strings.Contains(refused, "tool_use"):
					t.Errorf("pairs broken: refused %q; want the provider's refusal of a broken pair", refused)
				}
			}
		})
	}
	if sim.Cuts(sim.History{Choices: []string{sim.HistoryFull}}) || sim.Cuts(sim.PromptCache{}) {
		t.Error("Cuts is true of a mechanism that never cuts history")
	}
}

// TestRereadTool: a re-read calls the tool the lesson's workspace names,
// with its argument, under an id of sim.RereadIDPrefix; the shipped lesson
// names none and gets the tool of its own reads.
func TestRereadTool(t *testing.T) {
	l, tok := builtin(t, "tiered-compaction")
	m, _ := l.Mechanism("workspace")
	w := m.(sim.Workspace)
	if w.Read != (sim.ReadTool{Tool: "file_read", Arg: "path"}) {
		t.Errorf("tiered-compaction re-reads with %+v; want the tool of its reads, file_read(path)", w.Read)
	}
	w.Read = sim.ReadTool{Tool: "cat", Arg: "file"}
	other := *l
	other.Mechanisms = slices.Clone(l.Mechanisms)
	for i, x := range other.Mechanisms {
		if x.Name() == "workspace" {
			other.Mechanisms[i] = w
		}
	}
	if err := other.SetParamOrder(nil); err != nil {
		t.Fatal(err)
	}
	p := policyOf(t, &other, "strategy", "age", "floor", "on", "summarizer", "ok", "budget", "attempts", "pairs", "kept")
	rereads := 0
	for _, f := range mustRun(t, &other, p, tok) {
		for _, b := range f.Blocks() {
			if !strings.HasPrefix(b.ToolUseID, sim.RereadIDPrefix) || !b.New || b.Kind != sim.KindToolCall {
				continue
			}
			rereads++
			if b.Tool != "cat" || !strings.HasPrefix(b.Args, `{"file":`) || !strings.HasPrefix(b.Content, "cat(") {
				t.Errorf("re-read %s calls %s(%s); want cat with its file argument", b.ID, b.Tool, b.Args)
			}
		}
	}
	if rereads == 0 {
		t.Error("no re-read under age; want the edited file read again")
	}
}

// TestReservedSteps: every narration key a frame of a shipped lesson gets
// that is not a step of its trace (or a need's) is one the harness
// reserves: sim.ReservedSteps lists what the harness and the mechanisms
// emit.
func TestReservedSteps(t *testing.T) {
	ls, err := loadBuiltins()
	if err != nil {
		t.Fatal(err)
	}
	tok, _ := loadTok()
	for id, l := range ls {
		steps := map[string]bool{}
		for _, st := range l.Trace {
			steps[st.ID] = true
			for _, n := range st.Needs {
				steps[n.Step] = true
			}
		}
		seen := map[string]bool{}
		for _, p := range l.PresetPolicies() {
			for _, f := range mustRun(t, l, p, tok) {
				base := f.Narration[len(f.Narration)-1]
				if !steps[base] {
					seen[base] = true
					if !sim.Reserved(base) {
						t.Errorf("%s under %s: frame %d has narration key %q, neither a step nor reserved", id, p, f.Step, base)
					}
				}
			}
		}
		for k := range seen {
			if steps[k] {
				t.Errorf("%s: step %q takes a reserved key", id, k)
			}
		}
	}
}

// TestStatusCostInputs: the status bar's cost model reads what the lesson
// declares of its other mechanisms: the price of a priced prompt cache and
// the clock's switch; without a price there is no model.
func TestStatusCostInputs(t *testing.T) {
	l := statusLesson(t)
	m, _ := l.Mechanism("status_bar")
	if c := m.(sim.StatusBar).Cost; c == nil || c.Price != "alpha" || !slices.Equal(c.Off, []string{"clock"}) {
		t.Errorf("status-bar's cost inputs = %+v; want the price alpha and the clock off", c)
	}
	if c := sim.CostOf([]sim.Mechanism{sim.StatusBar{}, sim.PromptCache{}, sim.Clock{}}); c != nil {
		t.Errorf("CostOf(an unpriced cache) = %+v; want nil: no cost model", c)
	}
}
