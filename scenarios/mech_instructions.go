package scenarios

import (
	"fmt"
	"strings"

	"ctxsim/sim"
)

// InstructionsConfig is the instructions mechanism's configuration in a lesson file: the instruction files a coding agent's harness loads
// (CLAUDE.md, path-scoped rules, skills) and its automatic compaction.
type InstructionsConfig struct {
	Path       string                  `yaml:"path"`
	Tokens     int                     `yaml:"tokens"` // trace size of the first copy
	Lines      []string                `yaml:"lines"`
	Edits      []InstructionEditConfig `yaml:"edits"`
	Rules      []PathRuleConfig        `yaml:"rules"`
	SkillTool  string                  `yaml:"skill_tool"`
	SkillCap   int                     `yaml:"skill_cap"`
	SkillTotal int                     `yaml:"skill_total"`
	Trigger    int                     `yaml:"trigger"` // percent of the window
	Prompt     int                     `yaml:"prompt"`  // the summarizer's instructions, in tokens
	Cards      string                  `yaml:"cards"`
	Policies   []string                `yaml:"policies"` // reinject values offered, the default first
}

type InstructionEditConfig struct {
	Result string `yaml:"result"` // the tool result whose arrival writes the line
	Line   string `yaml:"line"`
	Tokens int    `yaml:"tokens"`
}

type PathRuleConfig struct {
	ID      string   `yaml:"id"`
	Path    string   `yaml:"path"`
	Paths   []string `yaml:"paths"` // prefixes of the files it applies to
	Tokens  int      `yaml:"tokens"`
	Content string   `yaml:"content"`
}

// instructions builds the instructions mechanism.
func (b *builder) instructions(r *InstructionsConfig, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.instructions"
	c := sim.Instructions{Path: r.Path, Lines: r.Lines, Tokens: r.Tokens, SkillTool: r.SkillTool, SkillCap: r.SkillCap,
		SkillTotal: r.SkillTotal, Trigger: r.Trigger, Prompt: r.Prompt}
	c.Policies = b.offered(p+".policies", r.Policies, sim.Reinjects)
	b.size(p, r.Tokens)
	switch {
	case r.Path == "" || len(r.Lines) == 0:
		b.fail(p, "needs path and lines: the project-root instruction file")
	case r.Trigger < 1 || r.Trigger > 100:
		b.fail(p+".trigger", "must be the percent of the window that starts an automatic compaction, 1 to 100; got %d", r.Trigger)
	case r.Prompt < 0:
		b.fail(p+".prompt", "must not be negative")
	case r.SkillTool != "" && (r.SkillCap <= 0 || r.SkillTotal < r.SkillCap):
		b.fail(p+".skill_cap", "a skill tool needs a positive cap per skill and a total at least as large")
	}
	for i, e := range r.Edits {
		ep := fmt.Sprintf("%s.edits[%d]", p, i)
		if !b.results[e.Result] || e.Line == "" {
			b.fail(ep, "needs result (a tool result of the trace) and line; got %q", e.Result)
		}
		if !b.counted && e.Tokens <= 0 {
			b.fail(ep+".tokens", "must be the positive size the line adds to a copy of the file")
		}
		c.Edits = append(c.Edits, sim.InstructionEdit{Result: e.Result, Line: e.Line, Tokens: e.Tokens})
	}
	for i, rr := range r.Rules {
		rp := fmt.Sprintf("%s.rules[%d]", p, i)
		b.checkID(rp+".id", rr.ID)
		b.size(rp, rr.Tokens)
		if rr.Path == "" || rr.Content == "" || len(rr.Paths) == 0 {
			b.fail(rp, "needs path, paths and content")
		}
		c.Rules = append(c.Rules, sim.PathRule{ID: rr.ID, Path: rr.Path, Prefixes: rr.Paths, Content: rr.Content, Tokens: rr.Tokens, Origin: b.origin})
		// The blocks a replay may make of the rule, so that a summary card
		// can cover them (one per read of a file under its paths).
		for n := 1; n <= b.readsUnder(l, rr.Paths); n++ {
			b.checkID(rp+".id", fmt.Sprintf("%s-%d", rr.ID, n))
		}
	}
	if r.Cards != "" {
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, nil)
	}
	return c
}

// readsUnder counts the tool calls of the trace whose arguments name a path
// under one of prefixes.
func (b *builder) readsUnder(l *sim.Lesson, prefixes []string) int {
	n := 0
	each := func(ms []sim.Message) {
		for _, m := range ms {
			if m.Kind != sim.KindToolCall {
				continue
			}
			for _, pre := range prefixes {
				if strings.Contains(m.Args, pre) || strings.Contains(m.Content, pre) {
					n++
					break
				}
			}
		}
	}
	for _, st := range l.Trace {
		each(st.Messages)
		for _, nd := range st.Needs {
			each(nd.Recover)
		}
		if br := st.Branch; br != nil {
			each(br.Found)
			each(br.Missing)
		}
	}
	return max(n, 1)
}
