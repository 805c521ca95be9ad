package lessonfile

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"text/template"

	"ctxsim/sim"
	"ctxsim/views/catalog"
)

// Texts are the words a program writes into lesson files (the importer's
// narration, the provenance of a recorded summary), as one text/template
// file per language: adding a language is adding its file. Every file
// defines the same templates.
type Texts struct {
	byLang map[string]*template.Template
}

// ParseTexts parses the file of every language (catalog.Languages) that
// file names (file("en"): "narration.en.md.tmpl") in fsys, and checks
// that each defines the templates the first defines, and no others.
func ParseTexts(fsys fs.FS, file func(lang string) string, funcs template.FuncMap) (*Texts, error) {
	t := &Texts{byLang: map[string]*template.Template{}}
	var want []string
	for i, lang := range catalog.Languages {
		name := file(lang)
		tm, err := template.New(path.Base(name)).Option("missingkey=error").Funcs(funcs).ParseFS(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("texts of %s: %w", lang, err)
		}
		names := defined(tm)
		if i == 0 {
			want = names
		} else if !slices.Equal(names, want) {
			return nil, fmt.Errorf("%s defines %s; %s defines %s: every language needs the same texts",
				name, strings.Join(names, ", "), file(catalog.Languages[0]), strings.Join(want, ", "))
		}
		t.byLang[lang] = tm
	}
	return t, nil
}

// defined lists the named templates of t, sorted.
func defined(t *template.Template) []string {
	var out []string
	for _, d := range t.Templates() {
		if d.Name() != t.Name() {
			out = append(out, d.Name())
		}
	}
	slices.Sort(out)
	return out
}

// In executes template name of lang with data.
func (t *Texts) In(lang, name string, data any) (string, error) {
	tm, ok := t.byLang[lang]
	if !ok {
		return "", fmt.Errorf("no texts in %s", lang)
	}
	var b strings.Builder
	if err := tm.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Text executes template name in every language with data.
func (t *Texts) Text(name string, data any) (sim.Text, error) {
	out := sim.Text{}
	for _, lang := range catalog.Languages {
		s, err := t.In(lang, name, data)
		if err != nil {
			return nil, err
		}
		out[lang] = s
	}
	return out, nil
}
