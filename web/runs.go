package web

import (
	"fmt"
	"sync/atomic"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web/internal/lru"
	"ctxsim/web/uploads"
)

// runs are the lessons' runs as the pages ask for them (page.Runs): the
// runs kept while a lesson is served (a keeper), else replays kept in a
// bounded cache, computed on a miss. The server's runs keep the preset
// runs of its library; an uploaded session has runs of its own (its
// default run kept, its own small caches), which leave memory with it:
// the server's runs send its lessons there (upload).
type runs struct {
	keep    keeper
	tok     sim.Tokenizer
	replays *lru.Cache[*sim.Replay]
	// outlines are the frames of runs without their contents, by policy.
	outlines *lru.Cache[*outline]
	// upload finds the runs of an uploaded session; nil for those runs
	// themselves.
	upload func(id string) (*runs, error)
}

// keeper is what runs keep for as long as a lesson is served.
type keeper interface {
	// kept is the run of l under p, if kept.
	kept(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, bool)
	// isKept reports whether r is such a run.
	isKept(r *sim.Replay) bool
	// reserve is the room below the box lesson id's kept runs need.
	reserve(id string) float64
}

// libKeeper keeps the preset runs of the server's library.
type libKeeper struct{ lib *atomic.Pointer[library] }

func (k libKeeper) kept(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, bool) {
	r, ok := k.lib.Load().presets[runKey{l.ID, p}]
	return r, ok
}
func (k libKeeper) isKept(r *sim.Replay) bool { return k.lib.Load().presetRuns[r] }
func (k libKeeper) reserve(id string) float64 { return k.lib.Load().reserve[id] }

// outline is the frames of a run with only their step, kind and trace
// step.
type outline struct{ frames []sim.Frame }

// outlineRuns bounds the outlines of runs kept (a few KB each).
const outlineRuns = 4096

// runBlocks is how many blocks (over all frames) count as one run in the
// replay cache: a shipped lesson's replay holds fewer, a long imported
// session's many times more.
const runBlocks = 2000

// replayCost is what r weighs in the replay cache, in runs.
func replayCost(r *sim.Replay) int64 { return int64(max(1, frameBlocks(r)/runBlocks)) }

func newRuns(lib *atomic.Pointer[library], tok sim.Tokenizer, cfg Config) *runs {
	n := int64(cfg.ReplayCacheRuns)
	if n == 0 {
		n = defaultReplayCacheRuns
	}
	return &runs{keep: libKeeper{lib}, tok: tok, replays: lru.New[*sim.Replay](n), outlines: lru.New[*outline](outlineRuns)}
}

// of is the runs lesson l's runs are kept in: an uploaded session's own,
// or rs. An uploaded session that is gone has none: its runs are never
// made or kept anywhere else.
func (rs *runs) of(l *scenarios.Lesson) (*runs, error) {
	if rs.upload == nil || !uploads.IsID(l.ID) {
		return rs, nil
	}
	return rs.upload(l.ID)
}

// Run returns l replayed under p: from the kept runs, else from the replay
// cache, computed on a miss. A page of a typed policy asks for its run
// several times and for one run per mode link; replays are immutable, so
// they are shared.
func (rs *runs) Run(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, error) {
	rs, err := rs.of(l)
	if err != nil {
		return nil, err
	}
	if r, ok := rs.keep.kept(l, p); ok {
		return r, nil
	}
	return rs.replays.GetOrMake(l.ID+"/"+p.String(), func() (*sim.Replay, int64, error) {
		r, err := sim.Run(l.Lesson, p, rs.tok)
		if err != nil {
			return nil, 0, fmt.Errorf("run lesson %s under %s: %w", l.ID, p, err)
		}
		return r, replayCost(r), nil
	})
}

// Outline returns the frames of l under p with only their step, kind and
// trace step: what links that keep the point of the trace need. It is
// kept apart from the run (a long session's run is large; its outline is
// not), so a page's mode links do not hold or redo every option's run.
func (rs *runs) Outline(l *scenarios.Lesson, p sim.Policy) ([]sim.Frame, error) {
	rs, err := rs.of(l)
	if err != nil {
		return nil, err
	}
	if r, ok := rs.keep.kept(l, p); ok {
		return r.Frames, nil
	}
	o, err := rs.outlines.GetOrMake(l.ID+"/"+p.String(), func() (*outline, int64, error) {
		r, ok := rs.replays.Get(l.ID + "/" + p.String())
		if !ok {
			// Not kept: a link's target is replayed for its outline only.
			var err error
			if r, err = sim.Run(l.Lesson, p, rs.tok); err != nil {
				return nil, 0, fmt.Errorf("run lesson %s under %s: %w", l.ID, p, err)
			}
		}
		o := &outline{frames: make([]sim.Frame, len(r.Frames))}
		for i, f := range r.Frames {
			o.frames[i] = sim.Frame{Step: f.Step, Kind: f.Kind, TraceStep: f.TraceStep}
		}
		return o, 1, nil
	})
	if err != nil {
		return nil, err
	}
	return o.frames, nil
}

// Kept is the run of l under p kept while l is served, if it is.
func (rs *runs) Kept(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, bool) {
	rs, err := rs.of(l)
	if err != nil {
		return nil, false
	}
	return rs.keep.kept(l, p)
}

// IsKept reports whether r is a preset run kept from start-up: such a run
// lives as long as the server, so what is derived from it (timelines) may
// be kept too. An uploaded session's runs never are: nothing derived from
// them may outlive it.
func (rs *runs) IsKept(r *sim.Replay) bool { return rs.keep.isKept(r) }

// Reserve is the room below the box lesson id's kept runs need.
func (rs *runs) Reserve(id string) float64 {
	if rs.upload != nil && uploads.IsID(id) {
		u, err := rs.upload(id)
		if err != nil {
			return 0
		}
		return u.keep.reserve(id)
	}
	return rs.keep.reserve(id)
}
