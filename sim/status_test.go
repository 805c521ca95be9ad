package sim_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"ctxsim/sim"
)

func statusLesson(t *testing.T) *sim.Lesson {
	t.Helper()
	l, _ := builtin(t, "status-bar")
	return l
}

func statusPolicy(t *testing.T, status string, counter, clock bool) sim.Policy {
	t.Helper()
	return policyOf(t, statusLesson(t), "status", status, "counter", onoff(counter), "clock", onoff(clock), "alpha", "10")
}

func runStatus(t *testing.T, l *sim.Lesson, p sim.Policy) []sim.Frame {
	t.Helper()
	tok, _ := loadTok()
	return mustRun(t, l, p, tok)
}

// callSteps are the steps of a trace that call the model, with the tool
// each one's call uses ("" for the decision).
func callSteps(l *sim.Lesson) (times, tools []string) {
	for _, st := range l.Trace {
		for _, m := range st.Messages {
			if m.Kind == sim.KindToolCall {
				times, tools = append(times, st.Time), append(tools, m.Tool)
			}
		}
		if st.Decision {
			times, tools = append(times, st.Time), append(tools, "")
		}
	}
	return times, tools
}

var (
	phoneRe  = regexp.MustCompile(`'phone_call' has been invoked (\d+) times \(Xfinity: (\d+) times\)`)
	searchRe = regexp.MustCompile(`'web_search' has been invoked (\d+) times`)
)

// TestStatusContent: at every call the bar's counts equal the calls made
// before it, counted here independently from the trajectory.
func TestStatusContent(t *testing.T) {
	l := statusLesson(t)
	times, tools := callSteps(l)
	for _, mode := range []string{"replace", "append"} {
		frames := runStatus(t, l, statusPolicy(t, mode, false, false))
		phone, search := 0, 0
		for i, f := range frames {
			last := f.Blocks()[len(f.Blocks())-1]
			if last.Kind != sim.KindStatus || last.Role != sim.RoleUser {
				t.Fatalf("%s frame %d: last block = %s/%s; want the status, role user", mode, i+1, last.Kind, last.Role)
			}
			if !strings.HasPrefix(last.Content, "<agent_status>") || !strings.HasSuffix(last.Content, "</agent_status>") {
				t.Errorf("%s frame %d: status not wrapped in <agent_status>: %q", mode, i+1, last.Content)
			}
			gotPhone, gotXfinity, gotSearch := 0, 0, 0
			if m := phoneRe.FindStringSubmatch(last.Content); m != nil {
				gotPhone, _ = strconv.Atoi(m[1])
				gotXfinity, _ = strconv.Atoi(m[2])
			}
			if m := searchRe.FindStringSubmatch(last.Content); m != nil {
				gotSearch, _ = strconv.Atoi(m[1])
			}
			if gotPhone != phone || gotXfinity != phone || gotSearch != search {
				t.Errorf("%s frame %d: status says phone %d (Xfinity %d), search %d; want %d, %d, %d\n%s",
					mode, i+1, gotPhone, gotXfinity, gotSearch, phone, phone, search, last.Content)
			}
			reached := strings.Contains(last.Content, "Maximum calls to Xfinity reached (3/3)")
			if reached != (phone >= 3) {
				t.Errorf("%s frame %d: constraint reached = %v with %d calls", mode, i+1, reached, phone)
			}
			if !strings.Contains(last.Content, "Current time: "+times[i]) {
				t.Errorf("%s frame %d: status lacks the call's time %s", mode, i+1, times[i])
			}
			switch tools[i] {
			case "phone_call":
				phone++
			case "web_search":
				search++
			}
		}
		if phone != 3 || search != 4 {
			t.Fatalf("trajectory has %d phone calls and %d searches; want 3 and 4", phone, search)
		}
		if frames[len(frames)-1].Kind != sim.FrameDecision {
			t.Errorf("%s: last frame kind = %s; want decision", mode, frames[len(frames)-1].Kind)
		}
	}
}

func TestStatusBlocksPerMode(t *testing.T) {
	l := statusLesson(t)
	for _, tc := range []struct {
		mode string
		want func(i int) int // status blocks in frame i (0-based)
	}{
		{"off", func(int) int { return 0 }},
		{"replace", func(int) int { return 1 }},
		{"append", func(i int) int { return i + 1 }},
	} {
		for _, counter := range []bool{false, true} {
			frames := runStatus(t, l, statusPolicy(t, tc.mode, counter, false))
			// One frame per model call (moved here from web/status_test.go).
			if len(frames) != 8 {
				t.Errorf("status=%s counter=%v: %d frames; want 8, one per model call", tc.mode, counter, len(frames))
			}
			for i, f := range frames {
				n := 0
				for _, b := range f.Blocks() {
					if b.Kind == sim.KindStatus {
						n++
						if b.Role != sim.RoleUser {
							t.Errorf("status=%s frame %d: status block %s has role %s; want user", tc.mode, i+1, b.ID, b.Role)
						}
					}
				}
				if n != tc.want(i) {
					t.Errorf("status=%s counter=%v frame %d: %d status blocks; want %d", tc.mode, counter, i+1, n, tc.want(i))
				}
			}
		}
	}
}

func TestSystemPromptStable(t *testing.T) {
	l := statusLesson(t)
	for _, mode := range []string{"off", "replace", "append"} {
		for _, clock := range []bool{false, true} {
			frames := runStatus(t, l, statusPolicy(t, mode, true, clock))
			first := frames[0].Blocks()[0]
			for i, f := range frames {
				sys := f.Blocks()[0]
				if sys.Role != sim.RoleSystem {
					t.Fatalf("frame %d: first block role %s", i+1, sys.Role)
				}
				same := sys.Content == first.Content
				if !clock && !same {
					t.Errorf("status=%s clock=off frame %d: system prompt changed", mode, i+1)
				}
				if clock && i > 0 && same {
					t.Errorf("status=%s clock=on frame %d: system prompt did not change", mode, i+1)
				}
			}
		}
	}
}

func recomputed(frames []sim.Frame) int {
	n := 0
	for _, f := range frames {
		n += f.Cache.RecomputedTokens
	}
	return n
}

func TestRecomputedOrder(t *testing.T) {
	l := statusLesson(t)
	for _, counter := range []bool{false, true} {
		app := recomputed(runStatus(t, l, statusPolicy(t, "append", counter, false)))
		rep := recomputed(runStatus(t, l, statusPolicy(t, "replace", counter, false)))
		for _, mode := range []string{"off", "replace", "append"} {
			clk := recomputed(runStatus(t, l, statusPolicy(t, mode, counter, true)))
			if !(app < rep && rep < clk) {
				t.Errorf("counter=%v: recomputed append %d, replace %d, clock(%s) %d; want append < replace < clock", counter, app, rep, mode, clk)
			}
		}
	}
	// Append recomputes only the new tail: everything of the previous
	// request, and the model's own output, is reused.
	for i, f := range runStatus(t, l, statusPolicy(t, "append", false, false))[1:] {
		if f.Cache.Reason != sim.CacheAppend || f.Cache.InvalidatedTokens != 0 {
			t.Errorf("append frame %d: reason %s, invalidated %d; want append, 0", i+2, f.Cache.Reason, f.Cache.InvalidatedTokens)
		}
	}
	for i, f := range runStatus(t, l, statusPolicy(t, "replace", false, false))[1:] {
		if f.Cache.Reason != sim.CacheStatusReplaced || f.Cache.FirstChanged == "" {
			t.Errorf("replace frame %d: reason %s, first changed %q; want status_replaced", i+2, f.Cache.Reason, f.Cache.FirstChanged)
		}
	}
	for i, f := range runStatus(t, l, statusPolicy(t, "off", false, true))[1:] {
		if f.Cache.Reason != sim.CacheSystemChanged || f.Cache.ReusedTokens != 0 {
			t.Errorf("clock frame %d: reason %s, reused %d; want system_changed, 0", i+2, f.Cache.Reason, f.Cache.ReusedTokens)
		}
	}
}

func TestCounterInToolResults(t *testing.T) {
	l := statusLesson(t)
	frames := runStatus(t, l, statusPolicy(t, "off", true, false))
	last := frames[len(frames)-1]
	var got []string
	for _, b := range last.Blocks() {
		if b.Role == sim.RoleTool && b.Tool == "phone_call" {
			got = append(got, b.Content[strings.LastIndex(b.Content, "["):])
		}
	}
	want := []string{"the 1st call to Xfinity]", "the 2nd call to Xfinity]", "the 3rd call to Xfinity]"}
	if len(got) != 3 {
		t.Fatalf("phone results = %q; want 3", got)
	}
	for i := range want {
		if !strings.HasSuffix(got[i], want[i]) {
			t.Errorf("phone result %d counter = %q; want suffix %q", i+1, got[i], want[i])
		}
	}
}

// fixedTok sizes the hand-built lesson's texts by kind, so the cost model
// can be computed by hand.
type fixedTok struct{}

func (fixedTok) Count(s string) int {
	switch {
	case strings.HasPrefix(s, "<agent_status>"):
		return 10
	case strings.HasPrefix(s, "call("):
		return 2
	case strings.HasPrefix(s, "result"):
		return 5
	case strings.HasPrefix(s, "sys"):
		return 4
	}
	return 3 // user
}

func TestCostModelHandComputed(t *testing.T) {
	user := sim.Message{ID: "u", Role: sim.RoleUser, Content: "user"}
	step := func(id string, call bool) sim.Step {
		st := sim.Step{ID: id, Type: sim.StepMessages, Time: "t", ShowRequest: true}
		if call {
			st.Messages = []sim.Message{
				{ID: "call-" + id, Role: sim.RoleAssistant, Kind: sim.KindToolCall, Tool: "call", ToolUseID: id, Args: "x", Content: "call(x)"},
				{ID: "result-" + id, Role: sim.RoleTool, Kind: sim.KindToolResult, Tool: "call", ToolUseID: id, Content: "result " + id},
			}
		} else {
			st.Decision = true
		}
		return st
	}
	l := &sim.Lesson{ID: "tiny", Window: 1000, Counted: true,
		System: sim.Message{ID: "system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Content: "sys"},
		Trace:  []sim.Step{step("a", true), step("b", true), step("c", false)},
		Mechanisms: []sim.Mechanism{
			sim.StatusBar{Constraint: sim.Constraint{Tool: "call", Key: "k", Max: 3}, Cost: &sim.CostInputs{Price: "alpha"}},
			sim.PromptCache{Pricing: true, Alpha: 10, Presets: []int{10}},
		}}
	l.Trace[0].Messages = append([]sim.Message{user}, l.Trace[0].Messages...)
	if err := l.SetParamOrder(nil); err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(l, policyOf(t, l, "status", "off", "alpha", "10"), fixedTok{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range r.Fields {
		for _, g := range f.Value.([]sim.Field) {
			switch v := g.Value.(type) {
			case float64:
				got[f.Name+"."+g.Name] = v
			case int:
				got[f.Name+"."+g.Name] = float64(v)
			}
		}
	}
	// N = 3 updates of S = 10; between updates the conversation gains a call
	// (2) and its result (5): R = 7. α = 0.1.
	// C_replace = (N−1)(1−α)R = 2 × 0.9 × 7 = 12.6
	// C_append  = αSN(N−1)/2 = 0.1 × 10 × 3 × 2 / 2 = 3
	// Measured append: old statuses re-read at α: 0 + 10 + 20 → 3.0.
	// Measured replace: only the cached call (2 tokens) is recomputed per
	// update after the first: 2 × 0.9 × 2 = 3.6.
	checks := []struct {
		name string
		want float64
	}{
		{"cost_model.S", 10}, {"cost_model.R", 7}, {"cost_model.N", 3}, {"cost_model.alpha", 0.1},
		{"cost_model.c_replace", 12.6}, {"cost_model.c_append", 3},
		{"measured.c_append", 3}, {"measured.c_replace", 3.6},
	}
	for _, c := range checks {
		if v, ok := got[c.name]; !ok || math.Abs(v-c.want) > 1e-9 {
			t.Errorf("%s = %v (present %v); want %v", c.name, v, ok, c.want)
		}
	}
	if _, ok := r.Frames[0].Figure("formula-append-wins"); !ok {
		// αSN/2 = 1.5 < (1−α)R = 6.3
		found := false
		for _, g := range r.Figures {
			found = found || g.Name == "formula-append-wins"
		}
		if !found {
			t.Error("formula-append-wins missing; want it (1.5 < 6.3)")
		}
	}
	if len(r.Panels) != 1 || r.Panels[0].ID != "cost" {
		t.Fatalf("run panels = %+v; want the cost panel", r.Panels)
	}
	rule := r.Panels[0].Rows[3]
	if sign := rule.Values[1].Str; sign != "<" {
		t.Errorf("cost panel sign = %q; want < (2 < 6 when rounded)", sign)
	}
}

// TestCostSignHolds: the comparison the cost panel prints holds for the
// numbers it prints, at every price the lesson offers.
func TestCostSignHolds(t *testing.T) {
	l := statusLesson(t)
	tok, _ := loadTok()
	for _, p := range l.PresetPolicies() {
		r, err := sim.Run(l, p, tok)
		if err != nil {
			t.Fatal(err)
		}
		for _, pn := range r.Panels {
			if pn.ID != "cost" {
				continue
			}
			v := pn.Rows[3].Values
			left, sign, right := v[0].Value, v[1].Str, v[2].Value
			ok := map[string]bool{"<": left < right, ">": left > right, "=": left == right}[sign]
			if !ok || v[0].Unit != v[2].Unit {
				t.Errorf("%s: cost panel prints %d %s %d (units %d/%d); want a sign that holds", p, left, sign, right, v[0].Unit, v[2].Unit)
			}
		}
	}
}

func TestOrdinal(t *testing.T) {
	for n, want := range map[int]string{1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 11: "11th", 12: "12th", 13: "13th", 21: "21st", 102: "102nd", 111: "111th"} {
		if got := sim.Ordinal(n); got != want {
			t.Errorf("Ordinal(%d) = %q; want %q", n, got, want)
		}
	}
}
