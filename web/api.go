package web

import (
	"bytes"
	"encoding/json"
	"net/http"

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

type cacheJSON struct {
	ReusedTokens     int    `json:"reused_tokens"`
	RecomputedTokens int    `json:"recomputed_tokens"`
	ReusedBlocks     int    `json:"reused_blocks"`
	FirstChanged     string `json:"first_changed,omitempty"`
	Reason           string `json:"reason"`
}

type frameJSON struct {
	Step           int         `json:"step"`
	Kind           string      `json:"kind"`
	TraceStep      string      `json:"trace_step"`
	TotalTokens    int         `json:"total_tokens"`
	Error          *string     `json:"error"`
	Blocks         []object    `json:"blocks"`
	Pending        object      `json:"pending,omitempty"`
	MemoryFile     []string    `json:"memory_file"`
	MemoryInjected []string    `json:"memory_injected"`
	Events         []sim.Event `json:"events"`
	Narration      []string    `json:"narration"`
	Session        int         `json:"session"`
	Cache          *cacheJSON  `json:"cache,omitempty"`
	Counters       object      `json:"counters,omitempty"`
}

// object is a JSON object whose fields keep their order.
type object []field

type field struct {
	name  string
	value any
}

// MarshalJSON writes the fields in order.
func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.name)
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

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
	frames := make([]frameJSON, 0, len(r.Frames))
	en := s.cat.For("en")
	for _, f := range r.Frames {
		frames = append(frames, frameOf(f, en.T("origin.mechanical")))
	}
	doc = append(doc, field{"policy", policy}, field{"frames", frames})
	return c.JSON(http.StatusOK, doc)
}

func frameOf(f sim.Frame, mechanical string) frameJSON {
	fj := frameJSON{
		Step: f.Step, Kind: string(f.Kind), TraceStep: f.TraceStep, TotalTokens: f.Total,
		Blocks: make([]object, 0, len(f.Blocks)), MemoryFile: []string{}, MemoryInjected: []string{},
		Events: f.Events, Narration: f.Narration, Session: f.Session,
	}
	if fj.Events == nil {
		fj.Events = []sim.Event{}
	}
	if m := f.Memory; m != nil {
		fj.MemoryFile, fj.MemoryInjected = nonNil(m.File), nonNil(m.Injected)
	}
	if f.Error != "" {
		e := f.Error
		fj.Error = &e
	}
	for i := range f.Blocks {
		fj.Blocks = append(fj.Blocks, blockOf(&f.Blocks[i], mechanical))
	}
	if f.Pending != nil {
		fj.Pending = blockOf(f.Pending, mechanical)
	}
	if c := f.Cache; c != nil {
		fj.Cache = &cacheJSON{ReusedTokens: c.ReusedTokens, RecomputedTokens: c.RecomputedTokens,
			ReusedBlocks: c.ReusedBlocks, FirstChanged: c.FirstChanged, Reason: c.Reason}
	}
	for _, c := range f.Counters {
		fj.Counters = append(fj.Counters, field{c.Name, c.Value})
		if c.ByName != "" {
			fj.Counters = append(fj.Counters, field{c.ByName, c.By})
		}
	}
	return fj
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
