package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing/fstest"
	"time"

	"ctxsim/authoring/summarizer"
	"ctxsim/authoring/transcript"
	"ctxsim/internal/tmpdir"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// Options control an import.
type Options struct {
	Dir      string        // the lessons directory the lesson goes into (serve -lessons)
	ID       string        // the lesson id ("" = derived from the file name)
	Window   int           // the window in tokens (0 = the model family's, grown to fit the session)
	Redacted bool          // the session was read with redaction on
	Now      time.Time     // the import date written into the lesson
	Tokens   sim.Tokenizer // counts block sizes (o200k_base)
	// Summarizer, when set, writes a summary for every range a preset
	// policy compacts that no recorded summary covers; otherwise those
	// ranges are compacted to labelled mechanical excerpts.
	Summarizer *summarizer.Client
	// AllPresets replays every preset policy at import (as a summarizer
	// does anyway): a request breaking a tool pair under any preset fails
	// the import, and the report counts the mechanical ranges. Otherwise
	// the default policy is replayed, and serving checks the rest.
	AllPresets bool
	// MaxSteps is about the most steps the trace gets (0: 300): a longer
	// session has several model responses to a step.
	MaxSteps int
	// NoCompressor leaves the tiered compressor out: the lesson offers the
	// session's compactions, thresholds and windows only (a third of the
	// preset policies).
	NoCompressor bool
	// Title is the lesson's title by language (nil: "Imported session:"
	// and the session's title or id).
	Title sim.Text
	// Origin says where the session file comes from (its publisher, its
	// licence), shown in the lesson's source line and its about section;
	// "" for a session of your own.
	Origin string
	Log    io.Writer // progress lines (nil: none)
}

// Report says what an import wrote and measured.
type Report struct {
	ID, Path    string
	Steps       int // trace steps
	Messages    int // messages on the session's chain
	Calls       int // tool calls
	Compactions int // recorded compactions
	UsageCalls  int // model calls with recorded provider usage
	Window      int // the lesson's window
	Peak        int // the largest request of the recorded replay (o200k_base)
	Presets     int // preset policies the lesson offers
	Policies    int // policies replayed at import (1: the default; else every preset)
	Summarized  int // summaries the summarizer wrote
	Mechanical  int // ranges still compacted to a mechanical excerpt under some preset
	Warnings    []string
}

// ReadLimits is opt with the limits of an imported session
// (scenarios.Recorded) that the transcript reader can apply as it reads:
// a session with more messages or text than a lesson may hold is refused
// at the first record past them, naming its line, before anything else
// is done. (A message of the session can make several of the lesson: a
// text and each tool call with its result; Build counts those exactly,
// with the line, before it makes the lesson.)
func ReadLimits(opt transcript.Options) transcript.Options {
	lim := scenarios.Imported()
	opt.MaxMessages, opt.MaxTextBytes = lim.Messages, lim.TextBytes
	return opt
}

// The windows an import picks from when Options.Window is 0: the model
// family's, or the next one up when the session does not fit it.
var windows = []int{128000, 200000, 1000000}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// maxRounds bounds the summarizer loop: each round's summaries change the
// sizes later compactions see, so new ranges can appear.
const maxRounds = 12 // the synthetic session of TestSummarizer (30 turns, a 24k window, 54 presets) needs 12 at the provider's sizes

// Imported is an imported lesson built in memory: the files of its
// directory, the lesson they load to and what the import measured.
type Imported struct {
	ID     string
	Files  map[string][]byte // by name within the lesson directory
	Lesson *scenarios.Lesson // Files as scenarios.LoadDir loads them
	Report *Report
}

// FS is the lesson's files as a file system that holds the lesson
// directory ID: what scenarios.LoadDir(l.FS(), l.ID, ...) loads.
func (l *Imported) FS() fs.FS { return dirFS(l.ID, l.Files) }

// dirFS is files as the directory dir of a file system.
func dirFS(dir string, files map[string][]byte) fs.FS {
	m := fstest.MapFS{}
	for name, data := range files {
		m[path.Join(dir, name)] = &fstest.MapFile{Data: data, Mode: 0o644}
	}
	return m
}

// Build turns s into the files of a lesson directory, in memory, and
// checks them: they are loaded by the same loader serve uses and replayed
// (under every preset policy with a summarizer or AllPresets). Nothing is
// written to disk; opt.Dir only names the files in errors.
func Build(ctx context.Context, s *transcript.Session, opt Options) (*Imported, error) {
	id, err := lessonIDOf(s, opt)
	if err != nil {
		return nil, err
	}
	t, err := texts()
	if err != nil {
		return nil, fmt.Errorf("the importer's texts: %w", err)
	}
	im := &imp{s: s, opt: opt, id: id, rep: &Report{ID: id, Path: filepath.Join(opt.Dir, id)}, w: &words{t: t, file: s.File, model: s.Model}}
	if err := im.run(ctx); err != nil {
		return nil, err
	}
	return &Imported{ID: id, Files: im.files, Lesson: im.lesson, Report: im.rep}, nil
}

// lessonIDOf is the id of the lesson: opt.ID, or derived from the file name.
func lessonIDOf(s *transcript.Session, opt Options) (string, error) {
	id := opt.ID
	if id == "" {
		id = lessonID(s.File)
	}
	if !idPattern.MatchString(id) {
		return "", fmt.Errorf("lesson id %q: must be lower-case letters, digits and dashes (at most 64)", id)
	}
	return id, nil
}

// Write turns s into a lesson directory under opt.Dir and reports what it
// wrote. The lesson is built in memory (Build), loaded by the same loader
// serve uses and replayed; only then is it written, into a temporary
// directory moved into place. An existing lesson directory is never
// touched.
func Write(ctx context.Context, s *transcript.Session, opt Options) (*Report, error) {
	start := time.Now()
	id, err := lessonIDOf(s, opt)
	if err != nil {
		return nil, err
	}
	target := filepath.Join(opt.Dir, id)
	if _, err := os.Stat(target); err == nil {
		return nil, fmt.Errorf("%s already exists: remove it or pass -id with another name", target)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("check %s: %w", target, err)
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", opt.Dir, err)
	}
	opt.ID = id
	l, err := Build(ctx, s, opt)
	if err != nil {
		return nil, err
	}
	if err := writeDir(opt.Dir, id, l.Files, start); err != nil {
		return nil, err
	}
	return l.Report, nil
}

// stagingPrefix starts the names of the hidden directories an import
// writes into.
const stagingPrefix = ".import-"

// writeDir writes files as the lesson directory id of dir: into a hidden
// temporary directory of dir, renamed into place. The hidden directories
// of imports into dir that were interrupted before start (a crash, a kill)
// are removed first.
func writeDir(dir, id string, files map[string][]byte, start time.Time) error {
	if _, err := tmpdir.RemoveStale(dir, stagingPrefix, start); err != nil {
		return err
	}
	tmp, err := tmpdir.Make(dir, stagingPrefix+id+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.Mkdir(filepath.Join(tmp, id), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", id, err)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(tmp, id, name), data, 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	if err := os.Rename(filepath.Join(tmp, id), filepath.Join(dir, id)); err != nil {
		return fmt.Errorf("move the lesson into place: %w", err)
	}
	return nil
}

// imp is one import in progress.
type imp struct {
	s         *transcript.Session
	opt       Options
	id        string
	rep       *Report
	w         *words
	t         *trace
	window    int
	generated []lessonfile.Card // cards the summarizer wrote
	seen      *replays          // what the last build's replays showed
	files     map[string][]byte // the last build's files
	lesson    *scenarios.Lesson // and the lesson they load to
}

func (im *imp) logf(format string, args ...any) {
	if im.opt.Log != nil {
		fmt.Fprintf(im.opt.Log, format+"\n", args...)
	}
}

func (im *imp) run(ctx context.Context) error {
	t, err := buildTrace(im.s, im.opt.MaxSteps, im.w)
	if err != nil {
		return err
	}
	im.t = t
	if t.clipped > 0 {
		im.rep.Warnings = append(im.rep.Warnings, fmt.Sprintf("%d texts longer than %d bytes were cut to that size (each says so where it was cut)",
			t.clipped, scenarios.Imported().MessageBytes))
	}
	im.window = im.opt.Window
	if im.window <= 0 {
		im.window = familyWindow(im.s)
	}
	l, err := im.build()
	if err != nil {
		return err
	}
	if err := im.fit(&l); err != nil {
		return err
	}
	if im.opt.Summarizer != nil {
		if l, err = im.summarize(ctx, l); err != nil {
			return err
		}
	}
	im.rep.Presets = len(l.PresetPolicies())
	im.rep.Policies = len(im.seen.byPreset)
	im.rep.Mechanical = len(im.seen.mechanical())
	return nil
}

// familyWindow is the window of the session's model family (200k for
// Claude; what a Codex file records as model_context_window), at least
// what the provider recorded as one request's input.
func familyWindow(s *transcript.Session) int {
	w := windows[1]
	switch {
	case s.Window > 0:
		w = s.Window
	case s.Format == transcript.OpenAIChat && !strings.Contains(s.Model, "4.1"):
		w = windows[0]
	}
	peak := 0
	for _, m := range s.Messages {
		if m.Usage != nil {
			peak = max(peak, m.Usage.InputTotal())
		}
	}
	return grow(w, peak)
}

// grow is the smallest window of windows (or w) that holds peak tokens, or
// peak rounded up to a thousand when none does.
func grow(w, peak int) int {
	if peak <= w {
		return w
	}
	for _, n := range windows {
		if n >= peak {
			return n
		}
	}
	return (peak + 999) / 1000 * 1000
}

// fit grows the window to the recorded replay's largest request when the
// window was not given, and warns when a given one is too small.
func (im *imp) fit(l **scenarios.Lesson) error {
	peak := im.seen.peaks[(*l).DefaultPolicy().String()]
	im.rep.Peak = peak
	if peak <= im.window {
		return nil
	}
	if im.opt.Window > 0 {
		im.rep.Warnings = append(im.rep.Warnings, fmt.Sprintf(
			"the recorded replay peaks at %d tokens, over the %d-token window (-window): the default policy refuses that request", peak, im.window))
		return nil
	}
	im.window = grow(im.window, peak)
	im.logf("window grown to %d tokens to hold the replay's largest request (%d)", im.window, peak)
	nl, err := im.build()
	if err != nil {
		return err
	}
	*l = nl
	return nil
}

// build renders the lesson's files and loads them as serve would (which
// replays every preset policy), from memory.
func (im *imp) build() (*scenarios.Lesson, error) {
	files, err := im.render()
	if err != nil {
		return nil, err
	}
	l, err := scenarios.LoadDir(dirFS(im.id, files), im.id, im.opt.Dir, nil, im.opt.Tokens)
	if err != nil {
		return nil, fmt.Errorf("the generated lesson does not load (a bug in ctxsim import; please report it): %w", err)
	}
	if err := im.replay(l); err != nil {
		return nil, err
	}
	im.rep.Window = im.window
	im.files, im.lesson = files, l
	return l, nil
}

// render writes the lesson directory's files.
func (im *imp) render() (map[string][]byte, error) {
	out := map[string][]byte{}
	lf, err := im.lessonFile()
	if err != nil {
		return nil, err
	}
	if im.w.err != nil {
		return nil, fmt.Errorf("the importer's texts: %w", im.w.err)
	}
	data, err := lessonfile.Encode(lf, "# An imported session, written by `ctxsim import`. Edit it as any lesson; the texts are the session's.\n")
	if err != nil {
		return nil, err
	}
	out[lessonfile.LessonFile] = data
	if cards := append(slices.Clone(im.t.cards), im.generated...); len(cards) > 0 {
		data, err := lessonfile.Encode(lessonfile.Summaries{Cards: cards}, "# Summaries: the ones the session recorded at its compactions, and any a summarizer wrote at import.\n")
		if err != nil {
			return nil, err
		}
		out[summariesFile] = data
	}
	info := aboutInfo{window: im.window, imported: im.opt.Now, calls: im.t.calls, redacted: im.opt.Redacted, generated: len(im.generated), origin: im.opt.Origin}
	for _, lang := range scenarios.Languages {
		text, err := narration(im.w.t, lang, im.s, im.t, info)
		if err != nil {
			return nil, err
		}
		out[lessonfile.NarrationFile(lang)] = []byte(text)
	}
	return out, nil
}

// summariesFile is the cards file of an imported session's compaction.
const summariesFile = "summaries.yaml"

// lessonFile is lesson.yaml.
func (im *imp) lessonFile() (*lessonfile.Lesson, error) {
	s, w := im.s, im.w
	tiered, err := im.tiered()
	if err != nil {
		return nil, err
	}
	lf := &lessonfile.Lesson{
		ID: im.id, Order: 100, Title: im.opt.Title,
		Source: w.text("source", struct{ File, Format, Day, Origin string }{s.File, string(s.Format), im.opt.Now.UTC().Format("2006-01-02"), im.opt.Origin}),
		Window: im.window, Sizes: "counted", Draw: scenarios.DrawBlocks,
		Imported: &lessonfile.ImportedSession{File: s.File, Format: string(s.Format), Model: s.Model, Started: stamp(s.Started), Ended: stamp(s.Ended),
			Imported: im.opt.Now.UTC().Format(time.RFC3339), Redacted: redacted(im.opt.Redacted, s.Redactions)},
		System: im.system(),
		Trace:  im.t.steps,
	}
	if lf.Title == nil {
		lf.Title = w.text("title", titleOf(s))
	}
	if im.t.calls > 0 {
		lf.Draw = scenarios.DrawPairs
	}
	compaction := scenarios.CompactionConfig{Threshold: 92, Presets: []int{92, 75, 50}, Tail: 2, AsRecorded: len(im.t.cards) > 0, Loss: true}
	if own := ownThreshold(s, im.window); own > 0 {
		// The session's own threshold is offered first, named for it.
		compaction.Threshold, compaction.Own = own, own
		compaction.Presets = append([]int{own}, slices.DeleteFunc(compaction.Presets, func(p int) bool { return p == own })...)
	}
	if len(im.t.cards)+len(im.generated) > 0 {
		compaction.Cards = summariesFile
	}
	// The narration precedence: compaction, the optional compressor,
	// provider usage, the window size.
	lf.Mechanisms = lessonfile.Mechanisms{{Name: "compaction", Config: compaction}}
	if !im.opt.NoCompressor {
		lf.Mechanisms = append(lf.Mechanisms, lessonfile.Mechanism{Name: "tiered", Config: tiered})
	}
	// Usage sizes the blocks by the provider's counts where the file
	// records them, and says the sizes are estimates where it does not.
	im.rep.UsageCalls = len(s.Requests())
	lf.Mechanisms = append(lf.Mechanisms, lessonfile.Mechanism{Name: "usage", Config: sim.ProviderUsage{Asides: im.asides()}})
	lf.Mechanisms = append(lf.Mechanisms, lessonfile.Mechanism{Name: "limit", Config: sim.Limit{Sizes: []int{im.window, im.window / 2, im.window / 4}}})
	im.rep.Steps, im.rep.Messages, im.rep.Calls, im.rep.Compactions = len(im.t.steps), len(s.Messages), im.t.calls, len(s.Compactions)
	return lf, nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

func redacted(on bool, counts map[string]int) string {
	if !on {
		return "off"
	}
	if len(counts) == 0 {
		return "on (nothing found)"
	}
	var parts []string
	for k, n := range counts {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return "on: " + strings.Join(parts, ", ")
}

// system is the system message: the session's own; when the file does
// not hold it (Claude Code), the block of what the file does not hold,
// sized by the provider's counts; without those, a stand-in written by
// ctxsim that says so.
func (im *imp) system() lessonfile.Message {
	switch {
	case strings.TrimSpace(im.s.System) != "":
		return lessonfile.Message{Label: im.w.text("system-recorded", nil), Content: im.s.System}
	case len(im.s.Requests()) > 0:
		return lessonfile.Message{Kind: string(sim.KindUnseen), Label: im.w.text("unseen", nil)}
	}
	return lessonfile.Message{Label: im.w.text("system-stand-in", nil), Content: standIn, Origin: sim.OriginAuthored}
}

// ownThreshold is the session's own compaction threshold in percent of
// window: its first recorded compaction's size before (preTokens) over
// the window; 0 when the file does not say or it is not within the window.
func ownThreshold(s *transcript.Session, window int) int {
	for _, c := range s.Compactions {
		if c.PreTokens > 0 && window > 0 {
			if pct := (c.PreTokens*100 + window/2) / window; pct >= 1 && pct <= 100 {
				return pct
			}
			return 0
		}
	}
	return 0
}

// standIn is the system message of a session whose file does not hold it.
const standIn = "[ctxsim stand-in] The session file does not record the system prompt or the tool definitions the agent sent; this short block stands in for them and is counted at its own size, not theirs."

// tiered is the compressor a student can switch on (off by default): the
// rules of the lesson compressor.yaml names, with the read-only tools of
// the common agents as the floor (their results are cut, never
// summarized).
func (im *imp) tiered() (sim.Tiered, error) {
	c, err := compressor()
	if err != nil {
		return sim.Tiered{}, err
	}
	return sim.Tiered{Pressure: im.window * c.PressurePercent / 100, Optional: true, Rules: c.Rules,
		SummaryProvenance: im.w.text("tiered-provenance", nil)}, nil
}
