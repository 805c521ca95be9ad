package sim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Workspace is the workspace mechanism: the files of a repository that the
// agent reads, writes and edits. Results are made when the calls are
// replayed, so a read shows the file as it is then. When the agent is
// about to edit a file it read before, and that read is no longer in the
// window as text (a compressor stripped it to a stub, or it was cut), the
// agent reads the file again first: one more model call and round trip.
type Workspace struct {
	Files []WorkspaceFile
	// Read is how the agent reads a file (a re-read calls it): the lesson
	// declares it, or it is the tool of the trace's own reads.
	Read ReadTool
}

// ReadTool is a tool that reads a file, and its argument that names the
// path: a re-read is the call Tool({"Arg": path}).
type ReadTool struct {
	Tool string `yaml:"tool"`
	Arg  string `yaml:"arg"`
}

// RereadIDPrefix starts the tool_use id of every re-read the workspace
// makes (toolu_rr1, toolu_rr2, ...); no call of a trace may take it.
const RereadIDPrefix = "toolu_rr"

// WorkspaceFile is a file of the workspace with its full text. A file
// Created by a write call is not in the repository before that call.
type WorkspaceFile struct {
	Path    string
	Text    string
	Created bool
}

// Name is "workspace".
func (Workspace) Name() string { return "workspace" }

// Params: the workspace has none.
func (Workspace) Params() []Param { return nil }

func (w Workspace) start(h *harness) hooks {
	r := &workspaceRun{cfg: w, files: map[string]string{}, readOf: map[string]string{}, read: map[string]bool{}}
	for _, f := range w.Files {
		if !f.Created {
			r.files[f.Path] = f.Text
		}
	}
	h.declare("rereads", "round_trips")
	return r
}

type workspaceRun struct {
	base
	cfg     Workspace
	files   map[string]string // path -> text now
	readOf  map[string]string // result block id -> path it read
	read    map[string]bool   // files the agent has read
	rereads int
	reread  map[string]bool // result ids of re-reads
	// edits and inContext count, per step, the edits made and those whose
	// old text was in the window when the model wrote them.
	edits, inContext map[string]int
	back             int // tokens re-reads brought back, over the run
}

// sessionStart: the files stay on disk, but a new session has read none of
// them.
func (r *workspaceRun) sessionStart(*harness) {
	r.readOf, r.read = map[string]string{}, map[string]bool{}
}

// result makes a file operation's result text.
func (r *workspaceRun) result(h *harness, b *Block, m *Message) {
	if m.Op == nil {
		return
	}
	text, err := r.apply(m.Op)
	if err != nil {
		text = "Error: " + err.Error()
	}
	if m.Op.Op == OpRead {
		r.readOf[b.ID] = m.Op.Path
		r.read[m.Op.Path] = true
	}
	b.Content = text
	b.Tokens = h.count(text)
}

// apply performs op on the files and returns the tool's result.
func (r *workspaceRun) apply(op *FileOp) (string, error) {
	switch op.Op {
	case OpRead:
		text, ok := r.files[op.Path]
		if !ok {
			return "", fmt.Errorf("%s does not exist", op.Path)
		}
		return text, nil
	case OpWrite:
		text := r.cfg.text(op.Path)
		r.files[op.Path] = text
		return fmt.Sprintf("File created successfully at: %s (%d lines, %d bytes)", op.Path, strings.Count(text, "\n"), len(text)), nil
	case OpEdit:
		text, ok := r.files[op.Path]
		if !ok {
			return "", fmt.Errorf("%s does not exist", op.Path)
		}
		out, snippet, err := Edit(op.Path, text, op.Old, op.New)
		if err != nil {
			return "", err
		}
		r.files[op.Path] = out
		return snippet, nil
	}
	return "", fmt.Errorf("unknown file operation %q", op.Op)
}

func (w Workspace) text(path string) string {
	for _, f := range w.Files {
		if f.Path == path {
			return f.Text
		}
	}
	return ""
}

// Edit replaces the one occurrence of old in text and returns the new text
// and the edit tool's result: the changed lines with six lines of context,
// numbered like `cat -n`.
func Edit(path, text, old, new string) (string, string, error) {
	if old == "" || old == new {
		return "", "", fmt.Errorf("an edit needs old text and different new text")
	}
	if n := strings.Count(text, old); n != 1 {
		return "", "", fmt.Errorf("old text must occur exactly once in %s; it occurs %d times", path, n)
	}
	at := strings.Index(text, old)
	text = text[:at] + new + text[at+len(old):]
	first := strings.Count(text[:at], "\n") // 0-based line of the change
	last := first + strings.Count(new, "\n")
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	from, to := max(first-6, 0), min(last+6, len(lines)-1)
	var out strings.Builder
	fmt.Fprintf(&out, "The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n", path)
	for i := from; i <= to; i++ {
		fmt.Fprintf(&out, "%6d\t%s\n", i+1, lines[i])
	}
	return text, out.String(), nil
}

// beforeTool re-reads a file the agent read before and is about to edit,
// when the latest read of it in the window is not its text any more. It
// also notes whether the text an edit replaces is in the window when the
// model writes the edit: narration may only claim it is where it is.
func (r *workspaceRun) beforeTool(h *harness, m *Message) bool {
	op := m.Op
	if op != nil && op.Op == OpEdit {
		defer r.noteEdit(h, op)
	}
	if op == nil || op.Op != OpEdit || !r.read[op.Path] || !r.stale(h, op.Path) {
		return true
	}
	r.rereads++
	h.bump("rereads", 1)
	h.bump("round_trips", 1)
	id := RereadIDPrefix + strconv.Itoa(r.rereads)
	rd := r.cfg.Read
	label := Text{Fallback: rd.Tool + " " + op.Path}
	rop := &FileOp{Op: OpRead, Path: op.Path}
	args := JSONArgs([][2]any{{rd.Arg, op.Path}})
	call := Message{ID: "call-" + id, Role: RoleAssistant, Kind: KindToolCall, Label: label, Tool: rd.Tool,
		ToolUseID: id, Args: args, Content: rd.Tool + "(" + args + ")", Op: rop, Origin: OriginAuthored}
	res := Message{ID: "result-" + id, Role: RoleTool, Kind: KindToolResult, Label: label, Tool: rd.Tool,
		ToolUseID: id, Op: rop, Origin: OriginAuthored}
	h.put(&call)
	b := h.put(&res)
	if r.reread == nil {
		r.reread = map[string]bool{}
	}
	r.reread[b.ID] = true
	h.event(Event{Type: EventReread, Block: b.ID, Tokens: b.Tokens})
	r.back += b.Tokens
	h.settle()
	var own []string
	if r.rereads >= 2 {
		own = []string{"cycle"}
	}
	// A re-read is an agent step like any other (kind step), told apart by
	// its reread event and narration key.
	f := h.emitWith(FrameStep, KeyReread, own, frameCtx{})
	f.Decisive = true
	h.variants = append(h.variants, "after-reread")
	return h.call()
}

// noteEdit counts the step's edits and those whose old text is in the
// window at the call.
func (r *workspaceRun) noteEdit(h *harness, op *FileOp) {
	if r.edits == nil {
		r.edits, r.inContext = map[string]int{}, map[string]int{}
	}
	r.edits[h.cur.ID]++
	h.each(func(b *Block) bool {
		if strings.Contains(b.Content, op.Old) {
			r.inContext[h.cur.ID]++
			return false
		}
		return true
	})
}

// stale reports whether the latest read of path in the window is gone or
// is no longer its text (a metadata stub).
func (r *workspaceRun) stale(h *harness, path string) bool {
	for i := len(h.msgs) - 1; i >= 0; i-- {
		if r.readOf[h.msgs[i].ID] == path {
			return h.msgs[i].Kind == KindStub
		}
	}
	return true
}

// frame badges re-reads and reports the step's edits, the run's edits so
// far and the tokens re-reads brought back.
func (r *workspaceRun) frame(h *harness, f *Frame, fc frameCtx) {
	all, in := 0, 0
	for k, n := range r.edits {
		all, in = all+n, in+r.inContext[k]
	}
	f.Figures = append(f.Figures, count("run-edits", all), count("run-edits-in-context", in), tokens("tokens-back", r.back))
	if n := r.edits[h.cur.ID]; n > 0 && fc.finish {
		f.Figures = append(f.Figures, count("edits", n), count("edits-in-context", r.inContext[h.cur.ID]))
		if r.inContext[h.cur.ID] == n {
			f.Figures = append(f.Figures, count("edit-context", 1))
		}
	}
	bs := f.Blocks()
	for i := range bs {
		if r.reread[bs[i].ID] || r.reread["result-"+strings.TrimPrefix(bs[i].ID, "call-")] {
			bs[i].Badges = append(bs[i].Badges, Badge{Key: "reread", Tone: "warn"})
		}
	}
}

// Results replays the file operations of a trace in order, without any
// compression (which never changes files), and returns each one's result.
// It stops at the first that fails, with its index: a read or edit of a
// file that does not exist yet, an edit whose old text does not occur
// exactly once, a write of a file not marked created, or written twice.
func (w Workspace) Results(ops []*FileOp) ([]string, int, error) {
	r := &workspaceRun{cfg: w, files: map[string]string{}}
	for _, f := range w.Files {
		if !f.Created {
			r.files[f.Path] = f.Text
		}
	}
	written := map[string]bool{}
	var out []string
	for i, op := range ops {
		if op.Op == OpWrite {
			if f := w.file(op.Path); f == nil || !f.Created || written[op.Path] {
				return out, i, fmt.Errorf("writes %q, which must be a workspace file that no earlier call wrote", op.Path)
			}
			written[op.Path] = true
		}
		text, err := r.apply(op)
		if err != nil {
			return out, i, err
		}
		out = append(out, text)
	}
	return out, -1, nil
}

func (w Workspace) file(path string) *WorkspaceFile {
	for i := range w.Files {
		if w.Files[i].Path == path {
			return &w.Files[i]
		}
	}
	return nil
}

// JSONArgs writes arguments as compact JSON in the given order, without
// HTML escaping: the text a tool_use block carries.
func JSONArgs(args [][2]any) string {
	var out bytes.Buffer
	out.WriteByte('{')
	for i, kv := range args {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString(jsonValue(kv[0]))
		out.WriteByte(':')
		out.WriteString(jsonValue(kv[1]))
	}
	out.WriteByte('}')
	return out.String()
}

func jsonValue(v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // strings, numbers and booleans always encode
	return strings.TrimSuffix(buf.String(), "\n")
}
