package scenarios_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// tinyWith is tinyLesson with n more user/assistant steps in its trace.
func tinyWith(t *testing.T, lesson string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(lesson)
	for i := range n {
		fmt.Fprintf(&b, "  - step: more%d\n    messages:\n", i)
		fmt.Fprintf(&b, "      - {id: mu%d, role: user, tokens: 1, content: more}\n", i)
		fmt.Fprintf(&b, "      - {id: ma%d, role: assistant, tokens: 1, content: ok}\n", i)
	}
	return b.String()
}

// importedHeader declares an imported session.
const importedHeader = "recorded: {file: s.jsonl, format: claude-code, model: m, started: \"2026-11-02T09:00:00Z\", imported: \"2026-12-01T00:00:00Z\", redacted: \"off\"}\n"

// TestAuthoredLimits: a lesson over a limit of its tier is refused before
// it is replayed, with the file, the line and the field that holds the
// count; the same lesson declaring `recorded:` (an imported session) is
// measured against the larger limits of that tier.
func TestAuthoredLimits(t *testing.T) {
	lim := scenarios.Authored()
	long, past := tinyWith(t, tinyLesson, lim.Messages/2), (lim.Messages-4)/2
	lines := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\"- rule %d\", ", i)
		}
		return b.String()
	}
	section := func(key string, n int, fill string) string {
		return "@@ " + key + "\n# Headline.\n\n" + strings.Repeat(fill, n) + "\n"
	}
	tests := []struct {
		name              string
		lesson, narration string
		file, field, msg  string
		line              int
		loadsWhenImported bool
	}{
		{name: "messages", lesson: long, // refused at the first message past the limit (tiny has 4, each added step 2)
			file: "lesson.yaml", field: fmt.Sprintf("trace[%d].messages[0]", strings.Count(tinyLesson, "step: ")+past),
			line:              strings.Count(long[:strings.Index(long, fmt.Sprintf("{id: mu%d,", past))], "\n") + 1,
			msg:               fmt.Sprintf("is past message %d: the trace has %d messages (a tool call and its result count two); an authored lesson may have at most %d", lim.Messages, lim.Messages+4, lim.Messages),
			loadsWhenImported: true},
		{name: "memory lines", lesson: strings.Replace(tinyLesson, `lines: ["# MEMORY.md"]`, "lines: ["+lines(lim.MemoryLines)+`"# MEMORY.md"]`, 1),
			file: "lesson.yaml", field: "mechanisms.memory", line: 5, msg: fmt.Sprintf("holds %d lines of MEMORY.md; an authored lesson may have at most %d", lim.MemoryLines+2, lim.MemoryLines),
			loadsWhenImported: true},
		{name: "a run of letters", lesson: strings.Replace(tinyLesson, "content: Use pnpm.}", "content: Use "+strings.Repeat("p", lim.RunBytes+1)+".}", 1),
			file: "lesson.yaml", field: "trace[0].messages[0].content", line: 13, msg: "holds a run of 513 bytes of letters or of punctuation (from \"ppp"},
		{name: "a long pattern", lesson: strings.Replace(tinyLesson, "pattern: '(?i)pnpm'", "pattern: '(?i)pnpm"+strings.Repeat("x?", lim.PatternBytes/2)+"'", 1),
			file: "lesson.yaml", field: "facts[0].pattern", line: 8, msg: "a pattern may have at most 256"},
		{name: "preset policies", lesson: strings.Replace(tinyLesson, "compaction: {threshold: 50}", "compaction: {threshold: 50, presets: [50,"+strings.TrimSuffix(strings.Repeat("", 0), "")+presets(40)+"]}", 1),
			file: "lesson.yaml", field: "mechanisms", line: 4, msg: "preset policies (every combination of the buttons' values); an authored lesson may offer at most 128"},
		{name: "section bytes", lesson: tinyLesson, narration: tinyNarration + section("@answer", lim.SectionBytes/10, "Some text\n"),
			file: "narration.en.md", field: "@answer", line: strings.Count(tinyNarration, "\n") + 1, msg: "a section of an authored lesson may have at most 16384 (16 KiB)"},
		{name: "figures", lesson: tinyLesson, narration: tinyNarration + section("@answer", lim.Figures+1, "{total} "),
			file: "narration.en.md", field: "@answer", line: strings.Count(tinyNarration, "\n") + 1, msg: "section has 65 placeholders and conditions; a section of an authored lesson may have at most 64"},
		{name: "nesting", lesson: tinyLesson, narration: tinyNarration + section("@answer", 1, strings.Repeat("> ", lim.Nesting+1)+"deep\n"),
			file: "narration.en.md", field: "@answer", line: strings.Count(tinyNarration, "\n") + 4, msg: "the line opens 9 block quotes and list items; a line of an authored lesson may open at most 8"},
		{name: "nested list items", lesson: tinyLesson, narration: tinyNarration + section("@answer", 1, "text\n"+strings.Repeat("1. - ", 5)+"deep\n"),
			file: "narration.en.md", field: "@answer", line: strings.Count(tinyNarration, "\n") + 5, msg: "the line opens 10 block quotes and list items"},
		{name: "brackets", lesson: tinyLesson, narration: tinyNarration + section("@answer", lim.Brackets+1, "[a](b "),
			file: "narration.en.md", field: "@answer", line: strings.Count(tinyNarration, "\n") + 1, msg: "section has 65 '[' (each may open a link); a section of an authored lesson may have at most 64"},
		{name: "about bytes", lesson: tinyLesson, narration: tinyNarration + section("about:a", 1200, "About text.\n") + section("about:b", 1200, "About text.\n") + section("about:c", 1200, "About text.\n") + section("about:d", 1200, "About text.\n"),
			file: "narration.en.md", field: "about:d", msg: "those of an authored lesson may have at most 49152 (48 KiB) together"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			narr := cmpOr(tt.narration, tinyNarration)
			_, err := scenarios.LoadDir(tinyFS(tt.lesson, narr), "tiny", "lessons", nil, tokenizer(t))
			var e *scenarios.Error
			if !errors.As(err, &e) {
				t.Fatalf("LoadDir = %v; want a *scenarios.Error", err)
			}
			if e.File != "lessons/tiny/"+tt.file || e.Field != tt.field || !strings.Contains(e.Msg, tt.msg) || (tt.line > 0 && e.Line != tt.line) {
				t.Errorf("LoadDir = %v (line %d); want lessons/tiny/%s, line %d, field %s, %q", e, e.Line, tt.file, tt.line, tt.field, tt.msg)
			}
			if !tt.loadsWhenImported {
				return
			}
			l, err := scenarios.LoadDir(tinyFS(importedHeader+tt.lesson, narr), "tiny", "lessons", nil, tokenizer(t))
			if err != nil {
				t.Fatalf("as an imported session: LoadDir = %v; want it within the imported limits", err)
			}
			if l.Limits.Tier != scenarios.Imported().Tier {
				t.Errorf("as an imported session: tier %q; want %q", l.Limits.Tier, scenarios.Imported().Tier)
			}
		})
	}
}

// TestImportedMessageSize: one message of an imported session past the
// size of a message (a 2 MiB tool result) is refused with its line and
// field, before it is counted or replayed.
func TestImportedMessageSize(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	lesson := importedHeader + strings.Replace(tinyLesson, "content: Use pnpm.}", "content: "+big+"}", 1)
	_, err := scenarios.LoadDir(tinyFS(lesson, tinyNarration), "tiny", "lessons", nil, tokenizer(t))
	var e *scenarios.Error
	if !errors.As(err, &e) || e.Field != "trace[0].messages[0].content" || e.Line != 14 ||
		!strings.Contains(e.Msg, "has 2097152 bytes; a message of an imported session may have at most 1048576 (1 MiB)") {
		t.Errorf("LoadDir = %v; want line 14, field trace[0].messages[0].content, over 1 MiB", err)
	}
}

func presets(n int) string {
	var b []string
	for i := range n {
		b = append(b, fmt.Sprint(51+i))
	}
	return strings.Join(b, ",")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// TestRunBudget: the preset runs of an authored lesson count against its
// run budget; the pass that crosses it fails naming lesson.yaml, while the
// same runs of an imported session, which has no run budget, pass.
func TestRunBudget(t *testing.T) {
	lim := scenarios.Authored()
	tok := tokenizer(t)
	lesson := tinyWith(t, strings.Replace(tinyLesson, "compaction: {threshold: 50}", "compaction: {threshold: 50, presets: [50, 60, 70, 80, 90]}", 1), 250)
	for _, tc := range []struct {
		name, header string
		wantErr      bool
	}{{"authored", "", true}, {"imported", importedHeader, false}} {
		t.Run(tc.name, func(t *testing.T) {
			// The loader replays the presets to check the narration of
			// every frame, under the same budget; pages replay them again.
			l, err := scenarios.LoadDir(tinyFS(tc.header+lesson, tinyNarration), "tiny", "lessons", nil, tok)
			frames := 0
			if err == nil {
				budget := l.RunBudget()
				err = sim.RunEach(l.Lesson, l.PresetPolicies(), tok, func(_ int, _ sim.Policy, r *sim.Replay) error {
					frames += len(r.Frames)
					return budget.Spend(r)
				})
			}
			var e *scenarios.Error
			switch {
			case tc.wantErr && (!errors.As(err, &e) || e.File != "lessons/tiny/lesson.yaml" || e.Field != "mechanisms" ||
				!strings.Contains(e.Msg, "its preset policies' runs") || !strings.Contains(e.Msg, "an authored lesson may")):
				t.Errorf("LoadDir, RunEach = %v; want lessons/tiny/lesson.yaml, field mechanisms, over the run budget", err)
			case !tc.wantErr && err != nil:
				t.Errorf("LoadDir, RunEach = %v; want no run budget for an imported session", err)
			case !tc.wantErr && frames <= lim.RunFrames:
				t.Errorf("the runs make %d frames; the test needs more than %d", frames, lim.RunFrames)
			}
		})
	}
}
