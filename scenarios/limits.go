package scenarios

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sync"
	"unicode"
	"unicode/utf8"

	"ctxsim/internal/textcut"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"

	"gopkg.in/yaml.v3"
)

// Limits bound what the loader reads and builds from one lesson directory,
// before it reads, decodes or replays more. There are two tiers: a lesson
// written by hand (Authored), prepared while the server starts, and an
// imported session (Recorded: its lesson.yaml declares `recorded:`), sized
// for a 20,000-message transcript and prepared after the server listens.
type Limits struct {
	// Tier names the tier in errors: "an authored lesson", "an imported session".
	Tier string
	// FileBytes bounds lesson.yaml, summaries.yaml and each results file;
	// NarrationBytes each narration file; LessonBytes all of them together.
	FileBytes, NarrationBytes, LessonBytes int64
	// Messages bounds the trace's messages (both sides of a branch counted),
	// MemoryLines the lines MEMORY.md starts with and those remembered, and
	// TextBytes the texts the lesson fixes together (Lesson.Texts).
	Messages, MemoryLines, TextBytes int
	// MessageBytes bounds the content of one message of the trace.
	MessageBytes int
	// RunBytes bounds a run of letters, or of punctuation and symbols, in
	// any text: the tokenizer merges such a run as one piece, slower per
	// byte than prose or code (internal/tokens' BenchmarkCountRun: 64 KiB of
	// one letter 32 ms, 1 MiB 0.69 s, against about 3 ms for 64 KiB of
	// prose). An authored lesson never needs a long one. Zero: unbounded
	// (an imported session's text is bounded by MessageBytes instead).
	RunBytes int
	// Presets bounds the preset policies (each is replayed at start-up).
	Presets int
	// Facts bounds the facts and PatternBytes each one's pattern: every
	// pattern is matched against every text the lesson fixes.
	Facts, PatternBytes int
	// SectionBytes bounds one narration section and AboutBytes the about:
	// sections of a narration file together: a frame's page renders its
	// section and every about: section.
	SectionBytes, AboutBytes int
	// Figures bounds the placeholders and conditions of one section, and
	// of the about: sections of a file together.
	Figures int
	// Nesting bounds the block quotes and list items one narration line
	// opens, Brackets the '[' of one section: Markdown parsing is
	// quadratic in both.
	Nesting, Brackets int
	// RunFrames and RunBlocks bound the frames, and the blocks over all
	// frames, of all the preset runs of the lesson together: what preparing
	// it costs. Zero: unbounded (an imported session that long is prepared
	// under its default policy only, web.Config.LongRun).
	RunFrames, RunBlocks int
}

// Authored are the limits of a lesson written by hand. The largest shipped
// lesson is well inside them (tiered-compaction: 223 KB over its files, 81
// messages, 81 presets, 564 frames and 27,232 blocks over its preset runs);
// the worst lesson they allow (tools/worstlesson) starts in under 2 s.
func Authored() Limits {
	return Limits{Tier: "an authored lesson",
		FileBytes: 256 << 10, NarrationBytes: 256 << 10, LessonBytes: 1 << 20,
		Messages: 600, MemoryLines: 200, TextBytes: 512 << 10, MessageBytes: 256 << 10, RunBytes: 512, Presets: 128, Facts: 16, PatternBytes: 256,
		SectionBytes: 16 << 10, AboutBytes: 48 << 10, Figures: 64, Nesting: 8, Brackets: 64,
		RunFrames: 2_000, RunBlocks: 100_000}
}

// Imported are the limits of an imported session (`recorded:`): a
// 10,000-record transcript writes a 13.5 MB lesson.yaml with 10,000
// messages.
func Imported() Limits {
	return Limits{Tier: "an imported session",
		FileBytes: 64 << 20, NarrationBytes: 16 << 20, LessonBytes: 128 << 20,
		Messages: 20_000, MemoryLines: 2_000, TextBytes: 64 << 20, MessageBytes: 1 << 20, Presets: 128, Facts: 16, PatternBytes: 256,
		SectionBytes: 64 << 10, AboutBytes: 64 << 10, Figures: 64, Nesting: 8, Brackets: 1024}
}

// MaxWindow bounds a lesson's window in tokens: ten times the largest
// window a provider offers today; sums of sizes stay far from overflow.
const MaxWindow = 10_000_000

// importedMark is how lesson.yaml declares an imported session; a file
// over the authored size must say so within its first importedPeek bytes
// (ctxsim import writes it near the top).
const (
	importedMark = "recorded:"
	importedPeek = 64 << 10
)

// isImported reports whether lesson.yaml p of fsys declares an imported
// session: a top-level `recorded:` key in its first recordedPeek bytes. A
// file it cannot open, or one that is not a regular file, is left to the
// loader to refuse.
func isImported(fsys fs.FS, p string) bool {
	fi, err := fs.Stat(fsys, p)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	f, err := fsys.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, importedPeek))
	sc.Buffer(make([]byte, 0, 4096), importedPeek)
	for sc.Scan() {
		if bytes.HasPrefix(sc.Bytes(), []byte(importedMark)) {
			return true
		}
	}
	return false
}

// tierOf picks the limits of the lesson in dir from the size of its
// lesson.yaml: within the authored size, the file decides after decoding
// (LoadDir); over it, only a file declaring `recorded:` early is read.
func tierOf(fsys fs.FS, dir string) (Limits, error) {
	p := path.Join(dir, lessonfile.LessonFile)
	fi, err := fs.Stat(fsys, p)
	if err != nil {
		return Limits{}, err
	}
	a := Authored()
	if !fi.Mode().IsRegular() || fi.Size() <= a.FileBytes {
		return a, nil // read() refuses what is not a regular file
	}
	if !isImported(fsys, p) {
		return Limits{}, fmt.Errorf("has %d bytes; %s may have at most %d (%s); only an imported session, which declares `recorded:` near the top, may be larger",
			fi.Size(), a.Tier, a.FileBytes, sizeText(a.FileBytes))
	}
	return Imported(), nil
}

// sizeText writes n bytes as KiB or MiB.
func sizeText(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d KiB", n>>10)
}

// checkMessages refuses a trace with more messages than lim allows (a
// call and its result count two) before the lesson is built, at the first
// message past the limit.
func checkMessages(f *lessonfile.File, raw *lessonfile.Lesson, lim Limits) error {
	msgs, past := 0, ""
	count := func(path string, ms []lessonfile.Message) {
		for j, m := range ms {
			if msgs++; m.Call != nil {
				msgs++
			}
			if msgs > lim.Messages && past == "" {
				past = fmt.Sprintf("%s[%d]", path, j)
			}
		}
	}
	for i, st := range raw.Trace {
		count(fmt.Sprintf("trace[%d].messages", i), st.Messages)
		if b := st.Branch; b != nil {
			count(fmt.Sprintf("trace[%d].branch.found", i), b.Found)
			count(fmt.Sprintf("trace[%d].branch.missing", i), b.Missing)
		}
	}
	if past == "" {
		return nil
	}
	return f.ErrorAt(past, fmt.Sprintf("is past message %d: the trace has %d messages (a tool call and its result count two); %s may have at most %d",
		lim.Messages, msgs, lim.Tier, lim.Messages))
}

// checkCounts refuses a lesson whose counts are over lim, naming the
// field of lesson.yaml that holds them.
func checkCounts(f *lessonfile.File, raw *lessonfile.Lesson, l *Lesson, lim Limits) error {
	for i, st := range raw.Trace {
		for j, m := range st.Messages {
			p, n := fmt.Sprintf("trace[%d].messages[%d].content", i, j), len(m.Content)
			if m.Call != nil {
				if r := resultText(&m.Call.Result); len(r) > n {
					p, n = fmt.Sprintf("trace[%d].messages[%d].call.result", i, j), len(r)
				}
			}
			if n > lim.MessageBytes {
				return f.ErrorAt(p, fmt.Sprintf("has %d bytes; a message of %s may have at most %d (%s)",
					n, lim.Tier, lim.MessageBytes, sizeText(int64(lim.MessageBytes))))
			}
			for _, t := range []struct{ path, text string }{{"content", m.Content}, {"call.result", callResult(m.Call)}} {
				if err := checkRun(f, fmt.Sprintf("trace[%d].messages[%d].%s", i, j, t.path), t.text, lim); err != nil {
					return err
				}
			}
		}
	}
	if len(raw.Facts) > lim.Facts {
		return f.ErrorAt("facts", fmt.Sprintf("has %d facts; %s may have at most %d", len(raw.Facts), lim.Tier, lim.Facts))
	}
	for i, ft := range raw.Facts {
		if len(ft.Pattern) > lim.PatternBytes {
			return f.ErrorAt(fmt.Sprintf("facts[%d].pattern", i), fmt.Sprintf("has %d bytes; a pattern may have at most %d", len(ft.Pattern), lim.PatternBytes))
		}
	}
	if n := memoryLines(raw, l); n > lim.MemoryLines {
		return f.ErrorAt("mechanisms.memory", fmt.Sprintf("holds %d lines of MEMORY.md; %s may have at most %d", n, lim.Tier, lim.MemoryLines))
	}
	text := 0
	for _, t := range l.Texts() {
		text += len(t)
		if err := checkRun(f, "trace", t, lim); err != nil {
			return err // a text made of others, a summary card, an answer
		}
	}
	if text > lim.TextBytes {
		return f.ErrorAt("trace", fmt.Sprintf("its texts (messages, answers, summaries, memory) hold %d bytes; %s may have at most %d (%s)",
			text, lim.Tier, lim.TextBytes, sizeText(int64(lim.TextBytes))))
	}
	if n := len(l.PresetPolicies()); n > lim.Presets {
		return f.ErrorAt("mechanisms", fmt.Sprintf("offers %d preset policies (every combination of the buttons' values); %s may offer at most %d",
			n, lim.Tier, lim.Presets))
	}
	return nil
}

// callResult is the text of a call's result in the file; "" for none.
func callResult(c *lessonfile.Call) string {
	if c == nil {
		return ""
	}
	return resultText(&c.Result)
}

// checkRun refuses a text holding a run longer than lim.RunBytes.
func checkRun(f *lessonfile.File, path, text string, lim Limits) error {
	if lim.RunBytes == 0 {
		return nil
	}
	if at, n := longestRun(text); n > lim.RunBytes {
		start := textcut.Prefix(text[at:], 40)
		return f.ErrorAt(path, fmt.Sprintf("holds a run of %d bytes of letters or of punctuation (from %q); a text of %s may hold runs of at most %d: counting tokens takes time quadratic in a run",
			n, start, lim.Tier, lim.RunBytes))
	}
	return nil
}

// longestRun finds the longest run of letters (with their marks), or of
// characters that are neither letters, digits nor white space: what the
// o200k_base pre-tokenizer keeps in one piece. It returns where the run
// starts and its length in bytes.
func longestRun(s string) (at, n int) {
	start, class := 0, 0
	for i, r := range s {
		c := 0 // digits and white space end a run
		switch {
		case unicode.IsLetter(r) || unicode.IsMark(r):
			c = 1
		case !unicode.IsDigit(r) && !unicode.IsSpace(r) && !unicode.IsNumber(r):
			c = 2
		}
		if c != class {
			start, class = i, c
		}
		if end := i + utf8.RuneLen(r); c != 0 && end-start > n {
			at, n = start, end-start
		}
	}
	return at, n
}

// resultText is the text a call's result gives in the file: the string,
// or the text of a mapping (a result read from a file is bounded by the
// file's size).
func resultText(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return n.Value
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "text" {
			return n.Content[i+1].Value
		}
	}
	return ""
}

// memoryLines is the lines MEMORY.md starts with and the lines the
// trace's steps remember.
func memoryLines(raw *lessonfile.Lesson, l *Lesson) int {
	n := 0
	if m, ok := l.Mechanism("memory"); ok {
		n = len(m.(sim.MemoryStore).Lines)
	}
	for _, st := range raw.Trace {
		if st.Line != "" {
			n++
		}
	}
	return n
}

// RunBudget counts a lesson's preset runs against the run bounds of its
// limits. It is safe for concurrent use.
type RunBudget struct {
	mu             sync.Mutex
	frames, blocks int
	lim            Limits
	file           string
}

// RunBudget returns a budget for one pass over l's preset runs.
func (l *Lesson) RunBudget() *RunBudget {
	return &RunBudget{lim: l.Limits, file: l.file}
}

// Spend counts r; it returns an error naming lesson.yaml once the runs
// counted so far hold more frames or blocks than the limits allow.
func (b *RunBudget) Spend(r *sim.Replay) error {
	n := 0
	for _, f := range r.Frames {
		n += f.BlockCount()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.frames += len(r.Frames)
	b.blocks += n
	switch {
	case b.lim.RunFrames > 0 && b.frames > b.lim.RunFrames:
		return &Error{File: b.file, Field: "mechanisms", Msg: fmt.Sprintf("its preset policies' runs make more than %d frames; %s may make at most %d (offer fewer values or shorten the trace)",
			b.lim.RunFrames, b.lim.Tier, b.lim.RunFrames)}
	case b.lim.RunBlocks > 0 && b.blocks > b.lim.RunBlocks:
		return &Error{File: b.file, Field: "mechanisms", Msg: fmt.Sprintf("its preset policies' runs draw more than %d blocks over their frames; %s may draw at most %d (offer fewer values or shorten the trace)",
			b.lim.RunBlocks, b.lim.Tier, b.lim.RunBlocks)}
	}
	return nil
}
