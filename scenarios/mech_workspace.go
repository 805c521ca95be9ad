package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"ctxsim/sim"
)

// WorkspaceConfig is the workspace's configuration in a lesson file
// (mechanisms.workspace): its files, and the tool a re-read calls.
type WorkspaceConfig struct {
	Files []WorkspaceFile `yaml:"files"`
	// Read is the tool the agent reads a file with, and its argument that
	// names the path: what a re-read calls. Left out: the tool of the
	// trace's read calls, with the path argument they have (path).
	Read *sim.ReadTool `yaml:"read,omitempty"`
}

// WorkspaceFile is a file of the workspace with its full text. Lines and
// chars, when given, are the figures the source states; the loader checks
// the text against them.
type WorkspaceFile struct {
	Path  string `yaml:"path"`
	Lines int    `yaml:"lines,omitempty"`
	Chars int    `yaml:"chars,omitempty"`
	Text  string `yaml:"text"`
}

// pathArg is the argument of a read, write or edit call that names the
// file.
const pathArg = "path"

// workspaceFiles reads the workspace's files before the trace is built
// (write calls carry their text).
func (b *builder) workspaceFiles(cs []config) {
	r, ok := configOf[WorkspaceConfig](cs, "workspace")
	if !ok {
		return
	}
	for i, f := range r.Files {
		p := fmt.Sprintf("mechanisms.workspace.files[%d]", i)
		switch {
		case f.Path == "" || f.Text == "":
			b.fail(p, "needs path and text")
		case f.Chars > 0 && runes(f.Text) != f.Chars:
			b.fail(p+".chars", "says %d characters; the text has %d", f.Chars, runes(f.Text))
		case f.Lines > 0 && strings.Count(f.Text, "\n") != f.Lines:
			b.fail(p+".lines", "says %d lines; the text has %d", f.Lines, strings.Count(f.Text, "\n"))
		case slices.ContainsFunc(b.workspace, func(w sim.WorkspaceFile) bool { return w.Path == f.Path }):
			b.fail(p+".path", "%q is listed twice", f.Path)
		}
		b.workspace = append(b.workspace, sim.WorkspaceFile{Path: f.Path, Text: f.Text})
	}
}

// workspaceMechanism marks the files a write creates, replays the file
// operations once to check them and names the tool a re-read calls.
func (b *builder) workspaceMechanism(r *WorkspaceConfig, _ *sim.Lesson) sim.Mechanism {
	w := b.ws()
	if _, i, err := w.Results(b.ops); err != nil {
		b.fail(b.opPaths[i], "%v", err)
	}
	switch {
	case r.Read != nil && (r.Read.Tool == "" || r.Read.Arg == ""):
		b.fail("mechanisms.workspace.read", "needs tool and arg: the tool a re-read calls and its argument that names the file")
	case r.Read != nil:
		w.Read = *r.Read
	case len(b.reads) > 0:
		w.Read = sim.ReadTool{Tool: b.reads[0], Arg: pathArg}
	}
	return w
}

// ws is the workspace with the files a write creates marked.
func (b *builder) ws() sim.Workspace {
	w := sim.Workspace{Files: slices.Clone(b.workspace)}
	for i := range w.Files {
		w.Files[i].Created = slices.Contains(b.writes, w.Files[i].Path)
	}
	return w
}
