// Command gentrace generates the result texts that lessons mark with gen:
// tool output (directory listings, globs, greps, Go files, test and build
// logs, browser snapshots) of a simulated repository, to an exact size, from
// a seed. It writes each text to the file the result names, so the lesson
// ships them as data and the loader only reads them.
//
//	go run ./tools/gentrace [-lessons scenarios] [-check]
//
// The texts depend on the repository as the agent's earlier calls left it
// (a grep sees an edit made before it), so gentrace replays the lesson's
// file operations in order. -check compares instead of writing and fails
// when a committed file is stale; a test runs it.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"

	"ctxsim/sim"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "gentrace:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fl := flag.NewFlagSet("gentrace", flag.ContinueOnError)
	dir := fl.String("lessons", "scenarios", "directory of lesson directories")
	check := fl.Bool("check", false, "compare with the committed files instead of writing them")
	if err := fl.Parse(args); err != nil {
		return err
	}
	files, err := generateAll(os.DirFS(*dir))
	if err != nil {
		return err
	}
	var stale []string
	for name, text := range files {
		p := filepath.Join(*dir, filepath.FromSlash(name))
		if *check {
			old, err := os.ReadFile(p)
			if err != nil || !bytes.Equal(old, []byte(text)) {
				stale = append(stale, p)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("stale generated files (run `go run ./tools/gentrace`): %s", strings.Join(stale, ", "))
	}
	return nil
}

// generateAll generates the texts of every lesson under fsys, keyed by
// their path relative to fsys.
func generateAll(fsys fs.FS) (map[string]string, error) {
	lessons, err := fs.Glob(fsys, "*/lesson.yaml")
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range lessons {
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		texts, err := generate(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for name, text := range texts {
			out[filepath.ToSlash(filepath.Join(filepath.Dir(p), name))] = text
		}
	}
	return out, nil
}

// The parts of lesson.yaml gentrace reads.
type lessonFile struct {
	Mechanisms struct {
		Workspace struct {
			Files []struct {
				Path string `yaml:"path"`
				Text string `yaml:"text"`
			} `yaml:"files"`
		} `yaml:"workspace"`
	} `yaml:"mechanisms"`
	Generate struct {
		Module string     `yaml:"module"`
		Repo   []repoFile `yaml:"repo"`
	} `yaml:"generate"`
	Trace []struct {
		Messages []struct {
			Call *struct {
				ID     string    `yaml:"id"`
				Args   yaml.Node `yaml:"args"`
				Read   string    `yaml:"read"`
				Write  string    `yaml:"write"`
				Edit   *struct{ Path, Old, New string }
				Result yaml.Node `yaml:"result"`
			} `yaml:"call"`
		} `yaml:"messages"`
	} `yaml:"trace"`
}

// genSpec is a result's gen: the generator, its seed and the lines the
// text must hold.
type genSpec struct {
	File  string `yaml:"file"`
	Chars int    `yaml:"chars"`
	Gen   struct {
		Kind  string   `yaml:"kind"`
		Seed  uint64   `yaml:"seed"`
		Lines []string `yaml:"lines"`
	} `yaml:"gen"`
}

// repoFile is a file of the repository known by path and size only.
type repoFile struct {
	Path  string `yaml:"path"`
	Bytes int    `yaml:"bytes"`
}

// repoState follows the repository through the trace's file operations.
type repoState struct {
	module  string
	initial []string          // files of the repository at the start, in order
	texts   []string          // their texts
	files   map[string]string // path -> text, once a call has touched the file
	pending map[string]bool   // files a later call creates: not in the repository yet
	repo    []repoFile
}

func (st *repoState) text(p string) (string, bool) {
	if t, ok := st.files[p]; ok {
		return t, true
	}
	for i, q := range st.initial {
		if q == p && !st.pending[p] {
			return st.texts[i], true
		}
	}
	return "", false
}

// generate replays one lesson's file operations and generates the texts
// of its gen results, keyed by file name.
func generate(data []byte) (map[string]string, error) {
	var lf lessonFile
	if err := yaml.Unmarshal(data, &lf); err != nil {
		return nil, err
	}
	st := &repoState{module: lf.Generate.Module, files: map[string]string{}, pending: map[string]bool{}, repo: lf.Generate.Repo}
	for _, f := range lf.Mechanisms.Workspace.Files {
		st.initial = append(st.initial, f.Path)
		st.texts = append(st.texts, f.Text)
	}
	for _, step := range lf.Trace {
		for _, m := range step.Messages {
			if m.Call != nil && m.Call.Write != "" {
				st.pending[m.Call.Write] = true
			}
		}
	}
	out := map[string]string{}
	for _, step := range lf.Trace {
		for _, m := range step.Messages {
			c := m.Call
			switch {
			case c == nil:
			case c.Write != "":
				text, _ := st.text(c.Write)
				for i, p := range st.initial {
					if p == c.Write {
						text = st.texts[i]
					}
				}
				st.files[c.Write] = text
			case c.Edit != nil:
				text, ok := st.text(c.Edit.Path)
				if !ok {
					return nil, fmt.Errorf("call %s edits %s, which does not exist", c.ID, c.Edit.Path)
				}
				next, _, err := sim.Edit(c.Edit.Path, text, c.Edit.Old, c.Edit.New)
				if err != nil {
					return nil, fmt.Errorf("call %s: %w", c.ID, err)
				}
				st.files[c.Edit.Path] = next
			case c.Result.Kind == yaml.MappingNode:
				var spec genSpec
				if err := c.Result.Decode(&spec); err != nil {
					return nil, fmt.Errorf("call %s: result: %w", c.ID, err)
				}
				if spec.Gen.Kind == "" {
					continue
				}
				text, err := st.generate(c.ID, &c.Args, spec)
				if err != nil {
					return nil, err
				}
				out[spec.File] = text
			}
		}
	}
	return out, nil
}

// generate makes one result text.
func (st *repoState) generate(id string, argsNode *yaml.Node, spec genSpec) (string, error) {
	gen, ok := generators[spec.Gen.Kind]
	if !ok {
		return "", fmt.Errorf("call %s: gen.kind must be one of %s, got %q", id, strings.Join(generatorNames(), ", "), spec.Gen.Kind)
	}
	if spec.Chars <= 0 || spec.File == "" {
		return "", fmt.Errorf("call %s: a generated result needs file and a positive chars", id)
	}
	args := map[string]any{}
	if argsNode.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(argsNode.Content); i += 2 {
			args[argsNode.Content[i].Value] = argsNode.Content[i+1].Value
		}
	}
	g := &genCtx{st: st, args: args, rng: &splitmix{s: spec.Gen.Seed}, want: spec.Gen.Lines}
	head, body, tail := gen(g)
	text, err := assemble(head, body, tail, spec.Gen.Lines, spec.Chars)
	if err != nil {
		return "", fmt.Errorf("call %s: chars %w", id, err)
	}
	return text, nil
}
