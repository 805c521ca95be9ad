package page

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// The frames API: instructors' tooling and the tests read it. Field names
// are a contract; extend, never rename. Every lesson gets the same shape;
// what a mechanism adds (threshold_tokens, a cost model, counters, block
// attributes such as tier and distance) appears only where the lesson has
// that mechanism.

// object is a JSON object whose fields keep their order.
type object []field

type field struct {
	name  string
	value any
}

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) { return appendJSON(nil, o) }

// appendJSON appends v as JSON, the bytes encoding/json writes for it
// (HTML characters escaped). The API's shapes are written directly; other
// values go through encoding/json.
func appendJSON(b []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case object:
		b = append(b, '{')
		for i, f := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.name)
			b = append(b, ':')
			if b, err = appendJSON(b, f.value); err != nil {
				return nil, fmt.Errorf("field %s: %w", f.name, err)
			}
		}
		return append(b, '}'), nil
	case []object:
		b = append(b, '[')
		for i, o := range v {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = appendJSON(b, o); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case string:
		return appendString(b, v), nil
	case sim.Role:
		return appendString(b, string(v)), nil
	case sim.Kind:
		return appendString(b, string(v)), nil
	case int:
		return strconv.AppendInt(b, int64(v), 10), nil
	case bool:
		return strconv.AppendBool(b, v), nil
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, x := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, x)
		}
		return append(b, ']'), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, j...), nil
}

// appendString appends s as a JSON string, escaped as encoding/json
// escapes it: quotes, backslashes and control characters; <, > and & (HTML);
// U+2028 and U+2029; invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	done := 0 // s[:done] is written
	for i := 0; i < len(s); {
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		b = append(b, s[done:i]...)
		n := 1
		if c < utf8.RuneSelf {
			b = appendEscape(b, c)
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && n == 1:
				b = append(b, badRune...)
			case r == '\u2028' || r == '\u2029':
				b = append(b, `\u202`...)
				b = append(b, hexDigits[r&0xf])
			default:
				b = append(b, s[i:i+n]...)
			}
		}
		i += n
		done = i
	}
	b = append(b, s[done:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// badRune is how encoding/json writes a byte that is not UTF-8: the escape
// \ufffd before Go 1.27, U+FFFD itself since. Asked once, so the frames
// API writes what encoding/json writes under whichever toolchain built it.
var badRune = func() string {
	q, _ := json.Marshal("\xff")
	return string(q[1 : len(q)-1])
}()

// appendEscape appends the escape of an ASCII byte JSON or HTML would
// not take as it is.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\f':
		return append(b, '\\', 'f')
	case '\n':
		return append(b, '\\', 'n')
	case '\r':
		return append(b, '\\', 'r')
	case '\t':
		return append(b, '\\', 't')
	}
	return append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
}

// plainJSON marks the ASCII bytes a JSON string holds as they are.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// objectOf turns run-level fields into objects ([]sim.Field nests).
func objectOf(fs []sim.Field) object {
	out := make(object, 0, len(fs))
	for _, f := range fs {
		v := f.Value
		if nested, ok := v.([]sim.Field); ok {
			v = objectOf(nested)
		}
		out = append(out, field{f.Name, v})
	}
	return out
}

// Frames is the frames API's document of l's run r under p: the lesson,
// the window, the run's fields, the policy, then every frame.
func (b *Builder) Frames(l *scenarios.Lesson, p sim.Policy, r *sim.Replay) ([]byte, error) {
	var buf bytes.Buffer
	if err := b.WriteFrames(&buf, l, p, r, Span{}); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Span is the frames an answer of the frames API holds: steps From to To,
// 1-based, both included. The zero Span is every frame (and the document
// as it has always been); a span names the run's frame count in
// frame_count, after the policy.
type Span struct{ From, To int }

// all reports whether s is the whole run.
func (s Span) all() bool { return s == Span{} }

// flushAt is how much of the document the writer holds before it hands it
// on: what one answer keeps in memory besides the frame it is writing.
const flushAt = 32 << 10

// WriteFrames writes the frames API's document of l's run r under p (the
// frames of sp) to out, frame by frame: it holds one frame's blocks and a
// small buffer at a time, whatever the run's length. An error before
// anything reached out (a run-level field encoding/json cannot write)
// leaves out untouched; sp must lie within the run.
func (b *Builder) WriteFrames(out io.Writer, l *scenarios.Lesson, p sim.Policy, r *sim.Replay, sp Span) error {
	en := b.cat.For("en")
	from, to := 0, len(r.Frames)
	if !sp.all() {
		if sp.From < 1 || sp.To < sp.From || sp.To > len(r.Frames) {
			return fmt.Errorf("frames of %s: frames %d to %d of %d", l.ID, sp.From, sp.To, len(r.Frames))
		}
		from, to = sp.From-1, sp.To
	}
	w := &jsonw{b: make([]byte, 0, flushAt+flushAt/2)}
	if l.Sizes == scenarios.SizesProvider {
		w.o200k = b.tok.Count // each block's text counted beside the provider's size
	}
	w.open()
	w.str("lesson", l.ID)
	w.int("window", r.Window)
	for _, f := range r.Fields {
		w.value(f.Name, f.Value)
	}
	w.key("policy")
	w.open()
	for _, nv := range p.Values() {
		w.str(nv[0], nv[1])
	}
	w.close()
	if !sp.all() {
		w.int("frame_count", len(r.Frames))
	}
	if w.err != nil {
		return fmt.Errorf("frames of %s: %w", l.ID, w.err)
	}
	w.out = out
	mechanical := en.T("origin.mechanical")
	w.list("frames", to-from, func(i int) {
		w.frame(&r.Frames[from+i], mechanical)
		w.flush(flushAt)
	})
	w.close()
	w.b = append(w.b, '\n')
	w.flush(0)
	if w.err != nil {
		return fmt.Errorf("frames of %s: %w", l.ID, w.err)
	}
	return nil
}

// jsonw writes a JSON document field by field, in the order the contract
// has always written them, into a buffer it hands on to out (when set)
// once it holds more than a flush asks for.
type jsonw struct {
	b     []byte
	out   io.Writer // nil: the document stays in b
	first bool      // the next key is the first of its object
	err   error     // the first value encoding/json could not write, or out's error
	// o200k counts a block's text for its o200k attribute: a session sized
	// by the provider's counts (nil: none).
	o200k func(string) int
}

// flush hands the buffer on to out when it holds more than n bytes.
func (w *jsonw) flush(n int) {
	if w.out == nil || len(w.b) <= n || w.err != nil {
		return
	}
	if _, err := w.out.Write(w.b); err != nil {
		w.err = err
	}
	w.b = w.b[:0]
}

func (w *jsonw) open()  { w.b, w.first = append(w.b, '{'), true }
func (w *jsonw) close() { w.b, w.first = append(w.b, '}'), false }

// key starts a field.
func (w *jsonw) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = append(appendString(w.b, k), ':')
}

func (w *jsonw) str(k, v string)     { w.key(k); w.b = appendString(w.b, v) }
func (w *jsonw) int(k string, v int) { w.key(k); w.b = strconv.AppendInt(w.b, int64(v), 10) }
func (w *jsonw) bool(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}

// strs writes a list of strings (null for nil).
func (w *jsonw) strs(k string, v []string) {
	w.key(k)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '[')
	for i, x := range v {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.b = appendString(w.b, x)
	}
	w.b = append(w.b, ']')
}

// value writes any value ([]sim.Field as an object).
func (w *jsonw) value(k string, v any) {
	if nested, ok := v.([]sim.Field); ok {
		v = objectOf(nested)
	}
	w.key(k)
	var err error
	if w.b, err = appendJSON(w.b, v); err != nil && w.err == nil {
		w.err = fmt.Errorf("field %s: %w", k, err)
	}
}

// list writes n items, each written by item.
func (w *jsonw) list(k string, n int, item func(i int)) {
	w.key(k)
	w.b = append(w.b, '[')
	for i := range n {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		item(i)
	}
	w.b = append(w.b, ']')
}

// frame writes a frame: the contract's fields, with the typed payloads its
// mechanisms add (payloads.go) where the contract has them.
func (w *jsonw) frame(f *sim.Frame, mechanical string) {
	w.open()
	w.int("step", f.Step)
	w.str("kind", string(f.Kind))
	w.str("trace_step", f.TraceStep)
	w.int("total_tokens", f.Total)
	if f.Error != "" {
		w.str("error", f.Error)
	} else {
		w.value("error", nil)
	}
	bs := f.Blocks()
	w.list("blocks", len(bs), func(i int) { w.block(&bs[i], mechanical) })
	if f.Pending != nil {
		w.key("pending")
		w.block(f.Pending, mechanical)
	}
	for _, pl := range payloads {
		if pl.early {
			pl.json(w, f, mechanical)
		}
	}
	w.list("events", len(f.Events), func(i int) { w.event(&f.Events[i]) })
	w.strs("narration", f.Narration)
	w.int("session", f.Session)
	for _, pl := range payloads {
		if !pl.early {
			pl.json(w, f, mechanical)
		}
	}
	w.close()
}

// event writes an event: its type, then the fields it has.
func (w *jsonw) event(e *sim.Event) {
	w.open()
	w.str("type", e.Type)
	if e.Tokens != 0 {
		w.int("tokens", e.Tokens)
	}
	if e.Fact != "" {
		w.str("fact", e.Fact)
	}
	if e.Found != nil {
		w.bool("found", *e.Found)
	}
	if e.Reason != "" {
		w.str("reason", e.Reason)
	}
	if e.Line != "" {
		w.str("line", e.Line)
	}
	if e.Block != "" {
		w.str("block", e.Block)
	}
	if e.Tier != 0 {
		w.int("tier", e.Tier)
	}
	if e.Index != nil {
		w.int("index", *e.Index)
	}
	w.close()
}

// block writes a block: the contract's fields, then the attributes its
// mechanisms gave it.
func (w *jsonw) block(b *sim.Block, mechanical string) {
	w.open()
	w.str("id", b.ID)
	w.str("role", string(b.Role))
	w.str("kind", string(b.Kind))
	w.int("tokens", b.Tokens)
	w.str("content", b.Content)
	if b.Selected {
		w.bool("selected", true)
	}
	if s := b.Summary; s != nil {
		if s.Version > 0 {
			w.int("recording", s.Version)
		}
		if s.Mechanical {
			w.bool("mechanical", true)
			w.str("provenance", mechanical)
		} else if p := s.Provenance.In("en"); p != "" {
			w.str("provenance", p)
		}
		if s.ModelWritten {
			w.bool("recorded", true)
		}
		w.strs("covers", s.Covers)
	}
	if b.Tool != "" {
		w.str("tool", b.Tool)
	}
	if b.ToolUseID != "" {
		w.str("tool_use_id", b.ToolUseID)
	}
	for _, a := range b.Attrs {
		w.int(a.Name, a.Value)
	}
	if w.o200k != nil && b.Content != "" {
		w.int("o200k", w.o200k(b.Content))
	}
	w.close()
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
