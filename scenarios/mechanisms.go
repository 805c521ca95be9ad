package scenarios

import (
	"fmt"
	"slices"
	"strings"

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
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, l)
	}
	return c
}

// cards reads the summary cards of a compaction and checks them against the
// block ids of the trace.
func (b *builder) cards(p, file string, l *sim.Lesson) ([]sim.Card, int) {
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
	var out []sim.Card
	versions := 0
	seen := map[string]bool{}
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
		cb.size(path, rc.Tokens)
		switch {
		case len(rc.Versions) == 0:
			cb.fail(path+".versions", "needs at least one version of the summary text")
		case versions != 0 && len(rc.Versions) != versions:
			cb.fail(path+".versions", "must hold as many versions as the other cards (%d), got %d", versions, len(rc.Versions))
		}
		versions = max(versions, len(rc.Versions))
		card := sim.Card{ID: rc.ID, Covers: rc.Covers, Tokens: rc.Tokens}
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
