package web

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web/httperr"
	"ctxsim/web/page"
	"ctxsim/web/uploads"
)

// library is the lessons a server serves and what preparing them made. It
// is replaced whole, never changed, when a lesson prepared after start-up
// joins (Server.Add), so handlers read it without a lock.
type library struct {
	list []*scenarios.Lesson
	byID map[string]*scenarios.Lesson
	// presets are preset policies run at start-up, while they fit
	// presetBlocks; presetRuns the same runs; presetKept the blocks they
	// hold.
	presets    map[runKey]*sim.Replay
	presetRuns map[*sim.Replay]bool
	presetKept int
	// reserve is, per lesson, the room below the box for the largest
	// overflow of its preset runs.
	reserve map[string]float64
	// pending are the ids of the lessons still being prepared, sorted.
	pending []string
}

func newLibrary() *library {
	return &library{byID: map[string]*scenarios.Lesson{}, presets: map[runKey]*sim.Replay{},
		presetRuns: map[*sim.Replay]bool{}, reserve: map[string]float64{}}
}

// clone is a copy of lib whose lists and maps the caller may change.
func (lib *library) clone() *library {
	return &library{list: slices.Clone(lib.list), byID: maps.Clone(lib.byID), presets: maps.Clone(lib.presets),
		presetRuns: maps.Clone(lib.presetRuns), presetKept: lib.presetKept, reserve: maps.Clone(lib.reserve),
		pending: slices.Clone(lib.pending)}
}

// lib is the server's library now.
func (s *Server) lib() *library { return s.library.Load() }

// has reports whether lib serves, or waits for, a lesson id.
func (lib *library) has(id string) bool {
	_, ok := lib.byID[id]
	return ok || slices.Contains(lib.pending, id)
}

// claim refuses an id lib has.
func (lib *library) claim(id string) error {
	if lib.has(id) {
		return fmt.Errorf("lesson %q is defined twice", id)
	}
	lib.byID[id] = nil // claimed; add sets it
	return nil
}

// add puts a prepared lesson into lib (a library no handler sees yet),
// keeping its runs while they fit presetBlocks.
func (lib *library) add(p *prepared) {
	l := p.l
	for _, k := range p.runs {
		lib.keep(l, k.p, k.r)
	}
	lib.reserve[l.ID] = p.reserve
	lib.list = append(lib.list, l)
	slices.SortStableFunc(lib.list, func(a, b *scenarios.Lesson) int { return a.Order - b.Order })
	lib.byID[l.ID] = l
	lib.pending = slices.DeleteFunc(lib.pending, func(id string) bool { return id == l.ID })
}

// Pending marks lessons the server will serve once Add or Drop settles
// them: until then their pages answer 503 with Retry-After, and the index
// says they are being prepared. An id it already serves is refused.
func (s *Server) Pending(ids ...string) error {
	s.addMu.Lock()
	defer s.addMu.Unlock()
	lib := s.lib().clone()
	for _, id := range ids {
		if lib.has(id) {
			return fmt.Errorf("lesson %q is defined twice", id)
		}
		lib.pending = append(lib.pending, id)
	}
	slices.Sort(lib.pending)
	s.publish(lib)
	return nil
}

// Add prepares l, as New prepares its lessons, and serves it from then on.
// Pages keep being served from the lessons before it meanwhile. It serves
// l as soon as its default run is checked (an imported session's first
// page waits for that only: 0.75 s of CPU from listening to ready for the
// real 3 MB session, where every preset first took 5.4 s), then runs and
// checks its other presets and keeps them, as New would have; until then
// they replay on demand.
func (s *Server) Add(l *scenarios.Lesson) error {
	if _, dup := s.lib().byID[l.ID]; dup {
		return fmt.Errorf("lesson %q is defined twice", l.ID)
	}
	p, err := s.prepare(l, true) // the lessons before it are served meanwhile
	if err != nil {
		return err
	}
	if err := s.join(p, true); err != nil {
		return err
	}
	def := p.runs[0]
	if frameBlocks(def.r) > s.longRun {
		s.log.Info("a long session: policies other than the default replay on demand", "lesson", l.ID, "presets", len(l.PresetPolicies()))
		return nil
	}
	if p, err = s.prepareOthers(l, def, p.check); err != nil {
		// Served already: its other policies replay on demand, and the
		// one that failed fails its pages as it failed here.
		s.log.Error("a preset policy of a lesson failed its check; the lesson is served, its other policies replay on demand", "lesson", l.ID, "err", err)
		return nil
	}
	return s.join(p, false)
}

// join serves p's lesson (first: it joins the library) or keeps the runs
// prepareOthers made of it.
func (s *Server) join(p *prepared, first bool) error {
	s.addMu.Lock()
	defer s.addMu.Unlock()
	lib := s.lib().clone()
	_, served := lib.byID[p.l.ID]
	switch {
	case first && served:
		return fmt.Errorf("lesson %q is defined twice", p.l.ID)
	case first:
		lib.add(p)
	default:
		for _, k := range p.runs {
			lib.keep(p.l, k.p, k.r)
		}
		lib.reserve[p.l.ID] = p.reserve
	}
	s.publish(lib)
	return nil
}

// Drop gives up a pending lesson (it failed to load): its pages answer 404.
func (s *Server) Drop(id string) {
	s.addMu.Lock()
	defer s.addMu.Unlock()
	lib := s.lib().clone()
	lib.pending = slices.DeleteFunc(lib.pending, func(p string) bool { return p == id })
	s.publish(lib)
}

// publish makes lib the server's library and forgets the pages rendered
// from the one before (the index lists the lessons).
func (s *Server) publish(lib *library) {
	s.library.Store(lib)
	s.caches.pages.Reset()
}

// lesson returns the lesson id names; a 503 while it is being prepared, a
// 404 when the server has no such lesson. An uploaded session is a lesson
// known only by its id (and this counts as its use).
func (s *Server) lesson(id string) (*scenarios.Lesson, error) {
	lib := s.lib()
	if l, ok := lib.byID[id]; ok {
		return l, nil
	}
	if s.uploads != nil && uploads.IsID(id) {
		u, err := s.uploads.Get(context.Background(), id)
		if err != nil {
			return nil, uploadErr(err)
		}
		return u.lesson, nil
	}
	if err := s.preparing(lib, id); err != nil {
		return nil, err
	}
	return nil, httperr.NoSuch("lesson " + httperr.Quote(id))
}

// preparing is the 503 of a lesson still being prepared, or nil.
func (s *Server) preparing(lib *library, id string) error {
	if !slices.Contains(lib.pending, id) {
		return nil
	}
	args := map[string]string{"id": id, "s": strconv.Itoa(preparingRetry)}
	return &httperr.Error{Code: httperr.Unavailable, RetryAfter: preparingRetry, Reload: true, Key: "ui.error.preparing", Args: args,
		Msg: "lesson " + httperr.Quote(id) + " is being prepared (an imported session is prepared after the server starts); ask again in " +
			strconv.Itoa(preparingRetry) + " seconds"}
}

// preparingRetry is the Retry-After, in seconds, of a lesson being prepared.
const preparingRetry = 3

// runKey names a preset run kept in the library.
type runKey struct {
	lesson string
	policy sim.Policy
}

// prepared is what preparing a lesson made: its preset runs, default
// first, and the room below its box.
type prepared struct {
	l       *scenarios.Lesson
	runs    []keptRun
	reserve float64
	check   float64 // the room the default run's check measured (Builder.Check)
}

type keptRun struct {
	p sim.Policy
	r *sim.Replay
}

// prepare runs every preset policy of l, checks that every frame's
// narration renders in every language, and measures the room below the
// window box that its largest overflow needs. A long session (its default
// run alone holds more than longRun blocks) is prepared under its default
// policy only: its other policies replay on demand through the bounded
// replay cache, and its box keeps the largest room class below it. So is
// a lesson prepared onlyDefault (an uploaded session: its visitor waits).
// The runs count against the run budget of the lesson's limits.
func (s *Server) prepare(l *scenarios.Lesson, onlyDefault bool) (*prepared, error) {
	if c, ok := s.tok.(interface{ CountAll([]string) }); ok {
		c.CountAll(l.Texts()) // on every CPU; the runs then look counts up
	}
	dp := l.DefaultPolicy()
	def, err := sim.Run(l.Lesson, dp, s.tok)
	if err != nil {
		return nil, fmt.Errorf("run lesson %s: %w", l.ID, err)
	}
	budget := l.RunBudget()
	if err := budget.Spend(def); err != nil {
		return nil, err
	}
	reserve, err := s.pages.Check(l, dp, def)
	if err != nil {
		return nil, fmt.Errorf("run lesson %s: %w", l.ID, err)
	}
	out := &prepared{l: l, runs: []keptRun{{dp, def}}, check: reserve}
	if onlyDefault || frameBlocks(def) > s.longRun {
		out.reserve = page.ReserveFor(max(reserve, page.BoxHeight))
		if !onlyDefault {
			s.log.Info("a long session: policies other than the default replay on demand", "lesson", l.ID, "presets", len(l.PresetPolicies()))
		}
		return out, nil
	}
	others, err := s.prepareOthers(l, out.runs[0], reserve)
	if err != nil {
		return nil, err
	}
	others.runs = append(out.runs, others.runs...)
	return others, nil
}

// prepareOthers runs and checks l's preset policies but the default (def),
// whose check measured reserve: their runs, and the room below the box
// they all need.
func (s *Server) prepareOthers(l *scenarios.Lesson, def keptRun, reserve float64) (*prepared, error) {
	budget := l.RunBudget()
	if err := budget.Spend(def.r); err != nil {
		return nil, err
	}
	out := &prepared{l: l}
	others := slices.DeleteFunc(l.PresetPolicies(), func(p sim.Policy) bool { return p == def.p })
	var mu sync.Mutex
	err := sim.RunEach(l.Lesson, others, s.tok, func(_ int, p sim.Policy, r *sim.Replay) error {
		if err := budget.Spend(r); err != nil {
			return err
		}
		res, err := s.pages.Check(l, p, r)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		reserve = max(reserve, res)
		out.runs = append(out.runs, keptRun{p, r})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run lesson %s: %w", l.ID, err)
	}
	out.reserve = page.ReserveFor(reserve)
	return out, nil
}

// prepareAll prepares ls, two lessons at a time per CPU (a lesson's own
// runs are parallel only past its default run), in their order.
func (s *Server) prepareAll(ls []*scenarios.Lesson) ([]*prepared, error) {
	out := make([]*prepared, len(ls))
	errs := make([]error, len(ls))
	sem := make(chan struct{}, 2*runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, l := range ls {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = s.prepare(l, false)
		})
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// keep keeps a preset run for the pages while the kept runs fit
// presetBlocks. The caller holds the lock, if several may call at once.
func (lib *library) keep(l *scenarios.Lesson, p sim.Policy, r *sim.Replay) {
	if n := r.Held(); lib.presetKept+n <= presetBlocks {
		lib.presetKept += n
		lib.presets[runKey{l.ID, p}], lib.presetRuns[r] = r, true
	}
}

// defaultLongRun is Config.LongRun when 0.
const defaultLongRun = 100_000

// presetBlocks bounds the blocks the preset runs kept from start-up hold
// (sim.Replay.Held: frames share their blocks), about 150 MB. It counted
// the blocks over all frames, so a long session's default run (a
// 2,000-turn session's frames draw 16 million blocks, its run holds
// 10,000) was not kept, and each of its pages replayed it.
const presetBlocks = 500_000

// frameBlocks is how many blocks the frames of r hold: what a replay costs
// in memory.
func frameBlocks(r *sim.Replay) int {
	n := 0
	for _, f := range r.Frames {
		n += f.BlockCount()
	}
	return n
}
