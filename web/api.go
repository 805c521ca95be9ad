package web

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"ctxsim/sim"
)

// The frames API: instructors' tooling and the tests read it. Field names
// are a contract; extend, never rename.

type lessonJSON struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

type framesJSON struct {
	Lesson          string      `json:"lesson"`
	Window          int         `json:"window"`
	ThresholdTokens int         `json:"threshold_tokens"`
	Policy          policyJSON  `json:"policy"`
	Frames          []frameJSON `json:"frames"`
}

type policyJSON struct {
	Compaction string `json:"compaction"`
	Memory     string `json:"memory"`
	Threshold  int    `json:"threshold"`
	Rec        int    `json:"rec"`
}

type frameJSON struct {
	Step           int         `json:"step"`
	Kind           string      `json:"kind"`
	TraceStep      string      `json:"trace_step"`
	TotalTokens    int         `json:"total_tokens"`
	Error          *string     `json:"error"`
	Blocks         []blockJSON `json:"blocks"`
	Pending        *blockJSON  `json:"pending,omitempty"`
	MemoryFile     []string    `json:"memory_file"`
	MemoryInjected []string    `json:"memory_injected"`
	Events         []sim.Event `json:"events"`
	Narration      []string    `json:"narration"`
	Session        int         `json:"session"`
}

type blockJSON struct {
	ID         string   `json:"id"`
	Role       string   `json:"role"`
	Kind       string   `json:"kind"`
	Tokens     int      `json:"tokens"`
	Content    string   `json:"content"`
	Selected   bool     `json:"selected,omitempty"`
	Recording  int      `json:"recording,omitempty"`
	Mechanical bool     `json:"mechanical,omitempty"`
	Provenance string   `json:"provenance,omitempty"`
	Covers     []string `json:"covers,omitempty"`
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
		return &NotFoundError{What: "lesson " + quote(c.Param("id"))}
	}
	p, err := ApplyQuery(l.Lesson, l.DefaultPolicy(), c.QueryParams())
	if err != nil {
		return err
	}
	frames, err := s.run(l, p)
	if err != nil {
		return err
	}
	doc := framesJSON{
		Lesson: l.ID, Window: l.Window, ThresholdTokens: l.ThresholdTokens(p.ThresholdPercent),
		Policy: policyJSON{onOffOf(p.Compaction), onOffOf(p.Memory), p.ThresholdPercent, p.Recording},
		Frames: make([]frameJSON, 0, len(frames)),
	}
	for _, f := range frames {
		doc.Frames = append(doc.Frames, frameOf(f))
	}
	return c.JSON(http.StatusOK, doc)
}

func frameOf(f sim.Frame) frameJSON {
	fj := frameJSON{
		Step: f.Step, Kind: string(f.Kind), TraceStep: f.TraceStep, TotalTokens: f.Total,
		Blocks: make([]blockJSON, 0, len(f.Blocks)), MemoryFile: nonNil(f.MemoryFile),
		MemoryInjected: nonNil(f.MemoryInjected), Events: f.Events, Narration: f.Narration, Session: f.Session,
	}
	if fj.Events == nil {
		fj.Events = []sim.Event{}
	}
	if f.Error != "" {
		e := f.Error
		fj.Error = &e
	}
	for _, b := range f.Blocks {
		fj.Blocks = append(fj.Blocks, blockOf(b))
	}
	if f.Pending != nil {
		b := blockOf(*f.Pending)
		fj.Pending = &b
	}
	return fj
}

func blockOf(b sim.Block) blockJSON {
	bj := blockJSON{ID: b.ID, Role: string(b.Role), Kind: string(b.Kind), Tokens: b.Tokens, Content: b.Content, Selected: b.Selected}
	if b.Summary != nil {
		bj.Recording, bj.Mechanical = b.Summary.Recording, b.Summary.Mechanical
		bj.Provenance, bj.Covers = b.Summary.Provenance.In("en"), b.Summary.Covers
	}
	return bj
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
