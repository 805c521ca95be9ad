package sim

import (
	"fmt"
	"slices"
	"strings"
)

// MemoryStore is the memory mechanism: a file on disk (MEMORY.md) that
// remember() writes to, and a copy of it injected after the system prompt
// at every session start. The copy is a snapshot: writing to the file does
// not change it; the new line enters at the next session's load.
type MemoryStore struct {
	Path   string
	Lines  []string
	Tokens int // trace size of the first injected copy (0 in a counted lesson)
}

// Name is "memory".
func (MemoryStore) Name() string { return "memory" }

// Params is memory on/off.
func (MemoryStore) Params() []Param { return []Param{onOff("memory", "on")} }

func (m MemoryStore) start(h *harness) hooks {
	r := &memoryRun{cfg: m, on: h.p.On("memory"), path: text("memory-path", m.Path)}
	if r.on {
		r.file = slices.Clone(m.Lines)
		r.tokens = m.Tokens
	}
	return r
}

type memoryRun struct {
	base
	cfg      MemoryStore
	on       bool
	file     []string // the file on disk
	tokens   int      // trace size of the next injected copy
	injected []string // the copy injected at this session's start
	path     Figure   // the file's name, for narration (one Text for every frame)
}

// sessionStart injects a copy of the file after the system prompt.
func (r *memoryRun) sessionStart(h *harness) {
	r.injected = nil
	if !r.on {
		return
	}
	r.injected = slices.Clone(r.file)
	text := strings.Join(r.injected, "\n")
	b := Block{ID: fmt.Sprintf("memory-%d", h.session), Role: RoleSystem, Kind: KindMemory,
		Label: Text{"en": r.cfg.Path}, LabelKey: "block.memory-copy", Content: text, Tokens: r.tokens}
	if h.l.Counted {
		b.Tokens = h.count(text)
	}
	h.injected = append(h.injected, b)
}

func (r *memoryRun) sessionEnd(*harness) { r.injected = nil }

// remember writes the step's line to the file; the window does not change.
func (r *memoryRun) remember(h *harness, st Step) bool {
	if !r.on {
		h.event(Event{Type: EventMemoryOff, Line: st.Line})
		return true
	}
	r.file = append(r.file, st.Line)
	r.tokens += st.Tokens
	h.event(Event{Type: EventMemoryWrite, Line: st.Line, Tokens: st.Tokens})
	return true
}

// frame reports the file and the copy, and tags session and memory steps
// "no-memory" when memory is off.
func (r *memoryRun) frame(h *harness, f *Frame, fc frameCtx) {
	m := &Memory{Enabled: r.on, Path: r.cfg.Path, File: slices.Clone(r.file), Injected: slices.Clone(r.injected)}
	if r.on && h.session > 0 && m.Injected != nil {
		m.New = newLines(r.file, r.injected)
	}
	f.Memory = m
	f.Figures = append(f.Figures, r.path, count("memory-lines", len(r.file)))
	for _, b := range f.Blocks() {
		if b.Kind == KindMemory {
			f.Figures = append(f.Figures, tokens("memory-copy", b.Tokens), count("copy-lines", len(r.injected)))
		}
	}
	if len(m.New) > 0 {
		f.Figures = append(f.Figures, count("memory-new", len(m.New)))
	}
	switch fc.step {
	case StepSessionStart, StepSessionEnd, StepRemember:
		if !r.on && fc.step != "" && !fc.own {
			*fc.tags = append(*fc.tags, "no-memory")
		}
	}
}

// newLines returns the lines of file that the injected copy does not hold.
func newLines(file, injected []string) []string {
	var out []string
	for _, l := range file {
		if !slices.Contains(injected, l) {
			out = append(out, l)
		}
	}
	return out
}
