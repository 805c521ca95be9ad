package scenarios

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"ctxsim/sim"
)

// rawTiered is the tiered engine's section of lesson.yaml: the compressor's
// rules, the files the agent reads and edits (full texts), and the steps of
// the trajectory. A result's text is written out, read from a file, derived
// from an edit, or generated deterministically from a compact spec.
type rawTiered struct {
	Pressure          int             `yaml:"pressure"`
	Rules             rawTierRules    `yaml:"rules"`
	System            string          `yaml:"system"`
	Task              string          `yaml:"task"`
	SummaryProvenance sim.Text        `yaml:"summary_provenance"`
	Module            string          `yaml:"module"` // Go module path shown in test output
	Files             []rawTieredFile `yaml:"files"`
	Repo              []rawRepoFile   `yaml:"repo"`
	Steps             []rawTieredStep `yaml:"steps"`
}

type rawTierRules struct {
	KeepRecent         int      `yaml:"keep_recent"`
	Tier1Distance      int      `yaml:"tier1_distance"`
	SemanticMinChars   int      `yaml:"semantic_min_chars"`
	ExcerptChars       int      `yaml:"excerpt_chars"`
	HeadPercent        int      `yaml:"head_percent"`
	MaxSemanticPerPass int      `yaml:"max_semantic_per_pass"`
	ArgsChars          int      `yaml:"args_chars"`
	FloorTools         []string `yaml:"floor_tools"`
	FloorPrefixes      []string `yaml:"floor_prefixes"`
	SkipTools          []string `yaml:"skip_tools"`
}

// rawTieredFile is a file of the simulated repository with its full text.
// Lines and chars, when given, are the figures the source states; the
// loader checks the text against them.
type rawTieredFile struct {
	Path  string `yaml:"path"`
	Lines int    `yaml:"lines"`
	Chars int    `yaml:"chars"`
	Text  string `yaml:"text"`
}

// rawRepoFile is another file of the repository, known by path and size
// only (directory listings and globs show it).
type rawRepoFile struct {
	Path  string `yaml:"path"`
	Bytes int    `yaml:"bytes"`
}

type rawTieredStep struct {
	Step  string          `yaml:"step"`
	Calls []rawTieredCall `yaml:"calls"`
}

type rawTieredCall struct {
	ID      string     `yaml:"id"`
	Tool    string     `yaml:"tool"`
	Args    yaml.Node  `yaml:"args"`
	Result  *rawResult `yaml:"result"`
	Read    string     `yaml:"read"`  // file_read of a file: the result is its text now
	Write   string     `yaml:"write"` // file_write of a file: the call carries its text
	Edit    *rawEdit   `yaml:"edit"`  // edit of a file: the result is a numbered snippet
	Summary string     `yaml:"summary"`
}

type rawEdit struct {
	Path string `yaml:"path"`
	Old  string `yaml:"old"`
	New  string `yaml:"new"`
}

// rawResult is a result text, written out (text) or generated (gen) to
// exactly chars characters from seed.
type rawResult struct {
	Text  string   `yaml:"text"`
	Gen   string   `yaml:"gen"`
	Chars int      `yaml:"chars"`
	Seed  uint64   `yaml:"seed"`
	Lines []string `yaml:"lines"` // lines the generated text must contain, in order (a failure, a warning)
}

var tieredUseID = regexp.MustCompile(`^toolu_[a-z0-9]{1,24}$`)

// tiered validates the tiered engine's section of lesson.yaml and builds
// the full texts of the trajectory.
func (b *builder) tiered(raw *rawTiered) *sim.TieredTrace {
	if raw == nil {
		b.fail("tiered", "is required for engine tiered")
		return nil
	}
	tr := &sim.TieredTrace{System: raw.System, Task: raw.Task, Pressure: raw.Pressure,
		SummaryProvenance: raw.SummaryProvenance, Rules: b.tierRules(raw.Rules)}
	switch {
	case raw.System == "":
		b.fail("tiered.system", "is required")
	case raw.Task == "":
		b.fail("tiered.task", "is required")
	case raw.Pressure <= 0:
		b.fail("tiered.pressure", "must be a positive number of tokens")
	case raw.SummaryProvenance["en"] == "" || raw.SummaryProvenance["ja"] == "":
		b.fail("tiered.summary_provenance", "needs en and ja: say who wrote the semantic summaries, and that they are not model output if they are not")
	case len(raw.Steps) == 0:
		b.fail("tiered.steps", "needs at least one step")
	}
	st := &tieredState{b: b, raw: raw, files: map[string]string{}, read: map[string]bool{}, pending: map[string]bool{}, module: raw.Module}
	for _, rs := range raw.Steps {
		for _, rc := range rs.Calls {
			if rc.Write != "" {
				st.pending[rc.Write] = true
			}
		}
	}
	for i, f := range raw.Files {
		p := fmt.Sprintf("tiered.files[%d]", i)
		switch {
		case f.Path == "" || f.Text == "":
			b.fail(p, "needs path and text")
		case f.Chars > 0 && utf8.RuneCountInString(f.Text) != f.Chars:
			b.fail(p+".chars", "says %d characters; the text has %d", f.Chars, utf8.RuneCountInString(f.Text))
		case f.Lines > 0 && strings.Count(f.Text, "\n") != f.Lines:
			b.fail(p+".lines", "says %d lines; the text has %d", f.Lines, strings.Count(f.Text, "\n"))
		}
		st.initial = append(st.initial, f.Path)
		st.texts = append(st.texts, f.Text)
	}
	seenStep := map[string]bool{}
	seenCall := map[string]bool{}
	for i, rs := range raw.Steps {
		p := fmt.Sprintf("tiered.steps[%d]", i)
		if !lessonID.MatchString(rs.Step) || seenStep[rs.Step] || rs.Step == "reread" || rs.Step == "refused" || strings.HasPrefix(rs.Step, "pass-") {
			b.fail(p+".step", "must be a unique id matching %s (not reread, refused or pass-N), got %q", lessonID, rs.Step)
		}
		seenStep[rs.Step] = true
		step := sim.TieredStep{ID: rs.Step}
		for j, rc := range rs.Calls {
			cp := fmt.Sprintf("%s.calls[%d]", p, j)
			if !tieredUseID.MatchString(rc.ID) || seenCall[rc.ID] || strings.HasPrefix(rc.ID, "toolu_rr") {
				b.fail(cp+".id", "must be a unique tool_use id matching %s (toolu_rr… is kept for re-reads), got %q", tieredUseID, rc.ID)
			}
			seenCall[rc.ID] = true
			step.Calls = append(step.Calls, st.call(cp, rc, tr.Rules))
		}
		tr.Steps = append(tr.Steps, step)
	}
	return tr
}

func (b *builder) tierRules(r rawTierRules) sim.TierRules {
	out := sim.TierRules{KeepRecent: r.KeepRecent, Tier1Distance: r.Tier1Distance, SemanticMinChars: r.SemanticMinChars,
		ExcerptChars: r.ExcerptChars, HeadPercent: r.HeadPercent, MaxSemanticPerPass: r.MaxSemanticPerPass,
		ArgsChars: r.ArgsChars, FloorTools: r.FloorTools, FloorPrefixes: r.FloorPrefixes, SkipTools: r.SkipTools}
	switch {
	case r.KeepRecent <= 0:
		b.fail("tiered.rules.keep_recent", "must be a positive number of results")
	case r.Tier1Distance <= r.KeepRecent:
		b.fail("tiered.rules.tier1_distance", "must be above keep_recent (%d)", r.KeepRecent)
	case r.SemanticMinChars <= 0 || r.ExcerptChars <= 0 || r.ArgsChars <= 0:
		b.fail("tiered.rules", "semantic_min_chars, excerpt_chars and args_chars must be positive")
	case r.HeadPercent < 1 || r.HeadPercent > 99:
		b.fail("tiered.rules.head_percent", "must be from 1 to 99, got %d", r.HeadPercent)
	case r.MaxSemanticPerPass < 0:
		b.fail("tiered.rules.max_semantic_per_pass", "must not be negative")
	case len(r.FloorTools) == 0:
		b.fail("tiered.rules.floor_tools", "is required")
	}
	return out
}

// tieredState follows the repository while the calls are built: files are
// written and edited, so later reads, edits and listings see the changes.
type tieredState struct {
	b       *builder
	raw     *rawTiered
	module  string
	initial []string          // files of the repository at the start, in order
	texts   []string          // their texts
	files   map[string]string // path -> text, once a call has touched the file
	read    map[string]bool   // files the agent has read (its edits need them)
	pending map[string]bool   // files a later call creates: not in the repository yet
}

func (st *tieredState) text(p string) (string, bool) {
	if t, ok := st.files[p]; ok {
		return t, true
	}
	if i := slices.Index(st.initial, p); i >= 0 && !st.pending[p] {
		return st.texts[i], true
	}
	return "", false
}

func (st *tieredState) call(p string, rc rawTieredCall, rules sim.TierRules) sim.TieredCall {
	b := st.b
	c := sim.TieredCall{ID: rc.ID, Tool: rc.Tool, Summary: rc.Summary}
	if rc.Tool == "" {
		b.fail(p+".tool", "is required")
	}
	modes := 0
	for _, set := range []bool{rc.Result != nil, rc.Read != "", rc.Write != "", rc.Edit != nil} {
		if set {
			modes++
		}
	}
	if modes != 1 {
		b.fail(p, "needs exactly one of result, read, write and edit")
		return c
	}
	args := map[string]any{}
	var order []string
	switch {
	case rc.Read != "":
		text, ok := st.text(rc.Read)
		if !ok {
			b.fail(p+".read", "names %q, which is not among tiered.files", rc.Read)
		}
		st.read[rc.Read] = true
		c.Result, c.Reads = text, rc.Read
		args["path"], order = rc.Read, []string{"path"}
	case rc.Write != "":
		i := slices.Index(st.initial, rc.Write)
		text, ok := "", i >= 0 && st.files[rc.Write] == ""
		if ok {
			text = st.texts[i]
		}
		if !ok {
			b.fail(p+".write", "names %q, which is not among tiered.files or is written twice", rc.Write)
		}
		st.files[rc.Write] = text
		c.Result = fmt.Sprintf("File created successfully at: %s (%d lines, %d bytes)", rc.Write, strings.Count(text, "\n"), len(text))
		args["path"], args["content"], order = rc.Write, text, []string{"path", "content"}
	case rc.Edit != nil:
		c.Result = st.edit(p+".edit", rc.Edit, &c)
		args["path"], args["old_string"], args["new_string"] = rc.Edit.Path, rc.Edit.Old, rc.Edit.New
		order = []string{"path", "old_string", "new_string"}
	default:
		args, order = st.b.argsOf(p+".args", &rc.Args)
		c.Result = st.result(p+".result", rc, args)
	}
	c.Args = jsonArgs(args, order)
	c.Label = labelOf(rc.Tool, args)
	if rc.Args.Kind != 0 && rc.Result == nil {
		b.fail(p+".args", "is derived for read, write and edit calls; remove it")
	}
	eligible := utf8.RuneCountInString(c.Result) > rules.SemanticMinChars && rules.Summarizable(rc.Tool)
	switch {
	case eligible && rc.Summary == "":
		b.fail(p+".summary", "is required: the result has %d characters (over %d) and %s may be summarized by a model, so a Tier 2 pass can ask for its summary",
			utf8.RuneCountInString(c.Result), rules.SemanticMinChars, rc.Tool)
	case !eligible && rc.Summary != "":
		b.fail(p+".summary", "is never used: only results over %d characters of a tool a model may summarize get one (this one has %d)",
			rules.SemanticMinChars, utf8.RuneCountInString(c.Result))
	case rc.Summary != "" && !strings.HasPrefix(rc.Summary, "[micro-compact]"):
		b.fail(p+".summary", "must start with the tag [micro-compact]")
	case rc.Summary != "" && utf8.RuneCountInString(rc.Summary) > rules.ExcerptChars:
		b.fail(p+".summary", "has %d characters; Tier 2 output is capped at %d", utf8.RuneCountInString(rc.Summary), rules.ExcerptChars)
	}
	return c
}

// edit applies an edit to the file and returns the tool's result: the
// edited lines with a few lines of context, numbered like `cat -n`.
func (st *tieredState) edit(p string, e *rawEdit, c *sim.TieredCall) string {
	b := st.b
	text, ok := st.text(e.Path)
	switch {
	case !ok:
		b.fail(p+".path", "names %q, which is not among tiered.files", e.Path)
		return ""
	case e.Old == "" || e.Old == e.New:
		b.fail(p, "needs old and a different new")
		return ""
	case strings.Count(text, e.Old) != 1:
		b.fail(p+".old", "must occur exactly once in %s as edited so far; it occurs %d times", e.Path, strings.Count(text, e.Old))
		return ""
	}
	if st.read[e.Path] {
		// The agent works on a file it has read: if its read is stripped
		// to a stub, it must read the file again, as it is now.
		c.Needs, c.Reread = e.Path, text
		c.RereadArgs = jsonArgs(map[string]any{"path": e.Path}, []string{"path"})
	}
	at := strings.Index(text, e.Old)
	text = text[:at] + e.New + text[at+len(e.Old):]
	st.files[e.Path] = text
	first := strings.Count(text[:at], "\n") // 0-based line of the change
	last := first + strings.Count(e.New, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	from, to := max(first-6, 0), min(last+6, len(lines)-1)
	var out strings.Builder
	fmt.Fprintf(&out, "The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n", e.Path)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&out, "%6d\t%s\n", i+1, lines[i])
	}
	return out.String()
}

// argsOf reads a call's arguments: a mapping of scalars, kept in order.
func (b *builder) argsOf(p string, n *yaml.Node) (map[string]any, []string) {
	args := map[string]any{}
	var order []string
	if n.Kind == 0 {
		return args, order
	}
	if n.Kind != yaml.MappingNode {
		b.fail(p, "must be a mapping of argument names to values")
		return args, order
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			b.fail(p+"."+k, "must be a string, number or boolean")
			continue
		}
		switch v.Tag {
		case "!!int":
			num, _ := strconv.Atoi(v.Value)
			args[k] = num
		case "!!bool":
			args[k] = v.Value == "true"
		default:
			args[k] = v.Value
		}
		order = append(order, k)
	}
	return args, order
}

// jsonArgs writes arguments as compact JSON in the given order, without
// HTML escaping: the text a tool_use block carries.
func jsonArgs(args map[string]any, order []string) string {
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString(jsonValue(k))
		out.WriteByte(':')
		out.WriteString(jsonValue(args[k]))
	}
	out.WriteByte('}')
	return out.String()
}

func jsonValue(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, numbers and booleans always encode
	return strings.TrimSuffix(buf.String(), "\n")
}

// labelOf names a call by its tool and main argument.
func labelOf(tool string, args map[string]any) string {
	for _, k := range []string{"path", "command", "pattern", "url", "element", "topic"} {
		if v, ok := args[k].(string); ok && v != "" {
			if r := []rune(v); len(r) > 56 {
				v = string(r[:55]) + "…"
			}
			return tool + " " + v
		}
	}
	return tool
}

// result builds a written-out or generated result text.
func (st *tieredState) result(p string, rc rawTieredCall, args map[string]any) string {
	b, r := st.b, rc.Result
	if r.Text != "" {
		if r.Gen != "" || r.Chars != 0 {
			b.fail(p, "has text: gen and chars are for generated results")
		}
		return r.Text
	}
	gen, ok := generators[r.Gen]
	if !ok {
		b.fail(p+".gen", "must be one of %s, got %q", strings.Join(generatorNames(), ", "), r.Gen)
		return ""
	}
	if r.Chars <= 0 {
		b.fail(p+".chars", "must be the positive size of the generated text")
		return ""
	}
	g := &genCtx{st: st, args: args, rng: &splitmix{s: r.Seed}, want: r.Lines}
	head, body, tail := gen(g)
	text, err := assemble(head, body, tail, r.Lines, r.Chars)
	if err != nil {
		b.fail(p+".chars", "%v", err)
	}
	return text
}

// splitmix is splitmix64: a small seeded generator, so generated texts are
// the same on every machine and every Go version.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *splitmix) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *splitmix) pick(xs []string) string { return xs[r.intn(len(xs))] }

// genCtx is what a generator draws from.
type genCtx struct {
	st   *tieredState
	args map[string]any
	rng  *splitmix
	want []string
}

func (g *genCtx) arg(k string) string { s, _ := g.args[k].(string); return s }

// repoFiles lists the repository as it is now: tracked files with sizes.
func (g *genCtx) repoFiles() []rawRepoFile {
	var out []rawRepoFile
	seen := map[string]bool{}
	add := func(p string, n int) {
		if !seen[p] {
			seen[p] = true
			out = append(out, rawRepoFile{Path: p, Bytes: n})
		}
	}
	for p, t := range g.st.files {
		add(p, len(t))
	}
	for i, p := range g.st.initial {
		if !g.st.pending[p] {
			add(p, len(g.st.texts[i]))
		}
	}
	for _, f := range g.st.raw.Repo {
		add(f.Path, f.Bytes)
	}
	slices.SortFunc(out, func(a, b rawRepoFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// A generator returns fixed head lines, an endless source of body lines and
// fixed tail lines; assemble fills the body to the exact size.
type generator func(g *genCtx) (head []string, body func() string, tail []string)

var generators = map[string]generator{
	"tree":     genTree,
	"glob":     genGlob,
	"grep":     genGrep,
	"gofile":   genGoFile,
	"gotest":   genGoTest,
	"build":    genBuild,
	"lint":     genLint,
	"snapshot": genSnapshot,
}

func generatorNames() []string {
	var out []string
	for k := range generators {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// assemble joins head, body lines and tail into exactly chars characters
// (ASCII). The wanted lines go in early in the body; the last body line is
// cut to fit.
func assemble(head []string, body func() string, tail []string, want []string, chars int) (string, error) {
	var out strings.Builder
	for _, l := range head {
		out.WriteString(l + "\n")
	}
	tailLen := 0
	for _, l := range tail {
		tailLen += len(l) + 1
	}
	queue := slices.Clone(want)
	for n := 0; ; n++ {
		var l string
		if len(queue) > 0 && n%3 == 1 {
			l, queue = queue[0], queue[1:]
		} else {
			l = body()
		}
		room := chars - tailLen - out.Len()
		if len(l)+1 > room {
			if len(queue) > 0 {
				return "", fmt.Errorf("is too small for the generated head, tail and %d wanted lines", len(want))
			}
			if room < 0 {
				return "", fmt.Errorf("is too small for the generated head and tail (%d characters)", out.Len()+tailLen)
			}
			if room > 0 {
				out.WriteString(l[:room-1] + "\n") // the last line is cut to fit, as a truncated log would be
			}
			break
		}
		out.WriteString(l + "\n")
	}
	for _, l := range tail {
		out.WriteString(l + "\n")
	}
	if s := out.String(); utf8.RuneCountInString(s) != chars || !isASCII(s) {
		return "", fmt.Errorf("generated %d characters, want %d ASCII characters", utf8.RuneCountInString(s), chars)
	}
	return out.String(), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// genTree lists a directory like `ls -lR`-ish tree output with sizes.
func genTree(g *genCtx) ([]string, func() string, []string) {
	dir := strings.TrimSuffix(g.arg("path"), "/")
	head := []string{dir + "/"}
	var entries []rawRepoFile
	for _, f := range g.repoFiles() {
		if strings.HasPrefix(f.Path, dir+"/") {
			entries = append(entries, f)
		}
	}
	for _, f := range entries {
		head = append(head, fmt.Sprintf("  %-44s %7d bytes", strings.TrimPrefix(f.Path, dir+"/"), f.Bytes))
	}
	n := 0
	body := func() string {
		n++
		name := fmt.Sprintf("testdata/golden/%s_%02d.json", g.rng.pick([]string{"session", "cookie", "csrf", "store", "login"}), n)
		return fmt.Sprintf("  %-44s %7d bytes", name, 180+g.rng.intn(2400))
	}
	return head, body, []string{fmt.Sprintf("(%s: listing truncated by directory_list)", dir)}
}

// genGlob lists paths matching a glob over the repository.
func genGlob(g *genCtx) ([]string, func() string, []string) {
	pat := g.arg("pattern")
	base := path.Base(pat)
	var head []string
	for _, f := range g.repoFiles() {
		if ok, _ := path.Match(base, path.Base(f.Path)); ok {
			head = append(head, f.Path)
		}
	}
	n := 0
	body := func() string {
		n++
		return fmt.Sprintf("internal/auth/testdata/golden/session_%s_%02d.golden", g.rng.pick([]string{"create", "get", "touch", "revoke", "sweep", "list"}), n)
	}
	return head, body, nil
}

// genGrep prints matches of args.pattern (a regexp) in the repository's
// known texts, then generated matches in other files.
func genGrep(g *genCtx) ([]string, func() string, []string) {
	re, err := regexp.Compile(g.arg("pattern"))
	var head []string
	if err == nil {
		for _, f := range g.repoFiles() {
			text, ok := g.st.text(f.Path)
			if !ok {
				continue
			}
			for i, l := range strings.Split(text, "\n") {
				if re.MatchString(l) {
					head = append(head, fmt.Sprintf("%s:%d:%s", f.Path, i+1, strings.TrimSpace(l)))
				}
			}
		}
	}
	word := literalOf(g.arg("pattern"))
	files := []string{"cmd/web/main.go", "internal/account/handlers.go", "internal/account/handlers_test.go",
		"internal/admin/users.go", "internal/api/router.go", "internal/auth/middleware.go", "internal/auth/session_test.go"}
	forms := []string{"\tm := %s(cfg)", "\tif err := %s(ctx); err != nil {", "\t// %s is called once per request", "\tdefer %s()",
		"\tsessions := %s", "\ts.auth = %s", "\tgot, err := %s", "\t\treturn %s"}
	body := func() string {
		return fmt.Sprintf("%s:%d:%s", g.rng.pick(files), 12+g.rng.intn(380), strings.TrimSpace(fmt.Sprintf(g.rng.pick(forms), word)))
	}
	return head, body, nil
}

// literalOf returns the longest run of identifier characters in a regexp,
// to stand in for what it matched in generated lines.
func literalOf(pattern string) string {
	best := ""
	for _, w := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.]*`).FindAllString(pattern, -1) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// genGoFile writes a Go file of plausible shape for a path the lesson does
// not ship: test functions for _test.go files, HTTP handlers otherwise.
func genGoFile(g *genCtx) ([]string, func() string, []string) {
	p := g.arg("path")
	pkg := path.Base(path.Dir(p))
	head := []string{"// Copyright 2026 Acme Corp. All rights reserved.", "", "package " + pkg, "", "import (",
		"\t\"context\"", "\t\"net/http\"", "\t\"net/http/httptest\"", "\t\"testing\"", "\t\"time\"", ")", ""}
	nouns := []string{"Session", "Cookie", "CSRF", "Expiry", "IdleTimeout", "MaxPerUser", "Revoke", "Sweep", "Touch", "List"}
	verbs := []string{"Create", "Get", "Refresh", "Reject", "Clear", "Keep", "Rotate", "Count"}
	test := strings.HasSuffix(p, "_test.go")
	var queue []string
	body := func() string {
		if len(queue) == 0 {
			n, v := g.rng.pick(nouns), g.rng.pick(verbs)
			if test {
				queue = []string{
					fmt.Sprintf("func Test%s_%s(t *testing.T) {", n, v),
					"\tclock := newFakeClock(time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC))",
					"\tm := NewManager(Config{Now: clock.Now, TTL: time.Hour, IdleTimeout: 10 * time.Minute})",
					"\tt.Cleanup(m.Close)",
					fmt.Sprintf("\ts, err := m.Create(context.Background(), %q, \"203.0.113.%d\", \"test\")", "user-"+strconv.Itoa(1+g.rng.intn(90)), 1+g.rng.intn(250)),
					"\tif err != nil {", "\t\tt.Fatalf(\"Create: %v\", err)", "\t}",
					fmt.Sprintf("\tclock.Advance(%d * time.Minute)", 1+g.rng.intn(70)),
					fmt.Sprintf("\tif _, err := m.Get(context.Background(), s.ID); err != %s {", g.rng.pick([]string{"nil", "ErrExpired", "ErrRevoked"})),
					fmt.Sprintf("\t\tt.Errorf(\"%s after %s: err = %%v\", err)", v, strings.ToLower(n)),
					"\t}", "}", "",
				}
			} else {
				queue = []string{
					fmt.Sprintf("// %s%s handles the %s step of the sign-in flow.", v, n, strings.ToLower(n)),
					fmt.Sprintf("func (h *Handler) %s%s(w http.ResponseWriter, r *http.Request) {", v, n),
					"\tctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)", "\tdefer cancel()",
					"\ts := FromContext(ctx)", "\tif s == nil {", "\t\thttp.Redirect(w, r, \"/login?next=\"+r.URL.Path, http.StatusSeeOther)", "\t\treturn", "\t}",
					fmt.Sprintf("\th.log.InfoContext(ctx, %q, \"user\", s.UserID)", strings.ToLower(v+" "+n)),
					"\tw.WriteHeader(http.StatusNoContent)", "}", "",
				}
			}
		}
		l := queue[0]
		queue = queue[1:]
		return l
	}
	return head, body, nil
}

// genGoTest prints `go test -v` output; the wanted lines are the failures.
func genGoTest(g *genCtx) ([]string, func() string, []string) {
	names := []string{"TestManager_Create", "TestManager_Get", "TestManager_GetExpired", "TestManager_Touch",
		"TestManager_Revoke", "TestManager_RevokeAllForUser", "TestManager_MaxPerUser", "TestManager_Sweep",
		"TestManager_ListForUser", "TestCookie_RoundTrip", "TestMiddleware_NoCookie", "TestMiddleware_Expired",
		"TestCSRF_Header", "TestCSRF_Form", "TestMemoryStore_PutGet", "TestMemoryStore_ListByUser"}
	var queue []string
	body := func() string {
		if len(queue) == 0 {
			n := g.rng.pick(names)
			if g.rng.intn(3) == 0 {
				n += "/" + g.rng.pick([]string{"empty_user", "expired", "idle", "revoked", "oldest_goes", "two_tabs"})
			}
			queue = []string{"=== RUN   " + n, fmt.Sprintf("--- PASS: %s (0.%02ds)", n, g.rng.intn(5))}
		}
		l := queue[0]
		queue = queue[1:]
		return l
	}
	pkg := g.st.module + "/internal/auth"
	tail := []string{"PASS", fmt.Sprintf("ok  \t%s\t0.%03ds", pkg, 150+g.rng.intn(700))}
	if len(g.want) > 0 {
		tail = []string{"FAIL", fmt.Sprintf("FAIL\t%s\t0.%03ds", pkg, 150+g.rng.intn(700)), "FAIL"}
	}
	return nil, body, tail
}

// genBuild prints compiler or vet errors; the wanted lines come first.
func genBuild(g *genCtx) ([]string, func() string, []string) {
	head := []string{"# " + g.st.module + "/internal/auth"}
	msgs := []string{"m.sessions undefined (type *Manager has no field or method sessions)",
		"m.byUser undefined (type *Manager has no field or method byUser)", "undefined: Store",
		"not enough arguments in call to NewManager\n\thave (Config)\n\twant (Config, Store)"}
	files := []string{"internal/auth/session.go", "internal/auth/session_test.go", "internal/auth/middleware_test.go"}
	body := func() string {
		return fmt.Sprintf("%s:%d:%d: %s", g.rng.pick(files), 20+g.rng.intn(390), 2+g.rng.intn(30), strings.SplitN(g.rng.pick(msgs), "\n", 2)[0])
	}
	return head, body, []string{"internal/auth/session.go:1:1: too many errors"}
}

// genLint prints golangci-lint findings.
func genLint(g *genCtx) ([]string, func() string, []string) {
	finds := []string{"ineffectual assignment to err (ineffassign)", "Error return value of `m.store.Delete` is not checked (errcheck)",
		"context.Context should be the first parameter of a function (revive)", "unused parameter: ctx (unparam)",
		"exported method Manager.Stats should have comment or be unexported (revive)", "S1008: should use 'return' directly (gosimple)"}
	files := []string{"internal/auth/session.go", "internal/auth/store_memory.go", "internal/auth/store_redis.go", "internal/auth/middleware.go"}
	body := func() string {
		return fmt.Sprintf("%s:%d:%d: %s", g.rng.pick(files), 10+g.rng.intn(400), 1+g.rng.intn(40), g.rng.pick(finds))
	}
	return nil, body, []string{"level=info msg=\"[runner] linters took 3.1s with stages: goanalysis_metalinter: 2.9s\""}
}

// genSnapshot prints a browser accessibility snapshot of args.url.
func genSnapshot(g *genCtx) ([]string, func() string, []string) {
	url := g.arg("url")
	if url == "" {
		url = "http://localhost:8080/login"
	}
	head := []string{"### Page state", "- Page URL: " + url, "- Page Title: " + g.rng.pick([]string{"Sign in", "Your sessions", "Account"}) + " - Acme", "- Page Snapshot:", "```yaml", "- generic [ref=e1]:"}
	roles := []string{"link", "button", "textbox", "row", "cell", "listitem", "paragraph", "heading", "checkbox"}
	labels := []string{"Sign in", "Email", "Password", "Remember this device", "Forgot password?", "Sign out everywhere",
		"Chrome on macOS", "Firefox on Linux", "Safari on iPhone", "Last active 2 minutes ago", "203.0.113.7", "Revoke", "This device"}
	ref := 1
	body := func() string {
		ref++
		depth := 1 + g.rng.intn(4)
		return fmt.Sprintf("%s- %s %q [ref=e%d]", strings.Repeat("  ", depth), g.rng.pick(roles), g.rng.pick(labels), ref)
	}
	return head, body, []string{"```"}
}
