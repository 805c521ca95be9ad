package scenarios

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strings"

	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
	"ctxsim/views/catalog"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// Languages every lesson is written in: the catalog's (one per catalog
// file); the first is the fallback.
var Languages = catalog.Languages

// inEvery reports whether t has a text in every language.
func inEvery(t sim.Text) bool {
	for _, lang := range Languages {
		if t[lang] == "" {
			return false
		}
	}
	return true
}

// everyLanguage names the languages a text needs: "both en and ja".
func everyLanguage() string {
	switch n := len(Languages); n {
	case 1:
		return Languages[0]
	case 2:
		return "both " + Languages[0] + " and " + Languages[1]
	default:
		return strings.Join(Languages[:n-1], ", ") + " and " + Languages[n-1]
	}
}

// Section is one narration section: a one-sentence headline (plain text
// with {placeholders}) and a body of chunks, each a Markdown block rendered
// to HTML once at load, shown only where its conditions hold.
//
// Keys: a frame's narration key ("fill", "loss-check@missing"); about:KEY
// for the sections of "About this lesson", in file order (about:intro also
// introduces the lesson on the index); panel:ID for the prose of a panel.
type Section struct {
	Key      string
	Headline string
	Chunks   []Chunk
	File     string
	Line     int
}

// Chunk is a block of a section's body.
type Chunk struct {
	Conds []Cond
	HTML  string // rendered at load; may hold {placeholders}
	Item  bool   // one item of a list: merged with the items next to it
	Line  int
	// places are the placeholders of HTML, for Check.
	places []string
}

// Cond is a condition {?name:arg} (or {?!name:arg}) at the start of a
// chunk: the chunk is shown only where it holds.
type Cond struct {
	Name, Arg string
	Not       bool
}

// Resolver gives a frame's values to placeholders and decides conditions.
type Resolver interface {
	// Value returns the text of {name} or {name:arg}, false when the frame
	// has no such value.
	Value(name, arg string) (string, bool)
	// Cond decides {?name:arg}; ok is false for an unknown condition.
	Cond(name, arg string) (holds, ok bool)
}

// placeholder matches {name} and {name:arg}; a condition is {?name:arg}.
var (
	placeholder = regexp.MustCompile(`\{([a-z][a-z0-9-]*)(?::([^{}\s]+))?\}`)
	condition   = regexp.MustCompile(`^\{\?(!?)([a-z][a-z0-9-]*)(?::([^{}\s]+))?\}\s*`)
)

// RenderError is a placeholder or condition a frame cannot resolve.
type RenderError struct {
	File, What string
	Line       int
	Key        string
}

// Error names the file, line, section and what failed.
func (e *RenderError) Error() string {
	return fmt.Sprintf("%s:%d: field %s: %s", e.File, e.Line, e.Key, e.What)
}

// Check resolves every condition of the section, and every placeholder of
// the headline and of the chunks the conditions show, as Render does, but
// writes nothing: start-up checks every frame this way.
func (s Section) Check(r Resolver) error {
	if err := s.resolve(placesOf(s.Headline), s.Line, r); err != nil {
		return err
	}
	for _, c := range s.Chunks {
		show, err := s.holds(c, r)
		if err != nil {
			return err
		}
		if show {
			if err := s.resolve(c.places, c.Line, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolve asks r for the value of each placeholder.
func (s Section) resolve(places []string, line int, r Resolver) error {
	for _, m := range places {
		sm := placeholder.FindStringSubmatch(m)
		if _, ok := r.Value(sm[1], sm[2]); !ok {
			return &RenderError{File: s.File, Line: line, Key: s.Key, What: fmt.Sprintf("placeholder %s has no value in this frame", m)}
		}
	}
	return nil
}

// placesOf lists the placeholders of text that fill fills ({{x}} is
// literal text).
func placesOf(text string) []string {
	if !strings.Contains(text, "{") {
		return nil
	}
	return placeholder.FindAllString(hideBraces.Replace(text), -1)
}

// RenderHeadline fills the headline alone.
func (s Section) RenderHeadline(r Resolver) (string, error) {
	return s.fill(s.Headline, s.Line, r, false)
}

// Render fills the section for one frame: the headline as text, the body
// as HTML.
func (s Section) Render(r Resolver) (headline, body string, err error) {
	headline, err = s.fill(s.Headline, s.Line, r, false)
	if err != nil {
		return "", "", err
	}
	var out strings.Builder
	lastItem := false
	for _, c := range s.Chunks {
		show, err := s.holds(c, r)
		if err != nil {
			return "", "", err
		}
		if !show {
			continue
		}
		h, err := s.fill(c.HTML, c.Line, r, true)
		if err != nil {
			return "", "", err
		}
		if c.Item && lastItem {
			// Join the items of one list: drop the previous </ul> and this <ul>.
			cur := strings.TrimSuffix(strings.TrimRight(out.String(), "\n"), "</ul>")
			out.Reset()
			out.WriteString(cur)
			h = strings.TrimPrefix(h, "<ul>\n")
		}
		out.WriteString(h)
		lastItem = c.Item
	}
	return headline, out.String(), nil
}

func (s Section) holds(c Chunk, r Resolver) (bool, error) {
	for _, cd := range c.Conds {
		ok, known := r.Cond(cd.Name, cd.Arg)
		if !known {
			return false, &RenderError{File: s.File, Line: c.Line, Key: s.Key, What: fmt.Sprintf("unknown condition {?%s}", joinArg(cd.Name, cd.Arg))}
		}
		if ok == cd.Not {
			return false, nil
		}
	}
	return true, nil
}

func (s Section) fill(text string, line int, r Resolver, escape bool) (string, error) {
	if !strings.Contains(text, "{") {
		return text, nil
	}
	var err error
	// {{x}} is literal text (a template variable in the lesson's prose),
	// and so is \{ (a brace).
	literal := strings.Contains(text, "{{") || strings.Contains(text, `\{`)
	if literal {
		text = hideBraces.Replace(text)
	}
	out := placeholder.ReplaceAllStringFunc(text, func(m string) string {
		sm := placeholder.FindStringSubmatch(m)
		v, ok := r.Value(sm[1], sm[2])
		if !ok {
			if err == nil {
				err = &RenderError{File: s.File, Line: line, Key: s.Key, What: fmt.Sprintf("placeholder %s has no value in this frame", m)}
			}
			return m
		}
		if escape {
			return html.EscapeString(v)
		}
		return v
	})
	if literal {
		out = showBraces.Replace(out)
	}
	return out, err
}

// hideBraces and showBraces protect {{x}} and \{ (a brace that is text)
// from placeholder filling. Their stand-ins are control characters, which
// no narration file holds (lessonfile.CheckText). They are immutable once
// built.
var (
	hideBraces = strings.NewReplacer("{{", "\x00", "}}", "\x01", `\{`, "\x02")
	showBraces = strings.NewReplacer("\x00", "{{", "\x01", "}}", "\x02", "{")
)

// textBrace stands for \{ while a chunk's Markdown is rendered, and
// becomes a character reference after: placeholder filling never sees a
// brace, in code too.
const textBrace, braceRef = "\x02", "&#123;"

func joinArg(name, arg string) string {
	if arg == "" {
		return name
	}
	return name + ":" + arg
}

// newMarkdown returns the one goldmark instance used for lesson text. It keeps
// goldmark's safe defaults: raw HTML is omitted and unsafe links are dropped.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
}

// parseNarration reads sections of the form:
//
//	@@ key
//	# Headline
//	Markdown body...
//
// A byte-order mark at the start is read as nothing; bytes that are not
// UTF-8, control characters (lessonfile.CheckText) and a placeholder left
// open are refused with their line and section.
func parseNarration(name string, data []byte, md goldmark.Markdown, lim Limits) (map[string]Section, []string, error) {
	out := map[string]Section{}
	var order []string
	about, aboutFigs := 0, 0 // bytes and figures of the about: sections: every frame renders them
	data = lessonfile.Text(data)
	lines := strings.Split(string(data), "\n")
	if e := lessonfile.CheckText(name, data); e != nil {
		e.Field = sectionAt(lines, e.Line)
		return nil, nil, e
	}
	for i, line := range lines {
		if open := unclosedPlaceholder(line); open != "" {
			return nil, nil, &Error{File: name, Line: i + 1, Field: sectionAt(lines, i+1),
				Msg: fmt.Sprintf("placeholder %q is not closed: end it with '}' (a placeholder is {name} or {name:arg}, with no space inside; \\{ is a brace that is text)", open)}
		}
	}
	type open struct {
		key, headline string
		line          int
		body          []string
		bodyLine      int
	}
	var cur *open
	finish := func() error {
		if cur == nil {
			return nil
		}
		if cur.headline == "" {
			return &Error{File: name, Line: cur.line, Field: cur.key, Msg: "section has no '# headline' line"}
		}
		if m := condition.FindString(cur.headline); m != "" {
			return &Error{File: name, Line: cur.line, Field: cur.key, Msg: "a headline has no conditions: give the variant its own section key"}
		}
		n := len(cur.headline)
		for _, b := range cur.body {
			n += len(b) + 1
		}
		if lim.SectionBytes > 0 && n > lim.SectionBytes {
			return &Error{File: name, Line: cur.line, Field: cur.key, Msg: fmt.Sprintf("section has %d bytes; a section of %s may have at most %d (%s): it is rendered for every frame it narrates",
				n, lim.Tier, lim.SectionBytes, sizeText(int64(lim.SectionBytes)))}
		}
		if err := checkMarkdown(name, cur.key, cur.line, cur.bodyLine, cur.headline, cur.body, lim); err != nil {
			return err
		}
		figs := 0
		for _, b := range cur.body {
			figs += len(placeholder.FindAllStringIndex(b, -1)) + strings.Count(b, "{?")
		}
		figs += len(placeholder.FindAllStringIndex(cur.headline, -1))
		if lim.Figures > 0 && figs > lim.Figures {
			return &Error{File: name, Line: cur.line, Field: cur.key, Msg: fmt.Sprintf("section has %d placeholders and conditions; a section of %s may have at most %d: each is resolved for every frame it narrates",
				figs, lim.Tier, lim.Figures)}
		}
		if strings.HasPrefix(cur.key, "about:") {
			if aboutFigs += figs; lim.Figures > 0 && aboutFigs > lim.Figures {
				return &Error{File: name, Line: cur.line, Field: cur.key, Msg: fmt.Sprintf("the about: sections up to this one have %d placeholders and conditions; those of %s may have at most %d together: every frame renders them",
					aboutFigs, lim.Tier, lim.Figures)}
			}
			if about += n; lim.AboutBytes > 0 && about > lim.AboutBytes {
				return &Error{File: name, Line: cur.line, Field: cur.key, Msg: fmt.Sprintf("the about: sections up to this one have %d bytes; those of %s may have at most %d (%s) together: every frame renders them",
					about, lim.Tier, lim.AboutBytes, sizeText(int64(lim.AboutBytes)))}
			}
		}
		chunks, err := chunksOf(name, cur.key, cur.body, cur.bodyLine, md)
		if err != nil {
			return err
		}
		out[cur.key] = Section{Key: cur.key, Headline: cur.headline, Chunks: chunks, File: name, Line: cur.line}
		order = append(order, cur.key)
		return nil
	}
	for i, line := range lines {
		n := i + 1
		if key, ok := strings.CutPrefix(line, "@@ "); ok {
			if err := finish(); err != nil {
				return nil, nil, err
			}
			key = strings.TrimSpace(key)
			if key == "" {
				return nil, nil, &Error{File: name, Line: n, Msg: "'@@' needs a section key"}
			}
			if _, dup := out[key]; dup {
				return nil, nil, &Error{File: name, Line: n, Field: key, Msg: "section key appears twice"}
			}
			cur = &open{key: key, line: n}
			continue
		}
		switch {
		case cur == nil:
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "<!--") {
				return nil, nil, &Error{File: name, Line: n, Msg: "text before the first '@@ key' line"}
			}
		case cur.headline == "" && strings.TrimSpace(line) == "":
		case cur.headline == "":
			h, ok := strings.CutPrefix(line, "# ")
			if !ok || strings.TrimSpace(h) == "" {
				return nil, nil, &Error{File: name, Line: n, Field: cur.key, Msg: "the first line of a section must be '# headline'"}
			}
			cur.headline = strings.TrimSpace(h)
			cur.bodyLine = n + 1
		default:
			cur.body = append(cur.body, line)
		}
	}
	if err := finish(); err != nil {
		return nil, nil, err
	}
	return out, order, nil
}

// sectionAt is the key of the section line (1-based) of lines is in; ""
// before the first.
func sectionAt(lines []string, line int) string {
	for i := min(line, len(lines)) - 1; i >= 0; i-- {
		if key, ok := strings.CutPrefix(lines[i], "@@ "); ok {
			return strings.TrimSpace(key)
		}
	}
	return ""
}

// openPlace matches what starts a placeholder or a condition: '{', an
// optional '?' or '?!', a name and maybe an argument.
var openPlace = regexp.MustCompile(`\{(\?!?)?[a-z][a-z0-9-]*(:[^{}\s]+)?`)

// unclosedPlaceholder returns the first placeholder or condition of line
// that is opened and not closed ("{total for the size", "{total."): a
// '{' and a name not followed by '}'. "\{" is a brace that is text, as is
// one not followed by a name ("{ x }", "{"a": 1}"); {{x}} is literal.
func unclosedPlaceholder(line string) string {
	if !strings.Contains(line, "{") {
		return ""
	}
	line = hideBraces.Replace(line)
	for _, loc := range openPlace.FindAllStringIndex(line, -1) {
		if loc[1] == len(line) || line[loc[1]] != '}' {
			return line[loc[0]:loc[1]]
		}
	}
	return ""
}

// chunksOf splits a body into Markdown blocks (at blank lines, outside
// fenced code), reads each block's conditions and renders it. A list whose
// items carry conditions is split into items.
func chunksOf(file, key string, body []string, first int, md goldmark.Markdown) ([]Chunk, error) {
	var out []Chunk
	var block []string
	start, fence := first, false
	flush := func() error {
		defer func() { block = nil }()
		if len(block) == 0 {
			return nil
		}
		if items, ok := listItems(block); ok && anyCond(items) {
			for _, it := range items {
				c, err := chunkOf(file, key, it.lines, start+it.at, md, true)
				if err != nil {
					return err
				}
				out = append(out, c)
			}
			return nil
		}
		c, err := chunkOf(file, key, block, start, md, false)
		if err != nil {
			return err
		}
		out = append(out, c)
		return nil
	}
	for i, line := range body {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if !fence && strings.TrimSpace(line) == "" {
			if err := flush(); err != nil {
				return nil, err
			}
			start = first + i + 1
			continue
		}
		if len(block) == 0 {
			start = first + i
		}
		block = append(block, line)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return out, nil
}

type listItem struct {
	lines []string
	at    int // line offset in the block
}

var bullet = regexp.MustCompile(`^[-*] `)

// listItems splits a bulleted list block into items.
func listItems(block []string) ([]listItem, bool) {
	if !bullet.MatchString(block[0]) {
		return nil, false
	}
	var items []listItem
	for i, l := range block {
		if bullet.MatchString(l) {
			items = append(items, listItem{at: i})
		}
		items[len(items)-1].lines = append(items[len(items)-1].lines, l)
	}
	return items, true
}

func anyCond(items []listItem) bool {
	for _, it := range items {
		if condition.MatchString(bullet.ReplaceAllString(it.lines[0], "")) {
			return true
		}
	}
	return false
}

// chunkOf reads one block's conditions (at its start, or after an item's
// bullet) and renders the rest.
func chunkOf(file, key string, lines []string, line int, md goldmark.Markdown, item bool) (Chunk, error) {
	c := Chunk{Item: item, Line: line}
	first := lines[0]
	prefix := ""
	if item {
		prefix = bullet.FindString(first)
		first = strings.TrimPrefix(first, prefix)
	}
	for {
		m := condition.FindStringSubmatch(first)
		if m == nil {
			break
		}
		c.Conds = append(c.Conds, Cond{Not: m[1] == "!", Name: m[2], Arg: m[3]})
		first = first[len(m[0]):]
	}
	src := append([]string{prefix + first}, lines[1:]...)
	text := strings.Join(src, "\n")
	if strings.Contains(text, "{?") {
		return c, &Error{File: file, Line: line, Field: key, Msg: "a condition {?…} must open a paragraph or a list item"}
	}
	var buf bytes.Buffer
	if err := md.Convert([]byte(strings.ReplaceAll(text, `\{`, textBrace)), &buf); err != nil {
		return c, &Error{File: file, Line: line, Field: key, Msg: fmt.Sprintf("markdown: %v", err)}
	}
	c.HTML = strings.ReplaceAll(buf.String(), textBrace, braceRef)
	c.places = placesOf(c.HTML)
	return c, nil
}

// checkMarkdown bounds what makes Markdown parsing slow on a section: the
// block quotes and list items one line opens (parsing is quadratic in
// their nesting) and the brackets that may open links (quadratic in the
// links left open).
func checkMarkdown(name, key string, line, bodyLine int, headline string, body []string, lim Limits) error {
	brackets := strings.Count(headline, "[")
	for i, b := range body {
		brackets += strings.Count(b, "[")
		if n := nesting(b); lim.Nesting > 0 && n > lim.Nesting {
			return &Error{File: name, Line: bodyLine + i, Field: key, Msg: fmt.Sprintf("the line opens %d block quotes and list items; a line of %s may open at most %d",
				n, lim.Tier, lim.Nesting)}
		}
	}
	if lim.Brackets > 0 && brackets > lim.Brackets {
		return &Error{File: name, Line: line, Field: key, Msg: fmt.Sprintf("section has %d '[' (each may open a link); a section of %s may have at most %d",
			brackets, lim.Tier, lim.Brackets)}
	}
	return nil
}

// nesting counts the block quote and list item markers a line starts with.
func nesting(line string) int {
	n := 0
	for {
		line = strings.TrimLeft(line, " \t")
		switch {
		case strings.HasPrefix(line, ">"):
			line = line[1:]
		case len(line) >= 2 && strings.ContainsRune("-*+", rune(line[0])) && (line[1] == ' ' || line[1] == '\t'):
			line = line[2:]
		default:
			i := 0
			for i < len(line) && i < 9 && line[i] >= '0' && line[i] <= '9' {
				i++
			}
			if i == 0 || i+1 >= len(line) || (line[i] != '.' && line[i] != ')') || (line[i+1] != ' ' && line[i+1] != '\t') {
				return n
			}
			line = line[i+2:]
		}
		n++
	}
}
