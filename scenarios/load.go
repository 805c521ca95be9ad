package scenarios

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"

	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"

	"github.com/yuin/goldmark"
)

// Lesson is a loaded lesson: the engine's data plus narration rendered once.
type Lesson struct {
	*sim.Lesson
	// Draw is how the page draws the window: DrawBlocks or DrawPairs.
	Draw string
	// Narration maps language to section key to section.
	Narration map[string]map[string]Section
	// About lists the about:KEY sections in the order of the English file.
	About []string
	// Limits are the limits of the lesson's tier (Authored or Imported);
	// RunBudget applies their bounds on preset runs.
	Limits Limits
	// Sizes is how the lesson sizes its blocks: SizesTrace, SizesCounted
	// or SizesProvider.
	Sizes string
	file  string // lesson.yaml, as errors name it
}

// How a lesson sizes its blocks.
const (
	SizesTrace    = "trace"    // every message gives its size
	SizesCounted  = "counted"  // the o200k_base count of each text
	SizesProvider = "provider" // a recorded session's provider counts (sim.Lesson.Calibrated), o200k_base where none
)

// Section returns the narration section for the first of keys that exists in
// lang, falling back to English.
func (l *Lesson) Section(lang string, keys ...string) (Section, bool) {
	for _, lg := range []string{lang, Languages[0]} {
		for _, k := range keys {
			if s, ok := l.Narration[lg][k]; ok {
				return s, true
			}
		}
	}
	return Section{}, false
}

// How the page draws a lesson's window.
const (
	DrawBlocks = "blocks" // one block per message
	DrawPairs  = "pairs"  // a tool call and its result share a row
)

// RequiredSections are the sections every lesson must have.
var RequiredSections = []string{"about:intro"}

// Load reads every lesson directory of fsys (a directory holding
// lesson.yaml), validates it and renders its narration. prefix is prepended
// to file names in errors (e.g. the -lessons directory). tok counts texts
// while every preset policy is checked.
func Load(fsys fs.FS, prefix string, tok sim.Tokenizer) ([]*Lesson, error) {
	authored, imported, err := Dirs(fsys)
	if err != nil {
		return nil, err
	}
	return LoadDirs(fsys, append(authored, imported...), prefix, tok)
}

// Dirs lists the lesson directories of fsys (those holding lesson.yaml):
// those written by hand, and the imported sessions, whose lesson.yaml
// declares `recorded:` near the top (ctxsim import writes it there).
func Dirs(fsys fs.FS) (authored, imported []string, err error) {
	files, err := fs.Glob(fsys, "*/lesson.yaml")
	if err != nil {
		return nil, nil, fmt.Errorf("list lessons: %w", err)
	}
	for _, p := range files {
		if isImported(fsys, p) {
			imported = append(imported, path.Dir(p))
		} else {
			authored = append(authored, path.Dir(p))
		}
	}
	return authored, imported, nil
}

// LoadDirs loads the lesson directories dirs of fsys, as Load does, in
// the order of their `order:` fields.
func LoadDirs(fsys fs.FS, dirs []string, prefix string, tok sim.Tokenizer) ([]*Lesson, error) {
	md := newMarkdown()
	var out []*Lesson
	for _, d := range dirs {
		l, err := LoadDir(fsys, d, prefix, md, tok)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b *Lesson) int { return a.Order - b.Order })
	return out, nil
}

// dirFiles reads the files of one lesson directory within its limits.
type dirFiles struct {
	fsys        fs.FS
	dir, prefix string
	lim         Limits
	read_       *int64 // bytes read so far from the directory
}

func (d dirFiles) read(name string) ([]byte, error) {
	data, err := d.readOne(name)
	if err != nil {
		return nil, err
	}
	return data, d.charge(name, data)
}

// charge counts data, the bytes of name, against the lesson's total.
func (d dirFiles) charge(name string, data []byte) error {
	if left := d.lim.LessonBytes - *d.read_; int64(len(data)) > left {
		return fmt.Errorf("%s has %d bytes and the lesson's other files %d; the files of %s may have at most %d (%s) together",
			name, len(data), *d.read_, d.lim.Tier, d.lim.LessonBytes, sizeText(d.lim.LessonBytes))
	}
	*d.read_ += int64(len(data))
	return nil
}

// readOne reads name within the limit of one file; read also counts it
// against the lesson's total.
func (d dirFiles) readOne(name string) ([]byte, error) {
	if !fs.ValidPath(name) || strings.Contains(name, "..") {
		return nil, fmt.Errorf("%q is not a file of the lesson directory", name)
	}
	p := path.Join(d.dir, name)
	// Stat first: a FIFO would block a read and a device (a link to
	// /dev/zero) never end one.
	fi, err := fs.Stat(d.fsys, p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s); a lesson file must be one", name, fi.Mode().Type())
	}
	limit := d.lim.FileBytes
	if strings.HasPrefix(path.Base(name), "narration.") {
		limit = d.lim.NarrationBytes
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s has %d bytes; a file of %s may have at most %d (%s)", name, fi.Size(), d.lim.Tier, limit, sizeText(limit))
	}
	f, err := d.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Room for the size Stat gave: io.ReadAll would grow its buffer
	// from 512 bytes, copying a long session's 13 MB lesson.yaml about
	// twenty times.
	buf := bytes.NewBuffer(make([]byte, 0, fi.Size()+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, limit+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s grew past %d bytes while it was read", name, limit)
	}
	return data, nil
}

func (d dirFiles) name(file string) string { return path.Join(d.prefix, d.dir, file) }

// LoadDir reads one lesson directory of fsys. md may be nil.
func LoadDir(fsys fs.FS, dir, prefix string, md goldmark.Markdown, tok sim.Tokenizer) (*Lesson, error) {
	if md == nil {
		md = newMarkdown()
	}
	files := dirFiles{fsys: fsys, dir: dir, prefix: prefix, read_: new(int64)}
	lim, err := tierOf(fsys, dir)
	if err != nil {
		return nil, &Error{File: files.name(lessonfile.LessonFile), Msg: err.Error()}
	}
	files.lim = lim
	data, err := files.read(lessonfile.LessonFile)
	if err != nil {
		return nil, &Error{File: files.name(lessonfile.LessonFile), Msg: err.Error()}
	}
	raw, yf, err := lessonfile.DecodeLesson(files.name(lessonfile.LessonFile), data)
	if err != nil {
		return nil, err
	}
	if raw.Imported != nil && lim.Tier != Imported().Tier {
		files.lim = Imported() // a small imported session
	} else if raw.Imported == nil && lim.Tier == Imported().Tier {
		return nil, yf.ErrorAt("recorded", "is missing: a lesson.yaml this large must be an imported session")
	}
	// The narrations are read and parsed while the lesson is built (a long
	// session's two take 0.2 s of CPU); what they hold, and any error,
	// counts only after the lesson file's, in the same order as before.
	narr := parseNarrations(files, md)
	if err := checkMessages(yf, raw, files.lim); err != nil {
		return nil, err
	}
	sl, err := buildLesson(yf, raw, files)
	if err != nil {
		return nil, err
	}
	if raw.ID != path.Base(dir) {
		return nil, yf.ErrorAt("id", fmt.Sprintf("must equal the directory name %q, got %q", path.Base(dir), raw.ID))
	}
	l := &Lesson{Lesson: sl, Narration: map[string]map[string]Section{}, Draw: raw.Draw, Limits: files.lim, file: files.name(lessonfile.LessonFile),
		Sizes: SizesTrace}
	switch {
	case sl.Calibrated():
		l.Sizes = SizesProvider
	case sl.Counted:
		l.Sizes = SizesCounted
	}
	if err := checkCounts(yf, raw, l, files.lim); err != nil {
		return nil, err
	}
	if l.Draw == "" {
		l.Draw = DrawBlocks
	}
	if l.Draw != DrawBlocks && l.Draw != DrawPairs {
		return nil, yf.ErrorAt("draw", fmt.Sprintf("must be %s or %s, got %q", DrawBlocks, DrawPairs, raw.Draw))
	}
	narr.wait()
	for i, lang := range Languages {
		f, n := lessonfile.NarrationFile(lang), narr.each[i]
		err := n.readErr
		if err == nil {
			err = files.charge(f, n.data)
		}
		if err != nil {
			return nil, &Error{File: files.name(f), Msg: "cannot read narration: " + err.Error()}
		}
		secs, order, err := n.secs, n.order, n.parseErr
		if err != nil {
			return nil, err
		}
		l.Narration[lang] = secs
		if lang == Languages[0] {
			for _, k := range order {
				if strings.HasPrefix(k, "about:") {
					l.About = append(l.About, k)
				}
			}
		}
	}
	if err := checkNarration(l, files.name, tok); err != nil {
		return nil, err
	}
	return l, nil
}

// checkNarration requires the lesson-level sections in every language and
// the same section keys in every language, and runs every preset policy
// to require a section for every frame.
func checkNarration(l *Lesson, name func(string) string, tok sim.Tokenizer) error {
	for _, lang := range Languages {
		file := name(lessonfile.NarrationFile(lang))
		for _, k := range RequiredSections {
			if _, ok := l.Narration[lang][k]; !ok {
				return &Error{File: file, Field: k, Msg: "missing required section '@@ " + k + "'"}
			}
		}
		for k, s := range l.Narration[Languages[0]] {
			if _, ok := l.Narration[lang][k]; !ok {
				return &Error{File: file, Field: k, Msg: fmt.Sprintf("missing section '@@ %s' (%s:%d has it)", k, s.File, s.Line)}
			}
		}
		for k, s := range l.Narration[lang] {
			if _, ok := l.Narration[Languages[0]][k]; !ok {
				return &Error{File: s.File, Line: s.Line, Field: k, Msg: "section has no English counterpart"}
			}
		}
	}
	if coversEveryKind(l.Narration[Languages[0]]) {
		return nil // every frame has at least its kind's section
	}
	budget := l.RunBudget()
	return sim.RunEach(l.Lesson, l.PresetPolicies(), tok, func(_ int, p sim.Policy, r *sim.Replay) error {
		if err := budget.Spend(r); err != nil {
			return err
		}
		for _, f := range r.Frames {
			if !hasAny(l.Narration[Languages[0]], append(append([]string{}, f.Narration...), "@"+string(f.Kind))) {
				return &Error{File: name(lessonfile.NarrationFile(Languages[0])), Field: f.Narration[len(f.Narration)-1],
					Msg: "missing section for frame " + strconv.Itoa(f.Step) + " of policy " + p.String() + " (any of " + strings.Join(f.Narration, ", ") + ")"}
			}
		}
		return nil
	})
}

// coversEveryKind reports whether secs has a section for every kind of
// frame ("@step", "@crossed", ...): then no frame can lack a section.
func coversEveryKind(secs map[string]Section) bool {
	for _, k := range sim.FrameKinds {
		if _, ok := secs["@"+string(k)]; !ok {
			return false
		}
	}
	return true
}

func hasAny(secs map[string]Section, keys []string) bool {
	for _, k := range keys {
		if _, ok := secs[k]; ok {
			return true
		}
	}
	return false
}

// narrations are the narration files of a lesson, one per language,
// read and parsed in the background.
type narrations struct {
	wg   sync.WaitGroup
	each []narration
}

// narration is one language's file: its bytes and sections, or why not.
type narration struct {
	data              []byte
	secs              map[string]Section
	order             []string
	readErr, parseErr error
}

// parseNarrations starts reading and parsing the narration of every
// language (goldmark parses concurrently); wait gives the results.
func parseNarrations(files dirFiles, md goldmark.Markdown) *narrations {
	n := &narrations{each: make([]narration, len(Languages))}
	for i, lang := range Languages {
		n.wg.Go(func() {
			f, e := lessonfile.NarrationFile(lang), &n.each[i]
			if e.data, e.readErr = files.readOne(f); e.readErr == nil {
				e.secs, e.order, e.parseErr = parseNarration(files.name(f), e.data, md, files.lim)
			}
		})
	}
	return n
}

func (n *narrations) wait() { n.wg.Wait() }
