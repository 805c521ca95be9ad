package page

import (
	"sync"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views/catalog"
	"ctxsim/web/internal/testlessons"
)

// replays is the Runs of the tests: each run is replayed once and kept;
// the preset runs of the fixture's lessons count as kept from start-up,
// as a server keeps them, with the room below the box their overflows
// need.
type replays struct {
	tok sim.Tokenizer

	mu      sync.Mutex
	runs    map[string]*sim.Replay // lesson/policy → run
	kept    map[*sim.Replay]bool
	reserve map[string]float64
}

func newReplays(tok sim.Tokenizer) *replays {
	return &replays{tok: tok, runs: map[string]*sim.Replay{}, kept: map[*sim.Replay]bool{}, reserve: map[string]float64{}}
}

func (rs *replays) Run(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, error) {
	k := l.ID + "/" + p.String()
	rs.mu.Lock()
	r, ok := rs.runs[k]
	rs.mu.Unlock()
	if ok {
		return r, nil
	}
	r, err := sim.Run(l.Lesson, p, rs.tok)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if old, ok := rs.runs[k]; ok {
		return old, nil
	}
	rs.runs[k] = r
	return r, nil
}

func (rs *replays) Outline(l *scenarios.Lesson, p sim.Policy) ([]sim.Frame, error) {
	r, err := rs.Run(l, p)
	if err != nil {
		return nil, err
	}
	return r.Frames, nil
}

func (rs *replays) Kept(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, bool) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	r, ok := rs.runs[l.ID+"/"+p.String()]
	return r, ok && rs.kept[r]
}

func (rs *replays) IsKept(r *sim.Replay) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.kept[r]
}

func (rs *replays) Reserve(id string) float64 {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.reserve[id]
}

// fixture is the built-in lessons with a Builder over them, prepared as a
// server prepares them: every preset policy run and kept, every frame's
// narration checked in every language.
type fixture struct {
	lessons []*scenarios.Lesson
	byID    map[string]*scenarios.Lesson
	tok     sim.Tokenizer
	cat     *catalog.Catalog
	runs    *replays
	b       *Builder
}

// run is l replayed under p (kept).
func (s *fixture) run(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, error) {
	return s.runs.Run(l, p)
}

// runOnce is l replayed under p: the kept run when there is one, else a
// run kept by no one (a sweep's thousands of runs would hold gigabytes).
func (s *fixture) runOnce(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, error) {
	s.runs.mu.Lock()
	r, ok := s.runs.runs[l.ID+"/"+p.String()]
	s.runs.mu.Unlock()
	if ok {
		return r, nil
	}
	return sim.Run(l.Lesson, p, s.tok)
}

// builder is a Builder over the fixture's runs; static for a static copy's.
func (s *fixture) builder(static bool) *Builder {
	return New(Config{Catalog: s.cat, Tokens: s.tok, Runs: s.runs, Static: static})
}

// prepare is a fixture of lessons, prepared as a server prepares them.
func prepare(tok sim.Tokenizer, lessons []*scenarios.Lesson) (*fixture, error) {
	cat, err := catalog.Load()
	if err != nil {
		return nil, err
	}
	s := &fixture{lessons: lessons, byID: map[string]*scenarios.Lesson{}, tok: tok, cat: cat, runs: newReplays(tok)}
	s.b = s.builder(false)
	for _, l := range lessons {
		s.byID[l.ID] = l
		units := 0.0
		for _, p := range l.PresetPolicies() {
			r, err := s.run(l, p)
			if err != nil {
				return nil, err
			}
			res, err := s.b.Check(l, p, r)
			if err != nil {
				return nil, err
			}
			units = max(units, res)
			s.runs.kept[r] = true
		}
		s.runs.reserve[l.ID] = ReserveFor(units)
	}
	return s, nil
}

// shared is the built-in lessons, prepared once per test binary.
var shared = sync.OnceValues(func() (*fixture, error) {
	b, err := testlessons.Builtin()
	if err != nil {
		return nil, err
	}
	return prepare(b.Tokens, b.Lessons)
})

// newFixture returns the shared fixture.
func newFixture(t testing.TB) *fixture {
	t.Helper()
	s, err := shared()
	if err != nil {
		t.Fatalf("load lessons: %v", err)
	}
	return s
}

// languages are the languages of the pages.
func languages() []string { return scenarios.Languages }
