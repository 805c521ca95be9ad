package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"ctxsim/sim"
)

// mechanisms builds the lesson's mechanisms in the order the file lists
// them (the narration precedence) and checks what each needs of the trace.
func (b *builder) mechanisms(raw *rawLesson, l *sim.Lesson) {
	rm := raw.Mechanisms
	build := map[string]func() sim.Mechanism{
		"memory":     func() sim.Mechanism { return b.memory(rm.Memory) },
		"compaction": func() sim.Mechanism { return b.compaction(rm.Compaction, l) },
		"status_bar": func() sim.Mechanism { return b.statusBar(rm.StatusBar, l) },
		"counter": func() sim.Mechanism {
			return sim.ToolCounter{Constraint: b.constraint("mechanisms.counter.constraint", rm.Counter.Constraint, false)}
		},
		"clock":        func() sim.Mechanism { b.needTimes("mechanisms.clock", l); return sim.Clock{} },
		"tiered":       func() sim.Mechanism { return b.tiered(rm.Tiered, l) },
		"workspace":    func() sim.Mechanism { return b.workspaceMechanism(l) },
		"pairs":        func() sim.Mechanism { return sim.Pairs{} },
		"prompt_cache": func() sim.Mechanism { return b.promptCache(rm.PromptCache) },
		"limit":        func() sim.Mechanism { return b.limit(rm.Limit, l) },
		"usage":        func() sim.Mechanism { return sim.ProviderUsage{} },
		"compression":  func() sim.Mechanism { return b.compression(rm.Compression, l) },
		"history":      func() sim.Mechanism { return b.history(rm.History, l) },
		"subagent":     func() sim.Mechanism { return b.subagent(rm.Subagent, l) },
		"spend":        func() sim.Mechanism { return sim.SpendMeter{} },
		"arms":         func() sim.Mechanism { return b.arms(rm.Arms, l) },
		"layout":       func() sim.Mechanism { return b.layout(rm.Layout, l) },
		"instructions": func() sim.Mechanism { return b.instructions(rm.Instructions, l) },
		"layers":       func() sim.Mechanism { return b.layers(rm.Layers, l) },
	}
	for _, name := range b.f.keys("mechanisms") {
		l.Mechanisms = append(l.Mechanisms, build[name]())
	}
	if _, ok := l.Mechanism("memory"); !ok {
		for i, st := range l.Trace {
			if st.Type == sim.StepRemember {
				b.fail(fmt.Sprintf("trace[%d].type", i), "a remember step needs the memory mechanism")
			}
		}
	}
	if _, ok := l.Mechanism("workspace"); !ok && len(b.ops) > 0 {
		b.fail(b.opPaths[0], "a read, write or edit needs the workspace mechanism")
	}
	b.checkCompactSteps(l)
	b.checkSubSteps(l)
}

// checkCompactSteps requires a recorded compaction mechanism for compact
// steps, and a card of it for each.
func (b *builder) checkCompactSteps(l *sim.Lesson) {
	m, ok := l.Mechanism("compaction")
	c, _ := m.(sim.Compaction)
	for i, st := range l.Trace {
		if st.Type != sim.StepCompact {
			continue
		}
		p := fmt.Sprintf("trace[%d]", i)
		if !ok || !c.Recorded {
			b.fail(p+".type", "a compact step needs the compaction mechanism with recorded: true")
			return
		}
		if !slices.ContainsFunc(c.Cards, func(cd sim.Card) bool { return cd.ID == st.Card }) {
			b.fail(p+".card", "names no card of mechanisms.compaction.cards, got %q", st.Card)
		}
	}
}

// limit offers window sizes: the first is the default, the largest the
// lesson's window (the box the page draws).
func (b *builder) limit(r *rawLimit, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.limit.sizes"
	if len(r.Sizes) == 0 {
		b.fail(p, "needs at least one window size in tokens")
		return sim.Limit{Sizes: []int{l.Window}}
	}
	for i, n := range r.Sizes {
		if n <= 0 || n > l.Window {
			b.fail(fmt.Sprintf("%s[%d]", p, i), "must be a positive size no larger than the window (%d), got %d", l.Window, n)
		}
	}
	return sim.Limit{Sizes: r.Sizes}
}

func (b *builder) memory(r *rawMemory) sim.Mechanism {
	const p = "mechanisms.memory"
	if r.Path == "" {
		b.fail(p+".path", "is required (e.g. MEMORY.md)")
	}
	b.size(p, r.Tokens)
	return sim.MemoryStore{Path: r.Path, Lines: r.Lines, Tokens: r.Tokens}
}

func (b *builder) compaction(r *rawCompaction, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.compaction"
	switch {
	case r.Threshold < 1 || r.Threshold > 100:
		b.fail(p+".threshold", "must be an integer from 1 to 100, got %d", r.Threshold)
	case r.Tail < 0:
		b.fail(p+".tail", "must not be negative")
	}
	for i, t := range r.Presets {
		if t < 1 || t > 100 {
			b.fail(fmt.Sprintf("%s.presets[%d]", p, i), "must be an integer from 1 to 100, got %d", t)
		}
	}
	presets := r.Presets
	if len(presets) == 0 {
		presets = []int{r.Threshold}
	}
	c := sim.Compaction{Threshold: r.Threshold, Presets: presets, Tail: r.Tail, Recorded: r.Recorded, Loss: r.Loss}
	if r.Cards != "" {
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, nil)
	}
	return c
}

// cards reads the summary cards of a mechanism and checks them against the
// block ids of the trace; strategies are the strategies a card may serve
// (none: a compaction card names no strategy). Summaries recorded by
// ctxsim record (recordings.yaml) are added as versions.
func (b *builder) cards(p, file string, strategies []string) ([]sim.Card, int) {
	out, versions := b.readCards(p, file, strategies)
	if b.err != nil {
		return out, versions
	}
	return b.addRecordings(out, versions)
}

// readCards reads a cards file.
func (b *builder) readCards(p, file string, strategies []string) ([]sim.Card, int) {
	data, err := b.files.read(file)
	if err != nil {
		b.fail(p, "cannot read %s: %v", file, err)
		return nil, 0
	}
	var raw rawSummaries
	f, err := decodeYAML(b.files.name(file), data, &raw)
	if err != nil {
		if e, ok := err.(*Error); ok && b.err == nil {
			b.err = e
		}
		return nil, 0
	}
	cb := &builder{f: f, counted: b.counted}
	for k := range raw.Prompts {
		if !slices.Contains(strategies, k) {
			cb.fail("prompts."+k, "names no strategy whose cards this file holds (%s)", strings.Join(strategies, ", "))
		}
	}
	var out []sim.Card
	versions := 0
	seen := map[string]bool{}
	seenStrategy := map[[2]string]bool{}
	for i, rc := range raw.Cards {
		path := fmt.Sprintf("cards[%d]", i)
		if !lessonID.MatchString(rc.ID) || seen[rc.ID] || b.ids[rc.ID] != "" {
			cb.fail(path+".id", "must be a unique id matching %s, not a message id, got %q", lessonID, rc.ID)
		}
		if len(rc.Covers) == 0 {
			cb.fail(path+".covers", "must list the ids of the blocks the summary replaces")
		}
		for j, id := range rc.Covers {
			if b.ids[id] == "" && !seen[id] {
				cb.fail(fmt.Sprintf("%s.covers[%d]", path, j), "names unknown block %q (a message id or an earlier card id)", id)
			}
		}
		seen[rc.ID] = true
		if cb.counted || rc.Tokens != 0 {
			// In a trace-sized lesson a card may leave its size out: it is
			// then its text's o200k_base count (a summary shown whole).
			cb.size(path, rc.Tokens)
		}
		switch {
		case len(rc.Versions) == 0:
			cb.fail(path+".versions", "needs at least one version of the summary text")
		case versions != 0 && len(rc.Versions) != versions:
			cb.fail(path+".versions", "must hold as many versions as the other cards (%d), got %d", versions, len(rc.Versions))
		}
		versions = max(versions, len(rc.Versions))
		switch {
		case len(strategies) == 0 && rc.Strategy != "":
			cb.fail(path+".strategy", "a compaction card serves no strategy; remove it")
		case len(strategies) > 0 && !slices.Contains(strategies, rc.Strategy):
			cb.fail(path+".strategy", "must be one of %s (the strategies that summarize a result), got %q", strings.Join(strategies, ", "), rc.Strategy)
		case len(strategies) > 0 && len(rc.Covers) != 1:
			cb.fail(path+".covers", "a %s card covers exactly one tool result", rc.Strategy)
		case len(strategies) > 0 && seenStrategy[[2]string{rc.Strategy, rc.Covers[0]}]:
			cb.fail(path+".covers", "%s already has a %s card", rc.Covers[0], rc.Strategy)
		}
		if len(strategies) > 0 && len(rc.Covers) == 1 {
			seenStrategy[[2]string{rc.Strategy, rc.Covers[0]}] = true
			if b.ids[rc.Covers[0]] != "" && !b.results[rc.Covers[0]] {
				cb.fail(path+".covers[0]", "%q is not a tool result of the trace: a %s card summarizes one", rc.Covers[0], rc.Strategy)
			}
		}
		prompt := rc.Prompt
		if prompt == "" {
			prompt = raw.Prompts[rc.Strategy]
		}
		if prompt == "" {
			prompt = raw.Prompt
		}
		card := sim.Card{ID: rc.ID, Covers: rc.Covers, Tokens: rc.Tokens, Strategy: rc.Strategy, Prompt: prompt}
		for j, rv := range rc.Versions {
			vp := fmt.Sprintf("%s.versions[%d]", path, j)
			if rv.Content == "" {
				cb.fail(vp+".content", "is required")
			}
			prov := rv.Provenance
			if len(prov) == 0 {
				prov = raw.Provenance
			}
			if prov["en"] == "" || prov["ja"] == "" {
				cb.fail(vp+".provenance", "needs en and ja (or a file-level provenance): say who wrote or recorded it, and when")
			}
			card.Versions = append(card.Versions, sim.CardText{Content: rv.Content, Provenance: prov, Recorded: rv.Recorded})
		}
		out = append(out, card)
	}
	if cb.err != nil && b.err == nil {
		b.err = cb.err
	}
	return out, versions
}

func (b *builder) constraint(p string, r rawConstraint, needMax bool) sim.Constraint {
	if r.Tool == "" || r.Key == "" {
		b.fail(p, "needs tool and key")
	}
	if needMax && r.Max <= 0 {
		b.fail(p+".max", "must be a positive number of calls")
	}
	return sim.Constraint{Tool: r.Tool, Key: r.Key, Max: r.Max}
}

func (b *builder) statusBar(r *rawStatusBar, l *sim.Lesson) sim.Mechanism {
	b.needTimes("mechanisms.status_bar", l)
	return sim.StatusBar{Constraint: b.constraint("mechanisms.status_bar.constraint", r.Constraint, true), Todo: r.Todo}
}

// needTimes requires a time on every step that calls the model: the status
// bar and the clock report it.
func (b *builder) needTimes(p string, l *sim.Lesson) {
	for i, st := range l.Trace {
		calls := st.Decision
		for _, m := range st.Messages {
			calls = calls || m.Role == sim.RoleAssistant
		}
		if calls && st.Time == "" {
			b.fail(fmt.Sprintf("trace[%d].time", i), "is required: %s reports the time of each model call", strings.TrimPrefix(p, "mechanisms."))
		}
	}
}

func (b *builder) promptCache(r *rawPromptCache) sim.Mechanism {
	c := sim.PromptCache{Pricing: r.Alpha != 0, Alpha: r.Alpha, Presets: r.Presets, Panel: r.Panel}
	if r.Alpha < 0 || r.Alpha > 100 || (r.Alpha == 0 && len(r.Presets) > 0) {
		b.fail("mechanisms.prompt_cache.alpha", "must be the cached-input price in percent, 1 to 100, when presets are given; got %d", r.Alpha)
	}
	return c
}

func (b *builder) tiered(r *rawTiered, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.tiered"
	rr := r.Rules
	rules := sim.TierRules{KeepRecent: rr.KeepRecent, Tier1Distance: rr.Tier1Distance, SemanticMinChars: rr.SemanticMinChars,
		ExcerptChars: rr.ExcerptChars, HeadPercent: rr.HeadPercent, MaxSemanticPerPass: rr.MaxSemanticPerPass,
		ArgsChars: rr.ArgsChars, FloorTools: rr.FloorTools, FloorPrefixes: rr.FloorPrefixes, SkipTools: rr.SkipTools}
	switch {
	case r.Pressure <= 0:
		b.fail(p+".pressure", "must be a positive number of tokens")
	case r.SummaryProvenance["en"] == "" || r.SummaryProvenance["ja"] == "":
		b.fail(p+".summary_provenance", "needs en and ja: say who wrote the Tier 2 summaries, and that they are not model output if they are not")
	case rr.KeepRecent <= 0:
		b.fail(p+".rules.keep_recent", "must be a positive number of results")
	case rr.Tier1Distance <= rr.KeepRecent:
		b.fail(p+".rules.tier1_distance", "must be above keep_recent (%d)", rr.KeepRecent)
	case rr.SemanticMinChars <= 0 || rr.ExcerptChars <= 0 || rr.ArgsChars <= 0:
		b.fail(p+".rules", "semantic_min_chars, excerpt_chars and args_chars must be positive")
	case rr.HeadPercent < 1 || rr.HeadPercent > 99:
		b.fail(p+".rules.head_percent", "must be from 1 to 99, got %d", rr.HeadPercent)
	case rr.MaxSemanticPerPass < 0:
		b.fail(p+".rules.max_semantic_per_pass", "must not be negative")
	case len(rr.FloorTools) == 0:
		b.fail(p+".rules.floor_tools", "is required")
	}
	if b.err == nil && !r.Optional {
		b.checkSummaries(rules, l)
	}
	return sim.Tiered{Pressure: r.Pressure, Rules: rules, SummaryProvenance: r.SummaryProvenance, Optional: r.Optional}
}

// checkSummaries requires a Tier 2 summary exactly for the results a pass
// may ask a model to summarize, tagged and within the Tier 2 cap.
func (b *builder) checkSummaries(rules sim.TierRules, l *sim.Lesson) {
	texts, _, _ := b.ws().Results(b.ops)
	opText := map[*sim.FileOp]string{}
	for i, op := range b.ops {
		if i < len(texts) {
			opText[op] = texts[i]
		}
	}
	for _, st := range l.Trace {
		for _, m := range st.Messages {
			if m.Role != sim.RoleTool || m.Tool == "" {
				continue
			}
			text := m.Content
			if m.Op != nil {
				text = opText[m.Op]
			}
			p := b.paths[m.ID] + ".summary"
			n := runes(text)
			eligible := n > rules.SemanticMinChars && rules.Summarizable(m.Tool)
			switch {
			case eligible && m.Summary == "":
				b.fail(p, "is required: the result has %d characters (over %d) and %s may be summarized by a model, so a Tier 2 pass can ask for its summary",
					n, rules.SemanticMinChars, m.Tool)
			case !eligible && m.Summary != "":
				b.fail(p, "is never used: only results over %d characters of a tool a model may summarize get one (this one has %d)", rules.SemanticMinChars, n)
			case m.Summary != "" && !strings.HasPrefix(m.Summary, "[micro-compact]"):
				b.fail(p, "must start with the tag [micro-compact]")
			case m.Summary != "" && runes(m.Summary) > rules.ExcerptChars:
				b.fail(p, "has %d characters; Tier 2 output is capped at %d", runes(m.Summary), rules.ExcerptChars)
			}
		}
	}
}

// workspaceFiles reads the workspace's files before the trace is built
// (write calls carry their text).
func (b *builder) workspaceFiles(r *rawWorkspace) {
	if r == nil {
		return
	}
	for i, f := range r.Files {
		p := fmt.Sprintf("mechanisms.workspace.files[%d]", i)
		switch {
		case f.Path == "" || f.Text == "":
			b.fail(p, "needs path and text")
		case f.Chars > 0 && runes(f.Text) != f.Chars:
			b.fail(p+".chars", "says %d characters; the text has %d", f.Chars, runes(f.Text))
		case f.Lines > 0 && strings.Count(f.Text, "\n") != f.Lines:
			b.fail(p+".lines", "says %d lines; the text has %d", f.Lines, strings.Count(f.Text, "\n"))
		case slices.ContainsFunc(b.workspace, func(w sim.WorkspaceFile) bool { return w.Path == f.Path }):
			b.fail(p+".path", "%q is listed twice", f.Path)
		}
		b.workspace = append(b.workspace, sim.WorkspaceFile{Path: f.Path, Text: f.Text})
	}
}

// workspaceMechanism marks the files a write creates and replays the file
// operations once to check them.
func (b *builder) workspaceMechanism(l *sim.Lesson) sim.Mechanism {
	w := b.ws()
	if _, i, err := w.Results(b.ops); err != nil {
		b.fail(b.opPaths[i], "%v", err)
	}
	return w
}

// ws is the workspace with the files a write creates marked.
func (b *builder) ws() sim.Workspace {
	w := sim.Workspace{Files: slices.Clone(b.workspace)}
	for i := range w.Files {
		w.Files[i].Created = slices.Contains(b.writes, w.Files[i].Path)
	}
	return w
}

// compression builds the compression mechanism: the strategies it offers,
// the adaptive trigger, and a card per result for each strategy that
// summarizes.
func (b *builder) compression(r *rawCompression, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.compression"
	offered := b.offered(p+".strategies", r.Strategies, sim.Strategies)
	c := sim.Compression{Strategies: offered, Trigger: r.Trigger, Tools: r.Tools}
	var summarizing []string
	for _, s := range offered {
		if sim.Summarizes(s) {
			summarizing = append(summarizing, s)
		}
	}
	b.trigger(p, r.Trigger, slices.Contains(offered, sim.StrategyAdaptive))
	switch {
	case len(summarizing) > 0 && r.Cards == "":
		b.fail(p+".cards", "is required: %s replace a result with the summary written for it (a cards file)", strings.Join(summarizing, ", "))
	case r.Cards != "" && len(summarizing) == 0:
		b.fail(p+".cards", "is never used: none of the strategies offered summarizes a result")
	case r.Cards != "":
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, summarizing)
	}
	return c
}

// offered checks the choices a strategy mechanism offers (all of them
// when none is given) and returns them.
func (b *builder) offered(p string, given, all []string) []string {
	if len(given) == 0 {
		return all
	}
	for i, s := range given {
		switch {
		case !slices.Contains(all, s):
			b.fail(fmt.Sprintf("%s[%d]", p, i), "must be one of %s, got %q", strings.Join(all, ", "), s)
		case slices.Contains(given[:i], s):
			b.fail(fmt.Sprintf("%s[%d]", p, i), "%q is listed twice", s)
		}
	}
	return given
}

// trigger checks the adaptive trigger: a percent of the window when the
// adaptive strategy is offered, else left out.
func (b *builder) trigger(p string, pct int, adaptive bool) {
	switch {
	case adaptive && (pct < 1 || pct > 100):
		b.fail(p+".trigger", "must be the percent of the window that starts the adaptive batch, 1 to 100; got %d", pct)
	case !adaptive && pct != 0:
		b.fail(p+".trigger", "is for the adaptive strategy, which is not offered")
	}
}

// history builds the history mechanism: sliding, full, adaptive.
func (b *builder) history(r *rawHistory, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.history"
	offered := b.offered(p+".choices", r.Choices, sim.Histories)
	c := sim.History{Choices: offered, Messages: r.Messages, Keep: r.Keep, Trigger: r.Trigger}
	sliding, adaptive := slices.Contains(offered, sim.HistorySliding), slices.Contains(offered, sim.StrategyAdaptive)
	switch {
	case sliding && r.Messages < 2:
		b.fail(p+".messages", "must be the number of recent messages a sliding window keeps, at least 2; got %d", r.Messages)
	case !sliding && (r.Messages != 0 || r.Keep != 0):
		b.fail(p+".messages", "messages and keep are for the sliding window, which is not offered")
	case r.Keep < 0:
		b.fail(p+".keep", "must not be negative")
	case adaptive && r.Cards == "":
		b.fail(p+".cards", "is required: adaptive replaces each result with the summary written for it (a cards file)")
	case !adaptive && r.Cards != "":
		b.fail(p+".cards", "is for the adaptive strategy, which is not offered")
	}
	b.trigger(p, r.Trigger, adaptive)
	if adaptive && r.Cards != "" && b.err == nil {
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, []string{sim.StrategyAdaptive})
	}
	return c
}

// subagent builds the sub-agent: its system prompt, the main agent's call
// that hands the task over, and the task as the sub-agent reads it.
func (b *builder) subagent(r *rawSubagent, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.subagent"
	sys := sim.Message{ID: "sub-system", Role: sim.RoleSystem, Kind: sim.KindPrompt, Label: r.System.Label, Content: r.System.Content,
		Tokens: r.System.Tokens, Origin: b.originOf(p+".system.origin", r.System.Origin)}
	b.size(p+".system", r.System.Tokens)
	if r.System.Content == "" {
		b.fail(p+".system.content", "is required: the sub-agent's system prompt")
	}
	b.checkID(p+".system", sys.ID)
	task, prompt := r.Task, r.Prompt
	task.Role, task.Kind = string(sim.RoleAssistant), string(sim.KindToolCall)
	prompt.Role, prompt.Kind = string(sim.RoleUser), string(sim.KindText)
	s := sim.Subagent{System: sys, Task: b.message(p+".task", task, l.Facts), Prompt: b.message(p+".prompt", prompt, l.Facts)}
	s.Task.ToolUseID = s.Task.ID
	return s
}

// checkSubSteps requires the subagent mechanism for steps a sub-agent
// does, one run of them, ending with the sub-agent's conclusion (a text
// message of the assistant), and such steps for the mechanism.
func (b *builder) checkSubSteps(l *sim.Lesson) {
	_, ok := l.Mechanism("subagent")
	first, last := -1, -1
	for i, st := range l.Trace {
		if st.Agent != sim.AgentSub {
			continue
		}
		if !ok {
			b.fail(fmt.Sprintf("trace[%d].agent", i), "a sub-agent's step needs the subagent mechanism")
			return
		}
		if last >= 0 && last != i-1 {
			b.fail(fmt.Sprintf("trace[%d].agent", i), "a sub-agent's steps must follow one another (one task, one run)")
			return
		}
		if first < 0 {
			first = i
		}
		last = i
	}
	if ok && last < 0 {
		b.fail("mechanisms.subagent", "no step is a sub-agent's: mark the steps it does with agent: sub")
		return
	}
	if last < 0 {
		return
	}
	ms := l.Trace[last].Messages
	if n := len(ms); n == 0 || ms[n-1].Role != sim.RoleAssistant || ms[n-1].Kind != sim.KindText {
		b.fail(fmt.Sprintf("trace[%d].messages", last), "the sub-agent's last step must end with its conclusion: a text message of the assistant (it returns as the task's result)")
	}
}

// addRecordings adds the summaries ctxsim record stored in recordings.yaml
// to the cards they name, as recorded versions with their provenance.
func (b *builder) addRecordings(cards []sim.Card, versions int) ([]sim.Card, int) {
	const file = "recordings.yaml"
	data, err := b.files.read(file)
	if errors.Is(err, fs.ErrNotExist) {
		return cards, versions
	}
	if err != nil {
		b.fail("", "cannot read %s: %v", file, err)
		return cards, versions
	}
	var raw rawRecordedFile
	f, err := decodeYAML(b.files.name(file), data, &raw)
	if err != nil {
		if e, ok := err.(*Error); ok && b.err == nil {
			b.err = e
		}
		return cards, versions
	}
	rb := &builder{f: f}
	for i, rr := range raw.Recordings {
		p := fmt.Sprintf("recordings[%d]", i)
		j := slices.IndexFunc(cards, func(c sim.Card) bool { return c.ID == rr.Card })
		date, derr := time.Parse(time.RFC3339, rr.Date)
		switch {
		case j < 0:
			rb.fail(p+".card", "names no summary card of the lesson, got %q", rr.Card)
		case rr.Content == "":
			rb.fail(p+".content", "is required: the summary the model returned")
		case rr.Model == "" || rr.Endpoint == "":
			rb.fail(p, "needs model and endpoint: where the summary came from")
		case derr != nil:
			rb.fail(p+".date", "must be an RFC 3339 time: %v", derr)
		}
		if j < 0 || rb.err != nil {
			continue
		}
		if cards[j].CountFrom == 0 {
			cards[j].CountFrom = len(cards[j].Versions) + 1
		}
		cards[j].Versions = append(cards[j].Versions, sim.CardText{Content: rr.Content, Recorded: true, Provenance: recordedProvenance(rr, date)})
		b.recorded = true
	}
	for i, c := range cards {
		if i > 0 && len(c.Versions) != len(cards[0].Versions) && rb.err == nil {
			rb.fail("recordings", "every card needs as many recordings: %s has %d versions, %s %d (run ctxsim record for the whole lesson)",
				cards[0].ID, len(cards[0].Versions), c.ID, len(c.Versions))
		}
	}
	if rb.err != nil && b.err == nil {
		b.err = rb.err
	}
	if len(cards) > 0 {
		versions = len(cards[0].Versions)
	}
	return cards, versions
}

// recordedProvenance says where a recorded summary came from, in both
// languages.
func recordedProvenance(r rawRecordedSummary, date time.Time) sim.Text {
	day := date.UTC().Format("2006-01-02")
	return sim.Text{
		"en": fmt.Sprintf("Recorded by ctxsim record from %s (%s, %s API) on %s, asked with the card's prompt (recordings.yaml holds it): model output, not text written for this lesson.", r.Model, r.Endpoint, r.API, day),
		"ja": fmt.Sprintf("ctxsim record が %s（%s、%s API）から %s に記録した要約です（尋ねたプロンプトは recordings.yaml にあります）。この教材のために書かれた文ではなく、モデルの出力です。", r.Model, r.Endpoint, r.API, day),
	}
}
