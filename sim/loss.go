package sim

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// A loss view: what a compaction's range held that a reader would want
// kept (the files it touched, the commands it ran, the errors it saw, the
// user's instructions), each marked kept or lost in the summary, with the
// text that matched. The facts are extracted mechanically: a pattern, not
// a judgement.

// lossFact is one fact of a range.
type lossFact struct {
	kind string   // file, command, error, instruction
	text string   // as the range has it
	keys []string // what the summary must hold: a name, or the fact's words
	all  bool     // every key (a name); else at least half of the words
}

// lossLimit is the most facts of each kind a loss view lists.
const lossLimit = 4

var (
	pathRE = regexp.MustCompile(`(?:~?/)?(?:[\w.-]+/)+[\w.-]+\.[A-Za-z0-9]{1,8}\b`)
	// errorRE finds a line that reports an error, not one that merely says
	// the word (Go's "func f() error {"): "error:", "[error]", a failure word,
	// a FAIL line. It runs over a whole result at once (multi-line mode).
	errorRE       = regexp.MustCompile(`(?im)(\berror\b\s*[:\]]|\b(errors? occurred|failed|failure|panic|exception|traceback|cannot|undefined|not found|no such file|permission denied)\b)|^\s*(--- )?FAIL\b`)
	instructionRE = regexp.MustCompile(`(?i)\b(always|never|must|don't|do not|make sure|avoid|only use|instead of)\b`)
	wordRE        = regexp.MustCompile(`[\p{L}\p{N}_]{4,}`)
	sentenceRE    = regexp.MustCompile(`[.!?\n]+`)
)

// lossFacts lists the facts of a range, in order of first appearance.
func lossFacts(l *Lesson, rng []Block) []lossFact {
	var out []lossFact
	seen := map[string]bool{}
	add := func(f lossFact) {
		k := f.kind + "\x00" + strings.ToLower(f.text)
		n := 0
		for _, g := range out {
			if g.kind == f.kind {
				n++
			}
		}
		if f.text == "" || seen[k] || n >= lossLimit {
			return
		}
		seen[k] = true
		out = append(out, f)
	}
	for i := range rng {
		for _, f := range l.factsOf(&rng[i]) {
			add(f)
		}
	}
	order := []string{"instruction", "file", "command", "error"}
	slices.SortStableFunc(out, func(a, b lossFact) int { return slices.Index(order, a.kind) - slices.Index(order, b.kind) })
	return out
}

// factsOf is the facts of one block, looked up for the trace's own
// blocks (IndexFacts) and worked out for blocks made during the replay.
func (l *Lesson) factsOf(b *Block) []lossFact {
	if fs, ok := l.blockFacts[factKey(b)]; ok {
		return fs
	}
	return blockFacts(b)
}

// blockKey keys a block's facts: what they are worked out from.
type blockKey struct {
	role          Role
	kind          Kind
	args, content string
}

func factKey(b *Block) blockKey { return blockKey{b.Role, b.Kind, b.Args, b.Content} }

// blockFacts works out the facts of one block.
func blockFacts(b *Block) []lossFact {
	var out []lossFact
	switch {
	case b.Kind == KindToolCall:
		for _, p := range argPaths(b.Args) {
			out = append(out, lossFact{kind: "file", text: p, keys: []string{path.Base(p)}, all: true})
		}
		if c := argCommand(b.Args); c != "" {
			out = append(out, lossFact{kind: "command", text: c, keys: commandKeys(c), all: true})
		}
	case b.Role == RoleTool:
		if line := errorLine(b.Content); line != "" {
			out = append(out, lossFact{kind: "error", text: line, keys: words(line)})
		}
	case b.Role == RoleUser && b.Kind != KindSummary:
		for _, s := range instructions(b.Content) {
			out = append(out, lossFact{kind: "instruction", text: s, keys: words(s)})
		}
	}
	if b.Role == RoleUser || b.Role == RoleAssistant {
		for _, p := range pathRE.FindAllString(b.Content, lossLimit) {
			out = append(out, lossFact{kind: "file", text: p, keys: []string{path.Base(p)}, all: true})
		}
	}
	return out
}

// argPaths are the file paths a tool call's JSON arguments name.
func argPaths(args string) []string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return nil
	}
	var out []string
	for _, k := range []string{"file_path", "path", "filename", "notebook_path"} {
		if v, ok := m[k].(string); ok && strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// argCommand is the shell command of a tool call, on one line.
func argCommand(args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	c, _ := m["command"].(string)
	c, _, _ = strings.Cut(strings.TrimSpace(c), "\n")
	return cut(c, 90)
}

// commandKeys is how a summary names a command: its program and first
// argument ("go test", "pnpm install").
func commandKeys(c string) []string {
	f := strings.Fields(c)
	if len(f) > 2 {
		f = f[:2]
	}
	return []string{strings.Join(f, " ")}
}

// errorLine is the first line of a tool result that reports an error.
func errorLine(text string) string {
	if !mayReportError(text) {
		return ""
	}
	// A match lies within one line, and decides by its line alone: look
	// only at the lines that can hold one, in order.
	for rest := text; rest != ""; {
		line, after, _ := strings.Cut(rest, "\n")
		rest = after
		if !mayMatchError(line) || !errorRE.MatchString(line) {
			continue
		}
		if line = strings.TrimSpace(line); len(words(line)) >= 2 {
			return cut(line, 90)
		}
	}
	return ""
}

// errorStems are what every match of errorRE contains, lowercased.
var errorStems = []string{"error", "fail", "panic", "exception", "traceback", "cannot", "undefined", "not found", "no such file", "permission denied"}

// mayReportError is a cheap test before errorRE: false when no match can
// exist (most results of a long session).
func mayReportError(text string) bool {
	low := strings.ToLower(text)
	for _, s := range errorStems {
		if strings.Contains(low, s) {
			return true
		}
	}
	return false
}

// mayMatchError is a cheap test before errorRE on one line: false when no
// match can exist. Code is full of the word error ("err error) {") where
// errorRE wants it followed by a colon or a bracket, or "occurred"; the
// other stems decide as in mayReportError. A line with a character
// outside ASCII goes to errorRE (its case folding is Unicode's).
func mayMatchError(line string) bool {
	for i := 0; i < len(line); i++ {
		if line[i] >= utf8.RuneSelf {
			return true
		}
	}
	low := strings.ToLower(line)
	for _, s := range errorStems {
		if s != "error" && strings.Contains(low, s) {
			return true
		}
	}
	for rest := low; ; {
		i := strings.Index(rest, "error")
		if i < 0 {
			return false
		}
		rest = rest[i+len("error"):]
		after := strings.TrimLeft(rest, " \t\f\r\n")
		if strings.HasPrefix(after, ":") || strings.HasPrefix(after, "]") || strings.HasPrefix(rest, " occurred") || strings.HasPrefix(rest, "s occurred") {
			return true
		}
	}
}

// instructions are the sentences of a user message that tell the agent
// how to work ("Always use pnpm", "never push to main").
func instructions(text string) []string {
	var out []string
	for _, s := range sentenceRE.Split(text, -1) {
		if s = strings.TrimSpace(s); instructionRE.MatchString(s) && len(words(s)) >= 2 {
			out = append(out, cut(s, 100))
		}
	}
	return out
}

// words are the distinct words of at least four letters of s, lowercased.
func words(s string) []string {
	var out []string
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		if !slices.Contains(out, w) {
			out = append(out, w)
		}
	}
	return out
}

// kept reports whether summary holds the fact, and the text that matched.
// low is the summary lowercased once by the caller.
func (f lossFact) kept(low string) (bool, string) {
	var hit []string
	for _, k := range f.keys {
		if strings.Contains(low, strings.ToLower(k)) {
			hit = append(hit, k)
		}
	}
	if f.all {
		return len(hit) == len(f.keys) && len(hit) > 0, strings.Join(hit, " ")
	}
	return len(f.keys) > 0 && len(hit)*2 >= len(f.keys), strings.Join(hit, " ")
}

// lossPanel is the loss view of a compaction: each fact of its range,
// kept or lost in summary.
func lossPanel(facts []lossFact, summary string) Panel {
	p := Panel{ID: "loss", Tone: "warn"}
	kept := 0
	low := strings.ToLower(summary)
	for _, f := range facts {
		ok, match := f.kept(low)
		state := "lost"
		if ok {
			state, kept = "kept", kept+1
		}
		row := Row{Key: state, Values: []Figure{key("kind", "loss.kind."+f.kind), text("fact", f.text)}}
		if match != "" {
			row.Note = &Msg{Key: "panel.loss.match", Args: []Figure{text("match", match)}}
		}
		p.Rows = append(p.Rows, row)
	}
	p.Notes = []Msg{{Key: "panel.loss.total", Args: []Figure{count("kept", kept), count("facts", len(facts))}}}
	if len(facts) == 0 {
		p.Notes = []Msg{{Key: "panel.loss.none"}}
	}
	return p
}
