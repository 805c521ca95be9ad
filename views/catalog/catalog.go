// Package catalog holds the words of the page: one message catalog per
// language (en.yaml, ja.yaml), loaded and checked once at start-up. Every
// language must have exactly the keys English has. Messages are templates:
// {name} is filled in with a value the page gives.
//
// Lesson text is not here: it lives with the lessons. Keys under js. are
// what the browser scripts need; they are served to them as an asset.
package catalog

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

//go:embed *.yaml
var files embed.FS

// Languages are the languages of the page and of every lesson: one for
// each catalog file (<lang>.yaml), English first, the fallback, then the
// others in order. Adding a language is adding its catalog file (and the
// lessons' texts in it).
var Languages = languages(files)

// Fallback is the language shown where a text lacks the one asked for.
const Fallback = "en"

// languages lists the languages of fsys's catalog files: Fallback first.
func languages(fsys fs.FS) []string {
	names, _ := fs.Glob(fsys, "*.yaml") // the pattern is valid
	out := []string{Fallback}
	for _, n := range names {
		if lang := strings.TrimSuffix(n, ".yaml"); lang != Fallback {
			out = append(out, lang)
		}
	}
	return out
}

// Catalog is the messages of every language.
type Catalog struct {
	langs map[string]Messages
}

// Messages are the messages of one language.
type Messages struct {
	Lang string
	m    map[string]string
}

// Load reads the built-in catalogs and checks that every language has the
// keys of the first and no others.
func Load() (*Catalog, error) { return LoadFS(files) }

// LoadFS reads <lang>.yaml for every language from fsys.
func LoadFS(fsys fs.FS) (*Catalog, error) {
	c := &Catalog{langs: map[string]Messages{}}
	for _, lang := range Languages {
		data, err := fs.ReadFile(fsys, lang+".yaml")
		if err != nil {
			return nil, fmt.Errorf("catalog %s: %w", lang, err)
		}
		var m map[string]string
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("catalog %s.yaml: %w", lang, err)
		}
		c.langs[lang] = Messages{Lang: lang, m: m}
	}
	base := c.langs[Languages[0]]
	for _, lang := range Languages[1:] {
		if missing, extra := diffKeys(base.m, c.langs[lang].m); len(missing)+len(extra) > 0 {
			return nil, fmt.Errorf("catalog %s.yaml: keys differ from %s.yaml: missing %v, extra %v", lang, Languages[0], missing, extra)
		}
		for k, v := range base.m {
			if a, b := names(v), names(c.langs[lang].m[k]); !slices.Equal(a, b) {
				return nil, fmt.Errorf("catalog %s.yaml: %s uses {%s}, %s.yaml uses {%s}", lang, k, strings.Join(b, "} {"), Languages[0], strings.Join(a, "} {"))
			}
		}
	}
	return c, nil
}

func diffKeys(a, b map[string]string) (missing, extra []string) {
	for k := range a {
		if _, ok := b[k]; !ok {
			missing = append(missing, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			extra = append(extra, k)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}

var placeholder = regexp.MustCompile(`\{([A-Za-z0-9-]+)\}`)

// names lists the placeholders of a message, sorted.
func names(msg string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(msg, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// For returns the messages of lang, English when lang is unknown.
func (c *Catalog) For(lang string) Messages {
	if m, ok := c.langs[lang]; ok {
		return m
	}
	return c.langs[Languages[0]]
}

// Keys lists every key, sorted.
func (c *Catalog) Keys() []string {
	var out []string
	for k := range c.langs[Languages[0]].m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Script returns the js. messages of every language as a script that sets
// window.ctxsimMessages, for the browser scripts.
func (c *Catalog) Script() []byte {
	all := map[string]map[string]string{}
	for _, lang := range Languages {
		js := map[string]string{}
		for k, v := range c.langs[lang].m {
			if rest, ok := strings.CutPrefix(k, "js."); ok {
				js[rest] = v
			}
		}
		all[lang] = js
	}
	b, _ := json.Marshal(all) // maps of strings always encode
	return []byte("// generated from views/catalog/*.yaml\nwindow.ctxsimMessages = " + string(b) + ";\n")
}

// Has reports whether key exists.
func (m Messages) Has(key string) bool {
	_, ok := m.m[key]
	return ok
}

// T returns the message key; a missing key reads as the key itself, so a
// mistake shows on the page instead of an empty string.
func (m Messages) T(key string) string {
	if v, ok := m.m[key]; ok {
		return v
	}
	return key
}

// F returns the message key with its {placeholders} filled from args.
func (m Messages) F(key string, args map[string]string) string {
	return Fill(m.T(key), args)
}

// Fill replaces {name} in msg with args[name]; unknown names stay.
func Fill(msg string, args map[string]string) string {
	if !strings.Contains(msg, "{") {
		return msg
	}
	return placeholder.ReplaceAllStringFunc(msg, func(s string) string {
		if v, ok := args[s[1:len(s)-1]]; ok {
			return v
		}
		return s
	})
}
