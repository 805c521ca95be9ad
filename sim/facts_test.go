package sim

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wordCount counts a text's words: a tokenizer for hand-built lessons.
type wordCount struct{}

func (wordCount) Count(s string) int { return len(strings.Fields(s)) }

// factLesson asks twice whether a rule is in the window: once while the
// message that states it is there, once after compaction may have cut it
// into a card whose versions keep it or not. The memory copy (text made
// during the replay) states a second fact.
func factLesson() *Lesson {
	written := Text{"en": "Written for this test."}
	m := func(id string, role Role, n int, text string) Message {
		return Message{ID: id, Role: role, Tokens: n, Content: text}
	}
	ask := func(id string) Message {
		return Message{ID: id, Role: RoleAssistant, Tokens: 20,
			Answer: &Answer{Fact: "rule", Found: "uses pnpm", Missing: "uses npm"}}
	}
	l := &Lesson{
		ID: "facts", Window: 1000,
		System: Message{ID: "system", Role: RoleSystem, Kind: KindPrompt, Tokens: 50, Content: "system prompt"},
		Facts: []Fact{
			{ID: "rule", Pattern: regexp.MustCompile(`(?i)always pnpm`)},
			{ID: "remembered", Pattern: regexp.MustCompile(`(?i)node 22`)},
		},
		Trace: []Step{
			{ID: "start", Type: StepSessionStart},
			{ID: "note", Type: StepRemember, Line: "- The CI runs on Node 22.", Tokens: 10},
			{ID: "talk", Type: StepMessages, Messages: []Message{
				m("u0", RoleUser, 100, "Always pnpm, never npm."), m("a0", RoleAssistant, 300, "a long reply"), ask("a1"),
				m("u1", RoleUser, 300, "more work"), m("a2", RoleAssistant, 200, "more reply"),
			}},
			{ID: "later", Type: StepMessages, Messages: []Message{ask("a3")}},
			{ID: "check", Type: StepBranch, Branch: &Branch{Fact: "remembered",
				Found: []Message{m("f", RoleAssistant, 10, "Node 22 it is")}, Missing: []Message{m("x", RoleAssistant, 10, "which Node?")}}},
			{ID: "end", Type: StepSessionEnd},
			{ID: "start-2", Type: StepSessionStart},
			{ID: "next", Type: StepMessages, Messages: []Message{m("u2", RoleUser, 10, "install lodash"), ask("a4")}},
		},
		Mechanisms: []Mechanism{
			Compaction{Threshold: 60, Presets: []int{60}, Tail: 2, Versions: 2, Cards: []Card{{ID: "c1", Covers: []string{"u0", "a0", "a1"}, Tokens: 30,
				Versions: []CardText{{"Goal: work. Always pnpm.", written, false}, {"Goal: work.", written, false}}}}},
			MemoryStore{Path: "MEMORY.md"},
		},
	}
	if err := l.SetParamOrder([]string{"compaction", "memory", "threshold", "rec"}); err != nil {
		panic(err)
	}
	return l
}

// TestIndexedFacts: a lesson whose fixed texts were matched once at load
// replays exactly as one that runs every pattern during the replay, under
// every policy, and its lookups find and miss facts.
func TestIndexedFacts(t *testing.T) {
	plain, indexed := factLesson(), factLesson()
	indexed.IndexFacts()
	if len(indexed.held) == 0 {
		t.Fatal("IndexFacts matched no text")
	}
	answers := map[bool]int{}
	for _, base := range plain.PresetPolicies() {
		for th := 1; th <= 100; th++ {
			p, err := plain.With(base, "threshold", strconv.Itoa(th))
			if err != nil {
				t.Fatal(err)
			}
			a, errA := Run(plain, p, wordCount{})
			b, errB := Run(indexed, p, wordCount{})
			if errA != nil || errB != nil {
				t.Fatalf("Run(%s): %v, %v", p, errA, errB)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("Run(%s): the indexed lesson replays differently", p)
			}
			for _, f := range a.Frames {
				for _, e := range f.Events {
					if e.Type == EventLookup {
						answers[*e.Found]++
					}
				}
			}
		}
	}
	if answers[true] == 0 || answers[false] == 0 {
		t.Errorf("lookups found %d and missed %d; the lesson should do both", answers[true], answers[false])
	}
}
