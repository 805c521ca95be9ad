package page

import (
	"fmt"
	"html"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// Every sentence true in every state: this test renders the narration of
// every frame of every lesson, under every preset policy and, where a
// lesson has a threshold or an alpha, under each value from 1 to 100, in
// every language,
// and checks what the text states against the frame.
//
//   - Every number in the text is filled in from the frame (a placeholder),
//     or is one the lesson declares as quoted from its source (the
//     "figures" section of the narration file). A declared figure may not
//     be one the lesson's frames can show (a block size, the window, a
//     threshold), so no frame figure can be typed into the prose.
//   - Every block the text names (a file, a tool result) is in the window
//     now or was earlier in the run: no sentence talks about a result that
//     does not exist yet.
//   - A frame whose summary is a mechanical excerpt is narrated by a
//     section written for excerpts.
//   - A sentence that names a fact ({fact:ID}) says whether the window
//     holds it: a condition on that fact shows it, or the frame is where
//     the engine looked the fact up.
//
// About sections describe the lesson as a whole: their numbers must be
// figures some preset run of the lesson shows, or declared.
func TestNarrationTruth(t *testing.T) {
	s := newFixture(t)
	for _, l := range s.lessons {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			checkLessonTruth(t, s, l)
		})
	}
}

func checkLessonTruth(t *testing.T, s *fixture, l *scenarios.Lesson) {
	checkTruthOver(t, s, l, truthPolicies(l))
}

// checkTruthOver checks the narration of l's runs under ps, each run
// replayed once for every language, and once for all the policies whose
// runs have its narrationIdentity (a lesson of up to longTrace steps).
func checkTruthOver(t *testing.T, s *fixture, l *scenarios.Lesson, ps []sim.Policy) {
	lessonFigures := presetFigures(s, l)
	type language struct {
		lang     string
		names    []string
		numbers  numbersMemo
		failures int
	}
	var langs []*language
	for _, lang := range languages() {
		declared := declaredFigures(t, l, lang)
		for _, d := range declared {
			if lessonFigures[d] {
				t.Errorf("%s narration.%s.md: declared figure %q is a figure the lesson's frames show: fill it from the frame", l.ID, lang, d)
			}
		}
		langs = append(langs, &language{lang: lang, names: vocabulary(s, l, lang), numbers: numbersMemo{declared: declared, seen: map[string][]string{}}})
	}
	seen := map[uint64]bool{}
	checked := 0
	for _, p := range ps {
		r, err := s.runOnce(l, p)
		if err != nil {
			t.Fatalf("Run(%s): %v", p, err)
		}
		// A long session's runs cost more to hash than to check.
		if len(l.Trace) <= longTrace {
			if id, ok := narrationIdentity(l, p, r); ok {
				if seen[id] {
					continue
				}
				seen[id] = true
			}
		}
		checked++
		for _, lg := range langs {
			for i := range r.Frames {
				for _, problem := range frameTruth(s, l, p, r, i, lg.lang, &lg.numbers, lg.names, lessonFigures) {
					if lg.failures++; lg.failures <= 25 {
						t.Errorf("/%s/%s/%s/%d: %s", lg.lang, l.ID, p, i+1, problem)
					}
				}
			}
		}
	}
	t.Logf("%s: %d policies, %d runs checked (the others share a narration identity with one of them)", l.ID, len(ps), checked)
	for _, lg := range langs {
		if lg.failures > 25 {
			t.Errorf("%s (%s): %d problems in all, 25 shown", l.ID, lg.lang, lg.failures)
		}
	}
}

// truthPolicies are every preset policy and, for a lesson with a threshold
// or an alpha, every preset with each value of it from 1 to 100; for a
// long lesson (a recorded session's, over longTrace steps), the default
// policy with compaction on at every threshold.
func truthPolicies(l *scenarios.Lesson) []sim.Policy {
	out := l.PresetPolicies()
	seen := map[sim.Policy]bool{}
	for _, p := range out {
		seen[p] = true
	}
	bases := l.PresetPolicies()
	if len(l.Trace) > longTrace {
		on, err := l.With(l.DefaultPolicy(), "compaction", "on")
		if err == nil {
			bases = []sim.Policy{on}
		}
	}
	for _, name := range []string{"threshold", "alpha"} {
		if _, ok := l.Param(name); !ok {
			continue
		}
		for _, p := range bases {
			for v := 1; v <= 100; v++ {
				q, err := l.With(p, name, strconv.Itoa(v))
				if err == nil && !seen[q] {
					seen[q] = true
					out = append(out, q)
				}
			}
		}
	}
	return out
}

// longTrace is the most steps a lesson has whose every preset is checked
// at every threshold.
const longTrace = 60

// marked wraps a frame's resolver so that every value a placeholder fills
// in is marked: the checks skip marked text, which comes from the frame.
type marked struct{ *frameView }

func (m marked) Value(name, arg string) (string, bool) {
	v, ok := m.frameView.Value(name, arg)
	return "\x02" + v + "\x03", ok
}

var tierName = regexp.MustCompile(`(?:Tier|ティア) ?[123]\b`)

// plain is rendered HTML as text, without what placeholders filled in:
// each tag and each marked value becomes a space.
func plain(h string) string {
	return replaceSpans(html.UnescapeString(replaceSpans(h, '<', '>', " ")), '\x02', '\x03', " ")
}

// replaceSpans replaces each span of s from open to the next close (both
// included) with with, as the pattern open[^close]*close would; an open
// without a close stays. Both bytes are ASCII, so UTF-8 text is cut only
// between characters.
func replaceSpans(s string, open, close byte, with string) string {
	i := strings.IndexByte(s, open)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		j := strings.IndexByte(s[i+1:], close)
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(with)
		s = s[i+1+j+1:]
		i = strings.IndexByte(s, open)
	}
	b.WriteString(s)
	return b.String()
}

// numbersMemo is numbersIn over one set of declared figures, each text
// read once: a lesson's frames render the same sentences many times.
type numbersMemo struct {
	declared []string
	seen     map[string][]string
}

func (m *numbersMemo) in(text string) []string {
	if ns, ok := m.seen[text]; ok {
		return ns
	}
	ns := numbersIn(text, m.declared)
	m.seen[text] = ns
	return ns
}

func frameTruth(s *fixture, l *scenarios.Lesson, p sim.Policy, r *sim.Replay, i int, lang string, numbers *numbersMemo, names []string, lessonFigures map[string]bool) []string {
	v := newFrameView(l, p, r, i, s.cat.For(lang))
	var problems []string
	sec, ok := l.Section(lang, append(append([]string{}, v.f.Narration...), "@"+string(v.f.Kind))...)
	if !ok {
		return []string{"no narration section"}
	}
	h, body, err := sec.Render(marked{v})
	if err != nil {
		return []string{err.Error()}
	}
	text := plain(h) + "\n" + plain(body)
	var panelText string
	for _, pn := range append(append([]sim.Panel{}, v.f.Panels...), r.Panels...) {
		if ps, ok := l.Section(lang, pn.Section); ok && pn.Section != "" {
			_, b, err := ps.Render(marked{v})
			if err != nil {
				problems = append(problems, err.Error())
			}
			panelText += "\n" + plain(b)
		}
	}
	where := "section " + sec.Key
	for _, n := range numbers.in(text + panelText) {
		problems = append(problems, fmt.Sprintf("%s states %q, which is not filled from the frame and not a declared source figure", where, n))
	}
	for _, n := range names {
		if strings.Contains(text, n) && !seenName(v, n, lang) {
			problems = append(problems, fmt.Sprintf("%s names %q, which is not in this run's window yet", where, n))
		}
	}
	if mech, ok := v.figure("mechanical"); ok && mech.Value == 1 && !strings.Contains(sec.Key, "mechanical") {
		problems = append(problems, fmt.Sprintf("the summary is a mechanical excerpt, but it is narrated by %s", sec.Key))
	}
	problems = append(problems, undecidedFacts(v, sec)...)
	for _, k := range l.About {
		as, _ := l.Section(lang, k)
		h, b, err := as.Render(marked{v})
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		for _, n := range numbers.in(plain(h) + "\n" + plain(b)) {
			if !lessonFigures[n] {
				problems = append(problems, fmt.Sprintf("about section %s states %q, which no preset run of the lesson shows and which is not declared", k, n))
			}
		}
	}
	return problems
}

var factPlace = regexp.MustCompile(`\{fact:([^{}\s]+)\}`)

// undecidedFacts lists the facts a frame's text names without deciding
// whether the window holds them: a sentence that names a fact says whether
// it is there, so a condition on that fact must show it (fact, holds,
// kept), or the frame must be where the engine looked it up.
func undecidedFacts(v *frameView, sec scenarios.Section) []string {
	looked := map[string]bool{}
	for _, e := range v.f.Events {
		if e.Type == sim.EventLookup {
			looked[e.Fact] = true
		}
	}
	var out []string
	check := func(text string, conds []scenarios.Cond, line int) {
		for _, m := range factPlace.FindAllStringSubmatch(text, -1) {
			id := m[1]
			decided := looked[id] || slices.ContainsFunc(conds, func(c scenarios.Cond) bool {
				return (c.Name == "fact" || c.Name == "kept") && c.Arg == id || c.Name == "holds" && strings.HasSuffix(c.Arg, ":"+id)
			})
			if !decided {
				out = append(out, fmt.Sprintf("section %s (line %d) names fact %s, but no condition on it shows the sentence and the frame did not look it up", sec.Key, line, id))
			}
		}
	}
	check(sec.Headline, nil, sec.Line)
	for _, c := range sec.Chunks {
		shown := true
		for _, cd := range c.Conds {
			if ok, _ := v.Cond(cd.Name, cd.Arg); ok == cd.Not {
				shown = false
			}
		}
		if shown {
			check(c.HTML, c.Conds, c.Line)
		}
	}
	return out
}

// numbersIn lists the numbers of text that declared figures do not
// account for. A number is a run of digits (with separators, a decimal
// point, a range dash, and a k or % unit) that is not part of a word or an
// identifier (o200k_base, Qwen3-0.6B, messages.11, toolu_03, #1482).
func numbersIn(text string, declared []string) []string {
	for _, d := range declared {
		text = strings.ReplaceAll(text, d, " ")
	}
	// "Tier 2" is the name of a tier, not a figure.
	if strings.Contains(text, "Tier") || strings.Contains(text, "ティア") {
		text = tierName.ReplaceAllString(text, "Tier-x")
	}
	rs := []rune(text)
	var out []string
	for i := 0; i < len(rs); i++ {
		if !unicode.IsDigit(rs[i]) {
			continue
		}
		if i > 0 && identRune(rs[i-1]) {
			for i < len(rs) && (identRune(rs[i]) || rs[i] == '.') {
				i++
			}
			continue
		}
		j := i
		for j < len(rs) && (unicode.IsDigit(rs[j]) || (strings.ContainsRune(",.–-", rs[j]) && j+1 < len(rs) && unicode.IsDigit(rs[j+1]))) {
			j++
		}
		if j < len(rs) && (rs[j] == 'k' || rs[j] == '%') {
			j++
		}
		if continues(rs, j) {
			for j < len(rs) && (identRune(rs[j]) || rs[j] == '.') {
				j++
			}
			i = j
			continue
		}
		out = append(out, string(rs[i:j]))
		i = j
	}
	return out
}

// continues reports whether rs[j] goes on the word a number is part of: a
// letter or digit, or a joiner (. - / #) followed by one.
func continues(rs []rune, j int) bool {
	if j >= len(rs) {
		return false
	}
	if rs[j] < 0x80 && (unicode.IsLetter(rs[j]) || unicode.IsDigit(rs[j]) || rs[j] == '_') {
		return true
	}
	return strings.ContainsRune(".-/#", rs[j]) && j+1 < len(rs) && rs[j+1] < 0x80 && (unicode.IsLetter(rs[j+1]) || unicode.IsDigit(rs[j+1]))
}

// identRune is a character of a word or an identifier.
func identRune(r rune) bool {
	return r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_#/.-", r))
}

// declaredFigures reads the lesson's "figures" section: the code spans of
// its list, each a figure quoted from the source, as the text writes it.
func declaredFigures(t *testing.T, l *scenarios.Lesson, lang string) []string {
	sec, ok := l.Narration[lang]["figures"]
	if !ok {
		return nil
	}
	var out []string
	for _, c := range sec.Chunks {
		for _, m := range regexp.MustCompile(`<code>([^<]+)</code>`).FindAllStringSubmatch(c.HTML, -1) {
			out = append(out, html.UnescapeString(m[1]))
		}
	}
	// Longer first, so "3–5 s" is taken out before "3".
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// presetFigures are the numbers a preset run of the lesson shows, as the
// page writes them: block sizes, totals, figures, in every unit.
func presetFigures(s *fixture, l *scenarios.Lesson) map[string]bool {
	out := map[string]bool{}
	add := func(v *frameView, g sim.Figure) {
		for _, n := range numbersIn(v.format(g), nil) {
			out[n] = true
		}
	}
	ui := s.cat.For("en")
	for _, p := range l.PresetPolicies() {
		r, _ := s.run(l, p)
		for i, f := range r.Frames {
			v := newFrameView(l, p, r, i, ui)
			for _, g := range append(append([]sim.Figure{}, f.Figures...), r.Figures...) {
				add(v, g)
			}
			for _, n := range []string{"total", "window", "session"} {
				g, _ := v.figure(n)
				add(v, g)
			}
			for _, b := range f.Blocks() {
				add(v, sim.Figure{Value: b.Tokens, Unit: sim.UnitTokens})
				out[exact(b.Tokens)] = true
			}
			out[exact(f.Total)] = true
		}
		for _, nv := range p.Values() {
			if _, err := strconv.Atoi(nv[1]); err == nil {
				out[nv[1]] = true
				out[nv[1]+"%"] = true
			}
		}
	}
	return out
}

// vocabulary lists the block names a reader would take for a specific
// block: file names and the labels of tool results that are not file
// paths (a test log), in lang.
func vocabulary(s *fixture, l *scenarios.Lesson, lang string) []string {
	set := map[string]bool{}
	ui := s.cat.For(lang)
	for _, p := range l.PresetPolicies() {
		r, _ := s.run(l, p)
		for i, f := range r.Frames {
			v := newFrameView(l, p, r, i, ui)
			for _, b := range f.Blocks() {
				if b.Role == sim.RoleTool || b.Kind == sim.KindToolCall {
					for _, n := range namesOf(v.label(&b)) {
						set[n] = true
					}
				}
			}
		}
	}
	var out []string
	for n := range set {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// namesOf is how a text may name a block with label: a file's path and
// base name, or a label without a tool ("test log").
func namesOf(label string) []string {
	tool, arg, ok := strings.Cut(label, " ")
	switch {
	case !ok && strings.ContainsAny(label, "./"):
		return []string{label, path.Base(label)}
	case ok && strings.Contains(tool, "_") && strings.Contains(path.Base(arg), "."):
		return []string{path.Base(arg)}
	case ok && !strings.Contains(tool, "_"):
		return []string{label}
	}
	return nil
}

// seenName reports whether a block named n was in the window at this frame
// or before it.
func seenName(v *frameView, n, lang string) bool {
	for j := 0; j <= v.i; j++ {
		f := &v.frames[j]
		bs := slices.Clone(f.Blocks())
		if f.Pending != nil {
			bs = append(bs, *f.Pending)
		}
		if f.Second != nil {
			bs = append(bs, f.Second.Blocks...) // a second window the frame carries
		}
		for k := range bs {
			if slices.Contains(namesOf(v.label(&bs[k])), n) {
				return true
			}
		}
	}
	return false
}

// TestNumbersIn checks the number extraction on the forms lesson text uses.
func TestNumbersIn(t *testing.T) {
	tests := []struct {
		text     string
		declared []string
		want     []string
	}{
		{"The file is 19.0k and the log 22.1k.", nil, []string{"19.0k", "22.1k"}},
		{"o200k_base, Qwen3-0.6B, messages.11, toolu_03, #1482, RF-203", nil, nil},
		{"at 92% with 1,242 tokens", nil, []string{"92%", "1,242"}},
		{"dropped in 4 of 5 recordings", []string{"4 of 5"}, nil},
		{"3–5 s and 0.5 s", []string{"3–5 s", "0.5 s"}, nil},
		{"line 247", nil, []string{"247"}},
		{"第 37 章", nil, []string{"37"}},
		{"Tier 2 and Tier 1 stubs, T3·d4", nil, nil},
		{"ティア 2 とティア 1 のスタブ", nil, nil},
	}
	for _, tc := range tests {
		if got := numbersIn(tc.text, tc.declared); !slices.Equal(got, tc.want) {
			t.Errorf("numbersIn(%q) = %q; want %q", tc.text, got, tc.want)
		}
	}
}

// TestPlain checks that tags and marked values become spaces, as the
// patterns <[^>]*> and \x02[^\x03]*\x03 would replace them, and that a
// bracket without its close stays.
func TestPlain(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>a <b>19.0k</b> log</p>", " a  19.0k  log "},
		{"a \x02value\x03 b", "a   b"},
		{"x &lt; 3 and <i>y</i>", "x < 3 and  y "},
		{"open < without close", "open < without close"},
		{"\x02one\x03\x02two\x03 \x02 unclosed", "   \x02 unclosed"},
		{"ティア <b>2</b>", "ティア  2 "},
	}
	for _, tc := range tests {
		if got := plain(tc.in); got != tc.want {
			t.Errorf("plain(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
