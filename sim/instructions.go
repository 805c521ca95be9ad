package sim

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Narration keys of the frames the instructions mechanism emits: the
// automatic compaction, and the window after what it put back.
const (
	keyAutocompact = "autocompact"
	keyRestored    = "restored"
)

// Re-injection policies of the instructions mechanism (the reinject
// parameter): where the copy of the project-root instruction file that an
// automatic compaction puts back comes from.
const (
	ReinjectDisk       = "disk"        // read from disk at the compaction (what the documentation says)
	ReinjectLastPrompt = "last-prompt" // the copy taken at the last user prompt (a reported behaviour)
	ReinjectNone       = "none"        // not put back: the copy is summarized with the rest
)

// Reinjects lists the policies in order.
var Reinjects = []string{ReinjectDisk, ReinjectLastPrompt, ReinjectNone}

// Instructions is the instructions mechanism: the instruction files a
// coding agent's harness loads into the window, and what an automatic
// compaction does with each (after Claude Code's documented behaviour):
//
//   - the project-root file (CLAUDE.md) is injected after the system
//     prompt at session start; the harness also takes a copy of it at each
//     user prompt. Tool calls of the trace may write lines to it on disk
//     (Edits); the copy in the window does not change.
//   - a path-scoped rule is loaded into the conversation after a tool call
//     reads a file under one of its paths, when the rule is not in the
//     window already.
//   - a skill's body enters as the result of the skill tool.
//
// Before a model call whose request is above Trigger percent of the
// window, the whole conversation is replaced by one summary (the card
// that covers exactly it, or a mechanical excerpt). Then the harness puts
// back the instruction file's copy (from where the reinject parameter
// says), and each invoked skill's body, cut to SkillCap tokens, newest
// first within SkillTotal (the oldest is dropped first). Path-scoped
// rules are not put back: they come back when a matching file is read
// again. At the first user prompt after a compaction the harness reads
// the file again and, if it differs from the copy in the window, adds the
// new copy with a reminder.
type Instructions struct {
	Path   string   // the project-root instruction file, as named in the window
	Lines  []string // its lines at session start
	Tokens int      // trace size of its first copy (0 in a counted lesson)
	Edits  []InstructionEdit
	Rules  []PathRule
	// SkillTool is the tool whose results are skill bodies.
	SkillTool            string
	SkillCap, SkillTotal int // tokens: per skill, and all skills together
	Trigger              int // percent of the window that starts an automatic compaction
	Cards                []Card
	Versions             int      // versions of each card's text (the rec parameter when over 1)
	Policies             []string // offered, the default first
	// Prompt is the size of the summarizer's instructions: a compaction's
	// own request is the conversation plus this.
	Prompt int
}

// InstructionEdit is a line a tool call writes to the instruction file:
// when the result Result enters the window, the file on disk gains Line.
type InstructionEdit struct {
	Result string
	Line   string
	Tokens int // what the line adds to a copy of the file (trace size)
}

// PathRule is a rule scoped to paths: it loads when a file under one of
// Prefixes is read.
type PathRule struct {
	ID       string
	Path     string // where the rule lives (.claude/rules/payments.md)
	Prefixes []string
	Content  string
	Tokens   int    // trace size (0 in a counted lesson)
	Origin   string // where its text comes from (OriginAuthored)
}

// texts are the texts the mechanism carries.
func (c Instructions) texts() []string {
	out := []string{strings.Join(c.Lines, "\n")}
	for _, r := range c.Rules {
		out = append(out, r.Content)
	}
	return append(out, cardTexts(c.Cards)...)
}

func (c Instructions) summaryCards() []Card { return c.Cards }

// Name is "instructions".
func (Instructions) Name() string { return "instructions" }

// Params are reinject and, with several versions of the summary's text
// (recorded ones), rec.
func (c Instructions) Params() []Param {
	return append([]Param{{Name: "reinject", Choices: c.Policies, Default: c.Policies[0]}}, strategyParams("", nil, c.Versions)...)
}

// message is a block the mechanism makes that a summary card may cover: a
// path-scoped rule as loaded (<rule id>-<n>).
func (c Instructions) message(id string) (Message, bool) {
	for _, r := range c.Rules {
		if rest, ok := strings.CutPrefix(id, r.ID+"-"); ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return Message{ID: id, Role: RoleUser, Kind: KindMemory, Label: Text{"en": r.Path}, Content: r.Content, Tokens: r.Tokens}, true
		}
	}
	return Message{}, false
}

// The copy's sources, as the frames name them (value.copy-<source>).
const (
	copySessionStart = "session-start"
	copyDisk         = "disk"
	copyLastPrompt   = "last-prompt"
)

func (c Instructions) start(h *harness) hooks {
	return &instructionsRun{cfg: c, policy: h.p.Get("reinject"), file: slices.Clone(c.Lines), fileTokens: c.Tokens,
		trigger: h.limit * c.Trigger / 100, loads: map[string]int{}}
}

type instructionsRun struct {
	base
	cfg     Instructions
	policy  string
	trigger int

	file         []string // the file on disk
	fileTokens   int      // trace size of a copy of it now
	prompt       []string // the copy taken at the last user prompt
	promptTokens int
	copyFrom     string // where the copy in the window came from ("" when there is none)

	loads   map[string]int // loads of each rule so far
	pending []PathRule     // rules to load after the result just entered
	skills  []Block        // skill bodies invoked, in order

	compactions int
	compacted   bool // a compaction happened since the last user prompt
	made        map[string]bool
	calls       int // summarizer calls
	sent        int // tokens the summarizer calls sent
	last        *instructionsCompaction
	reread      string // id of the re-read copy added at this frame's prompt
}

// instructionsCompaction is one compaction, as its frames report it.
type instructionsCompaction struct {
	number, before, after, count, rng int
	summary                           string
	summaryTokens                     int
	mechanical                        bool
	reinjected, cut, dropped          int // skills put back, of them cut to the cap, skills left out
	rulesLost                         int
}

const instructionsCopy = "instructions"

// copyBlock is a copy of the file as lines, sized.
func (r *instructionsRun) copyBlock(h *harness, id string, lines []string, tokens int) Block {
	b := Block{ID: id, Role: RoleUser, Kind: KindMemory, Label: Text{"en": r.cfg.Path}, LabelKey: "block.memory-copy",
		Content: strings.Join(lines, "\n"), Tokens: tokens}
	if h.l.Counted || tokens == 0 {
		b.Tokens = h.count(b.Content)
	}
	return b
}

// sessionStart injects a copy of the file after the system prompt.
func (r *instructionsRun) sessionStart(h *harness) {
	r.prompt, r.promptTokens = slices.Clone(r.file), r.fileTokens
	h.injected = append(h.injected, r.copyBlock(h, instructionsCopy, r.file, r.fileTokens))
	r.copyFrom = copySessionStart
	r.compacted = false
}

// entered takes a copy of the file at each user prompt (and, after a
// compaction, adds the file as it is now when the window's copy differs);
// notes the edits a result makes to the file, the skills invoked and the
// rules a read loads.
func (r *instructionsRun) entered(h *harness, b *Block) {
	switch {
	case b.Role == RoleUser && b.Kind == KindText:
		r.prompted(h)
	case b.Role == RoleTool:
		for _, e := range r.cfg.Edits {
			if e.Result == b.ID {
				r.file = append(r.file, e.Line)
				r.fileTokens += e.Tokens
				h.event(Event{Type: EventInstructionEdit, Line: e.Line, Tokens: e.Tokens})
			}
		}
		if r.cfg.SkillTool != "" && b.Tool == r.cfg.SkillTool {
			r.skills = append(r.skills, *b)
		}
		// b is the last block now; its call is the one before it.
		if n := len(h.msgs); n >= 2 && h.msgs[n-2].Kind == KindToolCall && h.msgs[n-2].ToolUseID == b.ToolUseID {
			r.pending = append(r.pending, r.rulesFor(h, readPath(&h.msgs[n-2]))...)
		}
	}
}

// prompted is a user prompt: the harness copies the file, and at the first
// prompt after a compaction reads it again.
func (r *instructionsRun) prompted(h *harness) {
	if now, _ := copyOf(h.window()); r.compacted && r.policy != ReinjectNone && !slices.Equal(now, r.file) {
		id := fmt.Sprintf("%s-reread-%d", instructionsCopy, r.compactions)
		b := r.copyBlock(h, id, r.file, r.fileTokens)
		b.Content = rereadNote + b.Content
		b.Tokens += h.count(rereadNote)
		if h.l.Counted {
			b.Tokens = h.count(b.Content)
		}
		h.msgs = append(h.msgs, b)
		h.event(Event{Type: EventInstructionReread, Block: id, Tokens: b.Tokens})
		r.reread = id
	}
	r.compacted = false
	r.prompt, r.promptTokens = slices.Clone(r.file), r.fileTokens
}

// rereadNote opens the copy a prompt after a compaction brings (the
// reminder's wording as reported in anthropics/claude-code#92949).
const rereadNote = "Instruction files were re-read after the conversation was compacted; these differ from their earlier copies:\n"

// copyOf is the newest copy of the file among blocks, as lines, and
// whether there is one.
func copyOf(blocks []Block) ([]string, bool) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		if b.Kind == KindMemory && (b.ID == instructionsCopy || strings.HasPrefix(b.ID, instructionsCopy+"-reread")) {
			return strings.Split(strings.TrimPrefix(b.Content, rereadNote), "\n"), true
		}
	}
	return nil, false
}

// readPath is the path a tool call's JSON arguments name ("" when none):
// its Args, or in a trace-sized lesson the JSON object its text holds
// (read_file({"path": "src/a.go"})).
func readPath(call *Block) string {
	args := call.Args
	if args == "" {
		if i, j := strings.Index(call.Content, "{"), strings.LastIndex(call.Content, "}"); i >= 0 && j > i {
			args = call.Content[i : j+1]
		}
	}
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	for _, k := range []string{"path", "file_path"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}

// rulesFor are the rules a read of path loads: those scoped to it and not
// in the window.
func (r *instructionsRun) rulesFor(h *harness, path string) []PathRule {
	var out []PathRule
	for _, rule := range r.cfg.Rules {
		if path == "" || !slices.ContainsFunc(rule.Prefixes, func(p string) bool { return strings.HasPrefix(path, p) }) {
			continue
		}
		in := false
		h.each(func(b *Block) bool {
			in = in || strings.HasPrefix(b.ID, rule.ID+"-")
			return !in
		})
		if !in && !slices.ContainsFunc(r.pending, func(p PathRule) bool { return p.ID == rule.ID }) {
			out = append(out, rule)
		}
	}
	return out
}

// afterResult loads the rules the read just made relevant, after the result.
func (r *instructionsRun) afterResult(h *harness) {
	for _, rule := range r.pending {
		r.loads[rule.ID]++
		b := h.blockOf(Message{ID: fmt.Sprintf("%s-%d", rule.ID, r.loads[rule.ID]), Role: RoleUser, Kind: KindMemory,
			Label: Text{"en": rule.Path}, Content: rule.Content, Tokens: rule.Tokens, Origin: rule.Origin})
		b.LabelKey = "block.rule"
		h.msgs = append(h.msgs, b)
		h.event(Event{Type: EventRuleLoaded, Block: b.ID, Tokens: b.Tokens})
	}
	r.pending = r.pending[:0]
}

// beforeCall compacts when the request is above the trigger, unless the
// conversation holds nothing but what the last compaction made.
func (r *instructionsRun) beforeCall(h *harness) {
	if h.total() <= r.trigger || len(h.msgs) == 0 {
		return
	}
	if !slices.ContainsFunc(h.msgs, func(b Block) bool { return !r.made[b.ID] }) {
		return
	}
	r.compact(h)
}

// compact replaces the conversation with a summary, shown as two frames:
// the summary beside the range, and the window after the harness put back
// what it puts back.
func (r *instructionsRun) compact(h *harness) {
	h.showPart()
	r.compactions++
	c := &instructionsCompaction{number: r.compactions, before: h.total(), count: len(h.msgs)}
	ids := make([]string, len(h.msgs))
	for i, b := range h.msgs {
		ids[i] = b.ID
		c.rng += b.Tokens
		if b.LabelKey == "block.rule" {
			c.rulesLost++
		}
	}
	r.last = c
	h.event(Event{Type: EventAutocompact, Tokens: c.before})
	sum := r.summary(h)
	c.summary, c.summaryTokens, c.mechanical = sum.ID, sum.Tokens, sum.Summary.Mechanical
	r.calls++
	r.sent += c.rng + r.cfg.Prompt
	f := h.emitWith(FrameSummary, keyAutocompact, nil, frameCtx{own: true})
	bs := f.Blocks()
	for i := range bs {
		bs[i].Selected = slices.Contains(ids, bs[i].ID)
	}
	pending := sum
	pending.Spotlight = true
	f.Pending = &pending
	f.Decisive = true

	h.msgs = []Block{sum}
	r.made = map[string]bool{sum.ID: true}
	r.reinjectCopy(h)
	r.reinjectSkills(h, c)
	c.after = h.total()
	r.compacted = true
	h.event(Event{Type: EventCompaction, Tokens: c.before - c.after})
	g := h.emitWith(FrameReplaced, keyRestored, nil, frameCtx{own: true})
	g.Decisive = true
}

// summary is the card that covers exactly the conversation, or a
// mechanical excerpt of it.
func (r *instructionsRun) summary(h *harness) Block {
	b := summaryOf(h, r.cfg.Cards, h.msgs, fmt.Sprintf("excerpt-%d", r.compactions))
	h.event(Event{Type: EventSummary, Tokens: b.Tokens, Block: b.ID, Variant: summaryVariant(b.Summary)})
	return b
}

// reinjectCopy puts the file's copy back after the system prompt, from
// where the policy says, or leaves it out.
func (r *instructionsRun) reinjectCopy(h *harness) {
	h.injected = slices.DeleteFunc(h.injected, func(b Block) bool { return b.ID == instructionsCopy })
	var lines []string
	tokens := 0
	switch r.policy {
	case ReinjectDisk:
		lines, tokens, r.copyFrom = r.file, r.fileTokens, copyDisk
	case ReinjectLastPrompt:
		lines, tokens, r.copyFrom = r.prompt, r.promptTokens, copyLastPrompt
	default:
		r.copyFrom = ""
		h.event(Event{Type: EventInstructionDropped, Block: instructionsCopy})
		return
	}
	b := r.copyBlock(h, instructionsCopy, lines, tokens)
	h.injected = append([]Block{b}, h.injected...)
	h.event(Event{Type: EventInstructionReinjected, Block: b.ID, Tokens: b.Tokens, Variant: r.copyFrom})
}

// reinjectSkills puts back the bodies of the skills invoked, each cut to
// the cap, the newest first within the total; the oldest are dropped.
func (r *instructionsRun) reinjectSkills(h *harness, c *instructionsCompaction) {
	left := r.cfg.SkillTotal
	var back []Block
	for i := len(r.skills) - 1; i >= 0; i-- {
		s := r.skills[i]
		n := min(s.Tokens, r.cfg.SkillCap)
		if n > left {
			c.dropped++
			continue
		}
		left -= n
		b := Block{ID: fmt.Sprintf("%s-back-%d", s.ID, r.compactions), Role: RoleUser, Kind: KindMemory, Label: s.Label,
			LabelKey: "block.skill-back", Content: s.Content, Tokens: n, Tool: s.Tool,
			Attrs: []Attr{{"skill_tokens", s.Tokens}}}
		if n < s.Tokens {
			c.cut++
			b.Attrs = append(b.Attrs, Attr{"cut_to", n})
		}
		back = append([]Block{b}, back...)
	}
	for _, b := range back {
		h.msgs = append(h.msgs, b)
		r.made[b.ID] = true
		c.reinjected++
		h.event(Event{Type: EventSkillReinjected, Block: b.ID, Tokens: b.Tokens})
	}
}

// frame reports the file and its copy, the rules and skills in the
// window, and a compaction's figures on its own frames.
func (r *instructionsRun) frame(h *harness, f *Frame, fc frameCtx) {
	if !fc.own {
		*fc.tags = append(*fc.tags, r.policy)
	}
	if modelWrittenPick(h, r.cfg.Cards) {
		f.Figures = append(f.Figures, count("recorded", 1))
	}
	f.Line = Line{Tokens: r.trigger, Key: "line.trigger"}
	f.Alert = f.Total > r.trigger
	f.Figures = append(f.Figures, tokens("trigger", r.trigger), percent("trigger-pct", r.cfg.Trigger), text("file", r.cfg.Path),
		count("file-lines", len(r.file)), count("compactions", r.compactions), tokens("skill-cap", r.cfg.SkillCap),
		tokens("skill-total", r.cfg.SkillTotal), count("summarizer-calls", r.calls))
	copyLines, missing := r.copyState(f)
	if copyLines > 0 {
		f.Figures = append(f.Figures, count("copy-lines", copyLines), key("copy-from", "value.copy-"+r.copyFrom))
	} else {
		f.Figures = append(f.Figures, count("copy-missing", 1))
	}
	if len(missing) > 0 {
		f.Figures = append(f.Figures, count("copy-stale", len(missing)), text("missing-line", strings.TrimPrefix(missing[0], "- ")))
	}
	if r.reread != "" {
		f.Figures = append(f.Figures, count("reread", 1), blockRef("reread-block", r.reread))
		r.reread = ""
	}
	rules := 0
	bs := f.Blocks()
	for i := range bs {
		b := &bs[i]
		switch {
		case b.LabelKey == "block.rule":
			rules++
			b.Badges = append(b.Badges, Badge{Key: "path-scoped", Tone: "info"})
		case b.LabelKey == "block.skill-back":
			if n, ok := b.Attr("cut_to"); ok {
				full, _ := b.Attr("skill_tokens")
				b.Badges = append(b.Badges, Badge{Key: "skill-cut", Args: []Figure{tokens("to", n), tokens("from", full)}, Tone: "warn"})
			} else {
				b.Badges = append(b.Badges, Badge{Key: "reinjected", Tone: "ok"})
			}
		case b.ID == instructionsCopy && r.copyFrom != "":
			b.Badges = append(b.Badges, Badge{Key: "copy-" + r.copyFrom, Tone: "info"})
		}
	}
	if rules > 0 {
		f.Figures = append(f.Figures, count("rules-in", rules))
	}
	for i := len(r.skills) - 1; i >= 0; i-- {
		f.Figures = append(f.Figures, tokens("skill-size", r.skills[i].Tokens))
		break
	}
	r.panel(f, copyLines, missing, rules)
	if !fc.own || r.last == nil {
		return
	}
	c := r.last
	f.Figures = append(f.Figures, count("compaction", c.number), tokens("before", c.before), count("count", c.count),
		tokens("range", c.rng), blockRef("summary-block", c.summary), tokens("summary", c.summaryTokens))
	if c.mechanical {
		f.Figures = append(f.Figures, count("mechanical", 1))
	}
	if c.rulesLost > 0 {
		f.Figures = append(f.Figures, count("rules-lost", c.rulesLost))
	}
	if f.Kind == FrameReplaced {
		f.Figures = append(f.Figures, tokens("after", c.after), count("skills-back", c.reinjected))
		if c.cut > 0 {
			f.Figures = append(f.Figures, count("skills-cut", c.cut))
		}
		if c.dropped > 0 {
			f.Figures = append(f.Figures, count("skills-dropped", c.dropped))
		}
	}
}

// copyState is the number of lines of the newest copy of the file in the
// request (0 when none) and the lines on disk it lacks.
func (r *instructionsRun) copyState(f *Frame) (int, []string) {
	lines, ok := copyOf(f.Blocks())
	if !ok {
		return 0, nil
	}
	return len(lines), newLines(r.file, lines)
}

// panel is the file on disk against the copy in the window.
func (r *instructionsRun) panel(f *Frame, copyLines int, missing []string, rules int) {
	rows := []Row{{Key: "disk", Values: []Figure{text("path", r.cfg.Path), count("n", len(r.file))}, Emph: true}}
	if copyLines > 0 {
		rows = append(rows, Row{Key: "copy", Values: []Figure{count("n", copyLines), key("from", "value.copy-"+r.copyFrom)}})
	} else {
		rows = append(rows, Row{Key: "no-copy"})
	}
	if len(missing) > 0 {
		rows = append(rows, Row{Key: "missing", Values: []Figure{count("n", len(missing))},
			Note: &Msg{Key: "panel.instructions.missing.note", Args: []Figure{text("line", strings.TrimPrefix(strings.Join(missing, " / "), "- "))}}})
	}
	rows = append(rows, Row{Key: "rules", Values: []Figure{count("n", rules)}})
	if r.compactions > 0 {
		rows = append(rows, Row{Key: "compactions", Values: []Figure{count("n", r.compactions), count("calls", r.calls)}})
	}
	f.Panels = append(f.Panels, Panel{ID: "instructions", Tone: "info", Rows: rows})
}

// Events of the instructions mechanism.
const (
	EventAutocompact           = "autocompact"            // the request passed the trigger: the harness compacts first
	EventInstructionEdit       = "instruction_edit"       // a tool call wrote a line to the file on disk
	EventInstructionReread     = "instruction_reread"     // after a compaction, the prompt brought the file as it is on disk
	EventInstructionReinjected = "instruction_reinjected" // a compaction put the copy back (Variant: from where)
	EventInstructionDropped    = "instruction_dropped"    // a compaction left the copy out
	EventRuleLoaded            = "rule_loaded"            // a read loaded a path-scoped rule
	EventSkillReinjected       = "skill_reinjected"       // a compaction put a skill's body back
)
