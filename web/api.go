package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"ctxsim/sim"
)

// The frames API: instructors' tooling and the tests read it. Field names
// are a contract; extend, never rename. Every lesson gets the same shape;
// what a mechanism adds (threshold_tokens, a cost model, counters, block
// attributes such as tier and distance) appears only where the lesson has
// that mechanism.

type lessonJSON struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

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
				b = append(b, `\ufffd`...)
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

func (s *Server) lessonsJSON() []lessonJSON {
	out := make([]lessonJSON, 0, len(s.lessons.list))
	for _, l := range s.lessons.list {
		out = append(out, lessonJSON{ID: l.ID, Title: l.Title.In("en")})
	}
	return out
}

func (s *Server) apiLessons(c echo.Context) error {
	return c.JSON(http.StatusOK, s.lessonsJSON())
}

func (s *Server) apiFrames(c echo.Context) error {
	l, ok := s.lessons.byID[c.Param("id")]
	if !ok {
		return notFound("lesson " + quote(c.Param("id")))
	}
	p, err := ApplyQuery(l.Lesson, l.DefaultPolicy(), c.QueryParams())
	if err != nil {
		return err
	}
	r, err := s.run(l, p)
	if err != nil {
		return err
	}
	policy := object{}
	for _, nv := range p.Values() {
		policy = append(policy, field{nv[0], nv[1]})
	}
	doc := object{{"lesson", l.ID}, {"window", l.Window}}
	doc = append(doc, objectOf(r.Fields)...)
	frames := make([]object, 0, len(r.Frames))
	en := s.cat.For("en")
	for i := range r.Frames {
		frames = append(frames, frameOf(&r.Frames[i], en.T("origin.mechanical")))
	}
	doc = append(doc, field{"policy", policy}, field{"frames", frames})
	body, err := appendJSON(make([]byte, 0, 64<<10), doc)
	if err != nil {
		return fmt.Errorf("frames of %s: %w", l.ID, err)
	}
	return c.JSONBlob(http.StatusOK, append(body, '\n'))
}

// frameOf is a frame in the API, its fields in the order the contract has
// always written them.
func frameOf(f *sim.Frame, mechanical string) object {
	blocks := make([]object, 0, len(f.Blocks))
	for i := range f.Blocks {
		blocks = append(blocks, blockOf(&f.Blocks[i], mechanical))
	}
	var errText any
	if f.Error != "" {
		errText = f.Error
	}
	events := make([]object, 0, len(f.Events))
	for i := range f.Events {
		events = append(events, eventOf(&f.Events[i]))
	}
	file, injected := []string{}, []string{}
	if m := f.Memory; m != nil {
		file, injected = nonNil(m.File), nonNil(m.Injected)
	}
	o := make(object, 0, 14)
	o = append(o, field{"step", f.Step}, field{"kind", string(f.Kind)}, field{"trace_step", f.TraceStep},
		field{"total_tokens", f.Total}, field{"error", errText}, field{"blocks", blocks})
	if f.Pending != nil {
		o = append(o, field{"pending", blockOf(f.Pending, mechanical)})
	}
	o = append(o, field{"memory_file", file}, field{"memory_injected", injected}, field{"events", events},
		field{"narration", f.Narration}, field{"session", f.Session})
	if c := f.Cache; c != nil {
		cache := object{{"reused_tokens", c.ReusedTokens}, {"recomputed_tokens", c.RecomputedTokens},
			{"reused_blocks", c.ReusedBlocks}}
		if c.FirstChanged != "" {
			cache = append(cache, field{"first_changed", c.FirstChanged})
		}
		o = append(o, field{"cache", append(cache, field{"reason", c.Reason})})
	}
	if len(f.Counters) > 0 {
		var counters object
		for _, c := range f.Counters {
			counters = append(counters, field{c.Name, c.Value})
			if c.ByName != "" {
				counters = append(counters, field{c.ByName, c.By})
			}
		}
		o = append(o, field{"counters", counters})
	}
	return o
}

// eventOf is an event in the API: its type, then the fields it has.
func eventOf(e *sim.Event) object {
	o := object{{"type", e.Type}}
	add := func(name string, v any, has bool) {
		if has {
			o = append(o, field{name, v})
		}
	}
	add("tokens", e.Tokens, e.Tokens != 0)
	add("fact", e.Fact, e.Fact != "")
	if e.Found != nil {
		add("found", *e.Found, true)
	}
	add("reason", e.Reason, e.Reason != "")
	add("line", e.Line, e.Line != "")
	add("block", e.Block, e.Block != "")
	add("tier", e.Tier, e.Tier != 0)
	if e.Index != nil {
		add("index", *e.Index, true)
	}
	return o
}

// blockOf is a block in the API: the contract's fields, then the
// attributes its mechanisms gave it.
func blockOf(b *sim.Block, mechanical string) object {
	o := object{{"id", b.ID}, {"role", b.Role}, {"kind", b.Kind}, {"tokens", b.Tokens}, {"content", b.Content}}
	if b.Selected {
		o = append(o, field{"selected", true})
	}
	if s := b.Summary; s != nil {
		if s.Version > 0 {
			o = append(o, field{"recording", s.Version})
		}
		if s.Mechanical {
			o = append(o, field{"mechanical", true}, field{"provenance", mechanical})
		} else if p := s.Provenance.In("en"); p != "" {
			o = append(o, field{"provenance", p})
		}
		if s.Recorded {
			o = append(o, field{"recorded", true})
		}
		o = append(o, field{"covers", s.Covers})
	}
	if b.Tool != "" {
		o = append(o, field{"tool", b.Tool})
	}
	if b.ToolUseID != "" {
		o = append(o, field{"tool_use_id", b.ToolUseID})
	}
	for _, a := range b.Attrs {
		o = append(o, field{a.Name, a.Value})
	}
	return o
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
