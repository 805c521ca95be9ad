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

	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
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
		texts, err := generate(p, data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		for name, text := range texts {
			out[filepath.ToSlash(filepath.Join(filepath.Dir(p), name))] = text
		}
	}
	return out, nil
}

// repoFile is a file of the repository known by path and size only.
type repoFile = lessonfile.RepoFile

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
func generate(name string, data []byte) (map[string]string, error) {
	lf, f, err := lessonfile.DecodeLesson(name, data)
	if err != nil {
		return nil, err
	}
	st := &repoState{files: map[string]string{}, pending: map[string]bool{}}
	if g := lf.Generate; g != nil {
		st.module, st.repo = g.Module, g.Repo
	}
	if m, ok := lf.Mechanisms.Get("workspace"); ok {
		var w scenarios.WorkspaceConfig
		if err := f.DecodeNode("mechanisms.workspace", m.Node, &w); err != nil {
			return nil, err
		}
		for _, f := range w.Files {
			st.initial = append(st.initial, f.Path)
			st.texts = append(st.texts, f.Text)
		}
	}
	for _, step := range lf.Trace {
		for _, m := range step.Messages {
			if m.Call != nil && m.Call.Write != "" {
				st.pending[m.Call.Write] = true
			}
		}
	}
	out := map[string]string{}
	for i, step := range lf.Trace {
		for j, m := range step.Messages {
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
				var spec lessonfile.Result
				if err := f.DecodeNode(fmt.Sprintf("trace[%d].messages[%d].call.result", i, j), &c.Result, &spec); err != nil {
					return nil, err
				}
				if spec.Gen == nil {
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
func (st *repoState) generate(id string, argsNode *yaml.Node, spec lessonfile.Result) (string, error) {
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
