package web

import (
	"math"
	"net/http"
	"strconv"

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
	Lesson          string            `json:"lesson"`
	Window          int               `json:"window"`
	ThresholdTokens int               `json:"threshold_tokens"`
	Policy          map[string]string `json:"policy"`
	Frames          []frameJSON       `json:"frames"`
	CostModel       *costJSON         `json:"cost_model,omitempty"`
	Measured        *measuredJSON     `json:"measured,omitempty"`
}

// costJSON is the status lesson's replace-versus-append estimate.
type costJSON struct {
	S        float64 `json:"S"`
	R        float64 `json:"R"`
	N        int     `json:"N"`
	Alpha    float64 `json:"alpha"`
	CReplace float64 `json:"c_replace"`
	CAppend  float64 `json:"c_append"`
}

// measuredJSON is the same costs summed from the simulated frames.
type measuredJSON struct {
	CReplace float64 `json:"c_replace"`
	CAppend  float64 `json:"c_append"`
}

type cacheJSON struct {
	ReusedTokens     int    `json:"reused_tokens"`
	RecomputedTokens int    `json:"recomputed_tokens"`
	ReusedBlocks     int    `json:"reused_blocks"`
	FirstChanged     string `json:"first_changed,omitempty"`
	Reason           string `json:"reason"`
}

type frameJSON struct {
	Step           int           `json:"step"`
	Kind           string        `json:"kind"`
	TraceStep      string        `json:"trace_step"`
	TotalTokens    int           `json:"total_tokens"`
	Error          *string       `json:"error"`
	Blocks         []blockJSON   `json:"blocks"`
	Pending        *blockJSON    `json:"pending,omitempty"`
	MemoryFile     []string      `json:"memory_file"`
	MemoryInjected []string      `json:"memory_injected"`
	Events         []sim.Event   `json:"events"`
	Narration      []string      `json:"narration"`
	Session        int           `json:"session"`
	Cache          *cacheJSON    `json:"cache,omitempty"`
	Counters       *countersJSON `json:"counters,omitempty"`
}

type countersJSON struct {
	TokensSaved        int            `json:"tokens_saved"`
	CompressionCalls   int            `json:"compression_calls"`
	Rereads            int            `json:"rereads"`
	RoundTrips         int            `json:"round_trips"`
	CacheInvalidations int            `json:"cache_invalidations"`
	ByTier             map[string]int `json:"cache_invalidations_by_tier"`
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
	Tool       string   `json:"tool,omitempty"`
	ToolUseID  string   `json:"tool_use_id,omitempty"`
	Chars      *int     `json:"chars,omitempty"`
	Tier       *int     `json:"tier,omitempty"`
	Distance   *int     `json:"distance,omitempty"`
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
		Policy: map[string]string{}, Frames: make([]frameJSON, 0, len(frames)),
	}
	for _, pr := range sim.ParamsOf(l.Lesson) {
		doc.Policy[pr.Name] = pr.Get(p)
	}
	tiered := l.Engine == sim.EngineTiered
	for _, f := range frames {
		doc.Frames = append(doc.Frames, frameOf(f, tiered))
	}
	if l.Engine == sim.EngineStatus {
		cm := s.costModel(l, p)
		doc.CostModel = &costJSON{S: round2(cm.S), R: round2(cm.R), N: cm.N, Alpha: cm.Alpha, CReplace: round2(cm.CReplace), CAppend: round2(cm.CAppend)}
		doc.Measured = &measuredJSON{CReplace: round2(cm.MeasuredReplace), CAppend: round2(cm.MeasuredAppend)}
	}
	return c.JSON(http.StatusOK, doc)
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

func frameOf(f sim.Frame, tiered bool) frameJSON {
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
		fj.Blocks = append(fj.Blocks, blockOf(b, tiered))
	}
	if f.Pending != nil {
		b := blockOf(*f.Pending, tiered)
		fj.Pending = &b
	}
	if c := f.Cache; c != nil {
		fj.Cache = &cacheJSON{ReusedTokens: c.ReusedTokens, RecomputedTokens: c.RecomputedTokens,
			ReusedBlocks: c.ReusedBlocks, FirstChanged: c.FirstChanged, Reason: c.Reason}
	}
	if c := f.Counters; c != nil {
		cj := &countersJSON{TokensSaved: c.TokensSaved, CompressionCalls: c.CompressionCalls,
			Rereads: c.Rereads, RoundTrips: c.RoundTrips, ByTier: map[string]int{}}
		for tier, n := range c.CacheInvalidations {
			cj.CacheInvalidations += n
			cj.ByTier[strconv.Itoa(tier)] = n
		}
		fj.Counters = cj
	}
	return fj
}

func blockOf(b sim.Block, tiered bool) blockJSON {
	bj := blockJSON{ID: b.ID, Role: string(b.Role), Kind: string(b.Kind), Tokens: b.Tokens, Content: b.Content,
		Selected: b.Selected, Tool: b.Tool, ToolUseID: b.ToolUseID}
	if tiered && b.Role == sim.RoleTool {
		chars, tier, dist := b.Chars, b.Tier, b.Distance
		bj.Chars, bj.Tier, bj.Distance = &chars, &tier, &dist
	}
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
