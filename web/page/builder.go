// Package page builds what a lesson state shows: the view model of every
// page (the lesson page, the presenter view, the speaker notes, a
// comparison, the handout, the lesson list), from a lesson, a State and the
// runs a Runs gives. It knows no lesson and no mechanism: it lays out
// blocks (or call + result rows), turns badges, panels, events and figures
// into words through the catalog, and renders the narration the lesson
// gives for the frame. It needs no HTTP server: package web serves what it
// builds.
package page

import (
	"log/slog"
	"strings"
	"sync"

	"github.com/a-h/templ"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/views/catalog"
)

// Runs is what the page builder asks of the lessons' runs. The server
// answers from the runs it kept at start-up and its bounded caches; a test
// may answer by replaying.
type Runs interface {
	// Run is l replayed under p.
	Run(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, error)
	// Outline is the frames of l under p with only their Step, Kind and
	// TraceStep: what links that keep the point of the trace need.
	Outline(l *scenarios.Lesson, p sim.Policy) ([]sim.Frame, error)
	// Kept is the run of l under p kept from start-up, if it is kept.
	Kept(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, bool)
	// IsKept reports whether r is a run kept from start-up: such a run
	// lives as long as its lesson, so what is derived from it (timelines,
	// a static copy's windows) may be kept too.
	IsKept(r *sim.Replay) bool
	// Reserve is the room below the window box that lesson id needs (see
	// Builder.Check and ReserveFor), in drawing units.
	Reserve(id string) float64
}

// Config is what a Builder is built from.
type Config struct {
	Catalog *catalog.Catalog // the page's words
	Tokens  sim.Tokenizer    // counts texts; shared, safe for concurrent use
	Runs    Runs
	Assets  views.Assets // what pages link to
	Log     *slog.Logger // where a section that fails to render is reported; none when nil
	// Static builds the pages of a static copy (ctxsim export): no rooms,
	// notes where a control needs the server, and links only to the
	// comparisons a static copy holds (CopyPairs).
	Static bool
	// Texts keeps the block texts the pages link to; none when nil.
	Texts TextKeeper
}

// Builder builds pages. It is safe for concurrent use; it keeps only what
// derives from kept runs (timelines, and a static copy's windows and
// headlines).
type Builder struct {
	cat    *catalog.Catalog
	tok    sim.Tokenizer
	runs   Runs
	assets views.Assets
	log    *slog.Logger
	static bool
	texts  TextKeeper
	// timelines keeps alignRuns of pairs of kept runs ([2]*sim.Replay →
	// []pair).
	timelines sync.Map
	pairs     sync.Map   // *scenarios.Lesson → whether it draws a second window (drawsPair)
	copies    sync.Map   // *scenarios.Lesson → *copySet, in a static copy only (copyOf)
	memo      *frameMemo // a static copy's windows and headlines; nil for a live server
}

// New returns a Builder over cfg.
func New(cfg Config) *Builder {
	b := &Builder{cat: cfg.Catalog, tok: cfg.Tokens, runs: cfg.Runs, assets: cfg.Assets, log: cfg.Log, static: cfg.Static, texts: cfg.Texts}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	if b.static {
		b.memo = newFrameMemo()
	}
	return b
}

// input is what the page builders need: a lesson, a state and the run of
// its (left) policy.
type input struct {
	lesson *scenarios.Lesson
	state  State
	run    *sim.Replay
}

// Page builds the page of one state of l in its view: the lesson page, the
// presenter view, the speaker notes, or a comparison of two policies.
func (b *Builder) Page(l *scenarios.Lesson, st State) (templ.Component, error) {
	ra, err := b.runs.Run(l, st.Policy)
	if err != nil {
		return nil, err
	}
	in := input{lesson: l, state: st, run: ra}
	if st.Compare != nil {
		return b.compareView(in)
	}
	switch st.View {
	case ViewPresent:
		p, err := b.presentPage(in)
		return views.Present(p), err
	case ViewNotes:
		p, err := b.notesPage(in)
		return views.Notes(p), err
	}
	p, err := b.lessonPage(in)
	return views.Lesson(p), err
}

// compareView builds two policies side by side at one position of their
// aligned timeline.
func (b *Builder) compareView(in input) (templ.Component, error) {
	rb, err := b.runs.Run(in.lesson, *in.state.Compare)
	if err != nil {
		return nil, err
	}
	cp, pp, err := b.comparePage(in, rb)
	if err != nil {
		return nil, err
	}
	if pp != nil {
		return views.Present(*pp), nil
	}
	return views.Compare(cp), nil
}

// Handout builds the printable handout of l under st's policy.
func (b *Builder) Handout(l *scenarios.Lesson, st State) (templ.Component, error) {
	r, err := b.runs.Run(l, st.Policy)
	if err != nil {
		return nil, err
	}
	return views.Handout(b.handoutPage(input{lesson: l, state: st, run: r})), nil
}

// Index builds the lesson list in lang; pending are the ids of lessons
// still being prepared.
func (b *Builder) Index(lang string, lessons []*scenarios.Lesson, pending []string) (templ.Component, error) {
	ui := b.cat.For(lang)
	p := views.IndexPage{Lang: lang, UI: ui, Assets: b.assets,
		AltLang: views.Link{Label: ui.T("ui.other-lang"), URL: "/" + otherLang(lang) + "/"}}
	if len(pending) > 0 {
		p.Preparing = ui.F("ui.preparing", map[string]string{"ids": strings.Join(pending, ", ")})
	}
	for _, l := range lessons {
		r, err := b.runs.Run(l, l.DefaultPolicy())
		if err != nil {
			return nil, err
		}
		st := State{Lang: lang, Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1}
		intro := b.about(l, st, r, "about:intro")
		p.Lessons = append(p.Lessons, views.LessonCard{
			Title: l.Title.In(lang), URL: LessonURL(st), Intro: intro.Body,
			Steps: ui.F("ui.steps", map[string]string{"n": itoa(len(r.Frames))}),
		})
	}
	return views.Index(p), nil
}

// Positions is how many steps a state's run (or compared timeline) has.
func (b *Builder) Positions(l *scenarios.Lesson, st State) (int, error) {
	ra, err := b.runs.Run(l, st.Policy)
	if err != nil {
		return 0, err
	}
	if st.Compare == nil {
		return len(ra.Frames), nil
	}
	rb, err := b.runs.Run(l, *st.Compare)
	if err != nil {
		return 0, err
	}
	return len(b.timeline(ra, rb)), nil
}

// SamePoint is the step of l's run under p that shows the point of the
// trace st shows (see alignStep).
func (b *Builder) SamePoint(l *scenarios.Lesson, st State, p sim.Policy) (int, error) {
	ra, err := b.runs.Run(l, st.Policy)
	if err != nil {
		return 0, err
	}
	to, err := b.runs.Outline(l, p)
	if err != nil {
		return 0, err
	}
	return alignStep(ra.Frames, ra.Frames[st.Step-1], to), nil
}

// Check renders the narration of every frame of r (l under p) in every
// language, as every page will, counts every text the frames show once
// now (so pages never wait for the tokenizer), and returns the room below
// the window box its largest overflow needs, in drawing units (ReserveFor
// rounds it to a room class).
func (b *Builder) Check(l *scenarios.Lesson, p sim.Policy, r *sim.Replay) (float64, error) {
	res := 0.0
	b.warm(r)
	for i, f := range r.Frames {
		res = max(res, reserveOf(l, f))
		for _, lang := range scenarios.Languages {
			if err := b.checkNarration(l, p, r, i, lang); err != nil {
				return 0, err
			}
		}
	}
	return res, nil
}

// warm counts every text of a run once now, so pages never wait for the
// tokenizer: each version of a block the frames share, each pending
// summary.
func (b *Builder) warm(r *sim.Replay) {
	for bl := range r.Versions {
		b.tok.Count(bl.Content)
	}
	for i := range r.Frames {
		if p := r.Frames[i].Pending; p != nil {
			b.tok.Count(p.Content)
		}
	}
}
