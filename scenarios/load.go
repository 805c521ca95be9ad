package scenarios

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"

	"ctxsim/sim"

	"github.com/yuin/goldmark"
)

// Lesson is a loaded lesson: the engine's data plus narration rendered once.
type Lesson struct {
	*sim.Lesson
	// Narration maps language to section key to section.
	Narration map[string]map[string]Section
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

// RequiredSections are the lesson-level sections every lesson must have.
var RequiredSections = []string{"intro"}

// Load reads every lesson directory of fsys (a directory holding
// lesson.yaml), validates it and renders its narration. prefix is prepended
// to file names in errors (e.g. the -lessons directory). tok counts the text
// of mechanical excerpts while every preset policy is checked.
func Load(fsys fs.FS, prefix string, tok sim.Tokenizer) ([]*Lesson, error) {
	dirs, err := fs.Glob(fsys, "*/lesson.yaml")
	if err != nil {
		return nil, fmt.Errorf("list lessons: %w", err)
	}
	md := newMarkdown()
	var out []*Lesson
	for _, p := range dirs {
		l, err := loadOne(fsys, path.Dir(p), prefix, md, tok)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	slices.SortStableFunc(out, func(a, b *Lesson) int { return a.Order - b.Order })
	return out, nil
}

func loadOne(fsys fs.FS, dir, prefix string, md goldmark.Markdown, tok sim.Tokenizer) (*Lesson, error) {
	name := func(f string) string { return path.Join(prefix, dir, f) }
	data, err := fs.ReadFile(fsys, path.Join(dir, "lesson.yaml"))
	if err != nil {
		return nil, &Error{File: name("lesson.yaml"), Msg: err.Error()}
	}
	var raw rawLesson
	yf, err := decodeYAML(name("lesson.yaml"), data, &raw)
	if err != nil {
		return nil, err
	}
	sl, err := buildLesson(yf, &raw)
	if err != nil {
		return nil, err
	}
	if raw.ID != dir {
		return nil, yf.errorAt("id", fmt.Sprintf("must equal the directory name %q, got %q", dir, raw.ID))
	}
	if err := loadCards(fsys, dir, name("summaries.yaml"), sl); err != nil {
		return nil, err
	}
	l := &Lesson{Lesson: sl, Narration: map[string]map[string]Section{}}
	for _, lang := range Languages {
		f := "narration." + lang + ".md"
		data, err := fs.ReadFile(fsys, path.Join(dir, f))
		if err != nil {
			return nil, &Error{File: name(f), Msg: "cannot read narration: " + err.Error()}
		}
		secs, err := parseNarration(name(f), data, md)
		if err != nil {
			return nil, err
		}
		l.Narration[lang] = secs
	}
	if err := checkNarration(l, name, tok); err != nil {
		return nil, err
	}
	return l, nil
}

func loadCards(fsys fs.FS, dir, file string, sl *sim.Lesson) error {
	data, err := fs.ReadFile(fsys, path.Join(dir, "summaries.yaml"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{File: file, Msg: err.Error()}
	}
	var raw rawSummaries
	yf, err := decodeYAML(file, data, &raw)
	if err != nil {
		return err
	}
	sl.Provenance = raw.Provenance
	sl.Cards, err = buildCards(yf, &raw, blockIDs(sl))
	return err
}

// blockIDs lists every block id the trace can put in the window.
func blockIDs(l *sim.Lesson) map[string]string {
	ids := map[string]string{"system": "system"}
	add := func(ms []sim.Message) {
		for _, m := range ms {
			ids[m.ID] = m.ID
		}
	}
	for _, st := range l.Trace {
		add(st.Messages)
		if st.Branch != nil {
			add(st.Branch.Found)
			add(st.Branch.Missing)
		}
	}
	return ids
}

// checkNarration runs every preset policy and requires a narration section,
// in every language, for every frame, plus the lesson-level sections.
func checkNarration(l *Lesson, name func(string) string, tok sim.Tokenizer) error {
	for _, lang := range Languages {
		file := name("narration." + lang + ".md")
		for _, k := range RequiredSections {
			if _, ok := l.Narration[lang][k]; !ok {
				return &Error{File: file, Field: k, Msg: "missing required section '@@ " + k + "'"}
			}
		}
		for _, p := range sim.PresetPolicies(l.Lesson) {
			frames, err := sim.Run(l.Lesson, p, tok)
			if err != nil {
				return fmt.Errorf("lesson %s: %w", l.ID, err)
			}
			for _, f := range frames {
				if !hasAny(l.Narration[lang], f.Narration) {
					return &Error{File: file, Field: f.Narration[len(f.Narration)-1],
						Msg: "missing section for frame " + strconv.Itoa(f.Step) + " of policy " + fmt.Sprintf("%+v", p) + " (any of " + fmt.Sprint(f.Narration) + ")"}
				}
			}
		}
	}
	return nil
}

func hasAny(secs map[string]Section, keys []string) bool {
	for _, k := range keys {
		if _, ok := secs[k]; ok {
			return true
		}
	}
	return false
}
