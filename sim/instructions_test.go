package sim

import (
	"slices"
	"strings"
	"testing"
)

// instructionsLesson: window 1000, trigger 50% = 500, system 100, the
// file F (2 lines, a 20-token copy), one rule for src/p/ (30 tokens), the
// skill tool "Skill" with a cap of 40 per skill and 60 in all.
//
//	s1: user u1 (10); Skill call (5) + body (100)         total 120 + 115 = 235
//	s2: Read src/p/a.go (5) + result (150) + rule R-1 (30)           420
//	s3: Edit F (5) + result (5): the file gains "- note" (5)         430
//	s4: Read src/p/c.go (5) + result (200): the rule is in           635
//	s5: the answer's call first compacts: all 10 messages (515)
//	    become the card "sum" (50); then the copy and the skill
//	    (cut to 40) come back; a5 (10) enters
//	s6: user u6 (10): after a compaction the file is read again
//	s7: Read src/p/b.go (5) + result (20): the rule loads again
func instructionsLesson(t *testing.T) *Lesson {
	tc := func(id, tool, args string, nCall, nRes int) []Message {
		return []Message{{ID: "c-" + id, Role: RoleAssistant, Kind: KindToolCall, ToolUseID: id, Tool: tool, Tokens: nCall, Content: tool + "(" + args + ")"},
			{ID: "r-" + id, Role: RoleTool, Kind: KindToolResult, ToolUseID: id, Tool: tool, Tokens: nRes, Content: "result of " + id}}
	}
	c := Instructions{Path: "F", Lines: []string{"# F", "- a"}, Tokens: 20,
		Edits:     []InstructionEdit{{Result: "r-e", Line: "- note", Tokens: 5}},
		Rules:     []PathRule{{ID: "R", Path: "rules/p.md", Prefixes: []string{"src/p/"}, Content: "cents only", Tokens: 30}},
		SkillTool: "Skill", SkillCap: 40, SkillTotal: 60, Trigger: 50, Prompt: 7, Policies: Reinjects,
		Cards: []Card{{ID: "sum", Covers: []string{"u1", "c-s", "r-s", "c-a", "r-a", "R-1", "c-e", "r-e", "c-c", "r-c"}, Tokens: 50,
			Versions: []CardText{{Content: "the task goes on"}}}}}
	steps := []Step{
		{ID: "start", Type: StepSessionStart},
		round("s1", append([]Message{msg("u1", RoleUser, 10, "do it")}, tc("s", "Skill", `{"skill": "x"}`, 5, 100)...)...),
		round("s2", tc("a", "Read", `{"file_path": "src/p/a.go"}`, 5, 150)...),
		round("s3", tc("e", "Edit", `{"file_path": "F"}`, 5, 5)...),
		round("s4", tc("c", "Read", `{"file_path": "src/p/c.go"}`, 5, 200)...),
		round("s5", msg("a5", RoleAssistant, 10, "next")),
		round("s6", msg("u6", RoleUser, 10, "more please"), msg("a6", RoleAssistant, 10, "sure")),
		round("s7", tc("b", "Read", `{"file_path": "src/p/b.go"}`, 5, 20)...),
	}
	return handLesson(t, 1000, steps, c)
}

// TestInstructions: the copy, the rule and the skill before and after an
// automatic compaction, under each re-injection policy.
func TestInstructions(t *testing.T) {
	l := instructionsLesson(t)
	for _, tc := range []struct {
		policy string
		// after the compaction: 100 + copy + 50 (summary) + 40 (skill)
		after     int
		copyLines int  // lines of the copy put back (0: none)
		stale     bool // the copy lacks the note
		// at s6: the re-read copy, 25 + 15 words of the reminder
		reread int
	}{
		{ReinjectDisk, 215, 3, false, 0},       // copy 25: the file with the note
		{ReinjectLastPrompt, 210, 2, true, 40}, // copy 20: taken at u1, before the edit
		{ReinjectNone, 190, 0, false, 0},       // no copy
	} {
		t.Run(tc.policy, func(t *testing.T) {
			frames := runHand(t, l, "reinject", tc.policy)
			s2, s3, s4 := frameOf(t, frames, "s2"), frameOf(t, frames, "s3"), frameOf(t, frames, "s4")
			if s2.Total != 420 || !slices.ContainsFunc(s2.Blocks(), func(b Block) bool { return b.ID == "R-1" }) {
				t.Errorf("s2: %d with blocks %v; want 420 with the rule R-1", s2.Total, blockIDs(s2.Blocks()))
			}
			if fig(s3, "copy-stale") != 1 || fig(s3, "file-lines") != 3 || fig(s3, "copy-lines") != 2 {
				t.Errorf("s3: stale %d, file %d lines, copy %d; want 1, 3, 2", fig(s3, "copy-stale"), fig(s3, "file-lines"), fig(s3, "copy-lines"))
			}
			if s4.Total != 635 || strings.Count(strings.Join(blockIDs(s4.Blocks()), " "), "R-") != 1 {
				t.Errorf("s4: %d with %v; want 635 and the rule once", s4.Total, blockIDs(s4.Blocks()))
			}
			sum, back := frameOf(t, frames, "autocompact"), frameOf(t, frames, "restored")
			if fig(sum, "before") != 635 || fig(sum, "count") != 10 || fig(sum, "range") != 515 || fig(sum, "rules-lost") != 1 ||
				sum.Pending == nil || sum.Pending.ID != "sum" {
				t.Errorf("autocompact: before %d, count %d, range %d, rules lost %d; want 635, 10, 515, 1 and the card sum",
					fig(sum, "before"), fig(sum, "count"), fig(sum, "range"), fig(sum, "rules-lost"))
			}
			if back.Total != tc.after || fig(back, "copy-lines") != tc.copyLines || hasFig(back, "copy-stale") != tc.stale ||
				fig(back, "skills-cut") != 1 || hasFig(back, "copy-missing") != (tc.copyLines == 0) {
				t.Errorf("restored: %d, copy %d lines, stale %v, skills cut %d; want %d, %d, %v, 1", back.Total, fig(back, "copy-lines"),
					hasFig(back, "copy-stale"), fig(back, "skills-cut"), tc.after, tc.copyLines, tc.stale)
			}
			if b, ok := back.Block("r-s-back-1"); !ok || b.Tokens != 40 {
				t.Errorf("the skill put back: %v; want r-s-back-1 of 40 (the cap)", blockIDs(back.Blocks()))
			}
			s6 := frameOf(t, frames, "s6")
			reread, ok := s6.Block("instructions-reread-1")
			switch {
			case tc.reread == 0 && ok:
				t.Errorf("s6 re-read the file: %d tokens; want nothing", reread.Tokens)
			case tc.reread > 0 && (!ok || reread.Tokens != tc.reread || hasFig(s6, "copy-stale")):
				t.Errorf("s6: re-read %v, stale %v; want a %d-token copy with the note", ok, hasFig(s6, "copy-stale"), tc.reread)
			}
			if s7 := frameOf(t, frames, "s7"); !slices.ContainsFunc(s7.Blocks(), func(b Block) bool { return b.ID == "R-2" }) {
				t.Errorf("s7: %v; want the rule loaded again (R-2)", blockIDs(s7.Blocks()))
			}
		})
	}
}
