package scenarios

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

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
}

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
	dirs, err := fs.Glob(fsys, "*/lesson.yaml")
	if err != nil {
		return nil, fmt.Errorf("list lessons: %w", err)
	}
	md := newMarkdown()
	var out []*Lesson
	for _, p := range dirs {
		l, err := LoadDir(fsys, path.Dir(p), prefix, md, tok)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b *Lesson) int { return a.Order - b.Order })
	return out, nil
}

// dirFiles reads the files of one lesson directory.
type dirFiles struct {
	fsys        fs.FS
	dir, prefix string
}

func (d dirFiles) read(name string) ([]byte, error) {
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
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s has %d bytes; a lesson file may have at most %d (64 MiB)", name, fi.Size(), MaxFileBytes)
	}
	f, err := d.fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s grew past %d bytes while it was read", name, MaxFileBytes)
	}
	return data, nil
}

// MaxWindow bounds a lesson's window in tokens: ten times the largest
// window a provider offers today; sums of sizes stay far from overflow.
const MaxWindow = 10_000_000

// MaxFileBytes bounds one file of a lesson: enough for the lesson of a
// 10,000-record imported session (about 15 MB), small enough to read.
const MaxFileBytes = 64 << 20

func (d dirFiles) name(file string) string { return path.Join(d.prefix, d.dir, file) }

// LoadDir reads one lesson directory of fsys. md may be nil.
func LoadDir(fsys fs.FS, dir, prefix string, md goldmark.Markdown, tok sim.Tokenizer) (*Lesson, error) {
	if md == nil {
		md = newMarkdown()
	}
	files := dirFiles{fsys: fsys, dir: dir, prefix: prefix}
	data, err := files.read("lesson.yaml")
	if err != nil {
		return nil, &Error{File: files.name("lesson.yaml"), Msg: err.Error()}
	}
	var raw rawLesson
	yf, err := decodeYAML(files.name("lesson.yaml"), data, &raw)
	if err != nil {
		return nil, err
	}
	sl, err := buildLesson(yf, &raw, files)
	if err != nil {
		return nil, err
	}
	if raw.ID != path.Base(dir) {
		return nil, yf.errorAt("id", fmt.Sprintf("must equal the directory name %q, got %q", path.Base(dir), raw.ID))
	}
	l := &Lesson{Lesson: sl, Narration: map[string]map[string]Section{}, Draw: raw.Draw}
	if l.Draw == "" {
		l.Draw = DrawBlocks
	}
	if l.Draw != DrawBlocks && l.Draw != DrawPairs {
		return nil, yf.errorAt("draw", fmt.Sprintf("must be %s or %s, got %q", DrawBlocks, DrawPairs, raw.Draw))
	}
	for _, lang := range Languages {
		f := "narration." + lang + ".md"
		data, err := files.read(f)
		if err != nil {
			return nil, &Error{File: files.name(f), Msg: "cannot read narration: " + err.Error()}
		}
		secs, order, err := parseNarration(files.name(f), data, md)
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
		file := name("narration." + lang + ".md")
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
	return sim.RunEach(l.Lesson, l.PresetPolicies(), tok, func(_ int, p sim.Policy, r *sim.Replay) error {
		for _, f := range r.Frames {
			if !hasAny(l.Narration[Languages[0]], append(append([]string{}, f.Narration...), "@"+string(f.Kind))) {
				return &Error{File: name("narration." + Languages[0] + ".md"), Field: f.Narration[len(f.Narration)-1],
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
