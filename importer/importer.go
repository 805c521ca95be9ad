package importer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/summarizer"
	"ctxsim/transcript"
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
	Log      io.Writer // progress lines (nil: none)
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

// The windows an import picks from when Options.Window is 0: the model
// family's, or the next one up when the session does not fit it.
var windows = []int{128000, 200000, 1000000}

var idPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)

// maxRounds bounds the summarizer loop: each round's summaries change the
// sizes later compactions see, so new ranges can appear.
const maxRounds = 6

// Write turns s into a lesson directory under opt.Dir and reports what it
// wrote. The lesson is built in a temporary directory, loaded by the same
// loader serve uses and replayed under every preset policy; only then is it
// moved into place. An existing lesson directory is never touched.
func Write(ctx context.Context, s *transcript.Session, opt Options) (*Report, error) {
	id := opt.ID
	if id == "" {
		id = lessonID(s.File)
	}
	if !idPattern.MatchString(id) {
		return nil, fmt.Errorf("lesson id %q: must be lower-case letters, digits and dashes (at most 64)", id)
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
	tmp, err := os.MkdirTemp(opt.Dir, ".import-"+id+"-")
	if err != nil {
		return nil, fmt.Errorf("create a temporary directory in %s: %w", opt.Dir, err)
	}
	defer os.RemoveAll(tmp)
	im := &imp{s: s, opt: opt, id: id, tmp: tmp, rep: &Report{ID: id, Path: target}}
	if err := im.run(ctx); err != nil {
		return nil, err
	}
	if err := os.Rename(filepath.Join(tmp, id), target); err != nil {
		return nil, fmt.Errorf("move the lesson into place: %w", err)
	}
	return im.rep, nil
}

// imp is one import in progress.
type imp struct {
	s         *transcript.Session
	opt       Options
	id, tmp   string
	rep       *Report
	t         *trace
	window    int
	generated []card   // cards the summarizer wrote
	seen      *replays // what the last build's replays showed
}

func (im *imp) logf(format string, args ...any) {
	if im.opt.Log != nil {
		fmt.Fprintf(im.opt.Log, format+"\n", args...)
	}
}

func (im *imp) run(ctx context.Context) error {
	t, err := buildTrace(im.s, im.opt.MaxSteps, im.provenance)
	if err != nil {
		return err
	}
	im.t = t
	if t.clipped > 0 {
		im.rep.Warnings = append(im.rep.Warnings, fmt.Sprintf("%d texts longer than %d bytes were cut to that size (each says so where it was cut)",
			t.clipped, scenarios.Recorded().MessageBytes))
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

// familyWindow is the window of the session's model family, at least what
// the provider recorded as one request's input.
func familyWindow(s *transcript.Session) int {
	w := windows[1]
	if s.Format == transcript.OpenAIChat && !strings.Contains(s.Model, "4.1") {
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

// build writes the lesson's files into the temporary directory and loads
// them as serve would (which replays every preset policy).
func (im *imp) build() (*scenarios.Lesson, error) {
	dir := filepath.Join(im.tmp, im.id)
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("clear %s: %w", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create %s: %w", dir, err)
	}
	files, err := im.files()
	if err != nil {
		return nil, err
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", name, err)
		}
	}
	l, err := scenarios.LoadDir(os.DirFS(im.tmp), im.id, im.opt.Dir, nil, im.opt.Tokens)
	if err != nil {
		return nil, fmt.Errorf("the generated lesson does not load (a bug in ctxsim import; please report it): %w", err)
	}
	if err := im.replay(l); err != nil {
		return nil, err
	}
	im.rep.Window = im.window
	return l, nil
}

// files renders the lesson directory.
func (im *imp) files() (map[string][]byte, error) {
	out := map[string][]byte{}
	lf := im.lesson()
	data, err := yamlOf(lf, "# An imported session, written by `ctxsim import`. Edit it as any lesson; the texts are the session's.\n")
	if err != nil {
		return nil, err
	}
	out["lesson.yaml"] = data
	if cards := append(append([]card{}, im.t.cards...), im.generated...); len(cards) > 0 {
		data, err := yamlOf(summariesFile{Cards: cards}, "# Summaries: the ones the session recorded at its compactions, and any a summarizer wrote at import.\n")
		if err != nil {
			return nil, err
		}
		out["summaries.yaml"] = data
	}
	info := aboutInfo{window: im.window, imported: im.opt.Now, calls: im.t.calls, redacted: im.opt.Redacted, generated: len(im.generated)}
	for _, lang := range scenarios.Languages {
		out["narration."+lang+".md"] = []byte(narration(lang, im.s, im.t, info))
	}
	return out, nil
}

func yamlOf(v any, head string) ([]byte, error) {
	var b strings.Builder
	b.WriteString(head)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode the lesson: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode the lesson: %w", err)
	}
	return []byte(b.String()), nil
}

// lesson is lesson.yaml.
func (im *imp) lesson() lessonFile {
	s := im.s
	title := titleOf(s)
	lf := lessonFile{
		ID: im.id, Order: 100,
		Title: map[string]string{"en": "Imported session: " + title, "ja": "取り込んだセッション：" + title},
		Source: map[string]string{
			"en": fmt.Sprintf("Recorded session %s (%s), imported with ctxsim import on %s.", s.File, s.Format, im.opt.Now.UTC().Format("2006-01-02")),
			"ja": fmt.Sprintf("記録されたセッション %s（%s）。%s に ctxsim import で取り込み。", s.File, s.Format, im.opt.Now.UTC().Format("2006-01-02")),
		},
		Window: im.window, Sizes: "counted", Draw: "blocks",
		Recorded: recording{File: s.File, Format: string(s.Format), Model: s.Model, Started: stamp(s.Started), Ended: stamp(s.Ended),
			Imported: im.opt.Now.UTC().Format(time.RFC3339), Redacted: redacted(im.opt.Redacted, s.Redactions)},
		System: im.system(),
		Trace:  im.t.steps,
	}
	if im.t.calls > 0 {
		lf.Draw = "pairs"
	}
	lf.Mechanisms = mechanisms{
		Compaction: compaction{Threshold: 92, Presets: []int{92, 75, 50}, Tail: 2, Recorded: len(im.t.cards) > 0, Loss: true},
		Tiered:     im.tiered(),
		Limit:      limit{Sizes: []int{im.window, im.window / 2, im.window / 4}},
	}
	if len(im.t.cards)+len(im.generated) > 0 {
		lf.Mechanisms.Compaction.Cards = "summaries.yaml"
	}
	for _, m := range s.Messages {
		if m.Usage != nil {
			lf.Mechanisms.Usage = &struct{}{}
			im.rep.UsageCalls++
		}
	}
	im.rep.Steps, im.rep.Messages, im.rep.Calls, im.rep.Compactions = len(im.t.steps), len(s.Messages), im.t.calls, len(s.Compactions)
	return lf
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

// system is the system message: the session's own, or, when the file does
// not hold it (Claude Code), a stand-in written by ctxsim that says so.
func (im *imp) system() message {
	if strings.TrimSpace(im.s.System) != "" {
		return message{Label: map[string]string{"en": "System prompt (recorded)", "ja": "システムプロンプト（記録）"}, Content: im.s.System}
	}
	return message{
		Label:   map[string]string{"en": "System prompt (not in the file)", "ja": "システムプロンプト（ファイルにない）"},
		Content: "[ctxsim stand-in] The session file does not record the system prompt or the tool definitions the agent sent; this short block stands in for them and is counted at its own size, not theirs.",
		Origin:  "authored",
	}
}

// tiered is the compressor a student can switch on: the tiered-compaction
// lesson's rules, with the read-only tools of the common agents as the
// floor (their results are cut, never summarized).
func (im *imp) tiered() tiered {
	return tiered{
		Pressure: im.window * 85 / 100, Optional: true,
		Rules: tierRules{KeepRecent: 8, Tier1Distance: 20, SemanticMinChars: 2000, ExcerptChars: 300, HeadPercent: 75,
			MaxSemanticPerPass: 2, ArgsChars: 100,
			FloorTools: []string{"Read", "Grep", "Glob", "LS", "read_file", "grep", "glob", "list_dir"}},
		SummaryProvenance: map[string]string{
			"en": "No Tier 2 summary exists for a recorded session: results the compressor would summarize are cut to head and tail instead.",
			"ja": "記録されたセッションには Tier 2 の要約がないため、圧縮器が要約する結果は先頭と末尾に切り詰めます。",
		},
	}
}

// provenance says where a recorded summary comes from.
func (im *imp) provenance(c transcript.Compaction) map[string]string {
	when := "at an unrecorded time"
	whenJa := "日時不明"
	if !c.Time.IsZero() {
		when = "at " + c.Time.UTC().Format("2006-01-02 15:04 UTC")
		whenJa = c.Time.UTC().Format("2006-01-02 15:04 UTC")
	}
	trigger := c.Trigger
	if trigger == "" {
		trigger = "unknown"
	}
	pre := ""
	preJa := ""
	if c.PreTokens > 0 {
		pre = fmt.Sprintf(", %d tokens before it by the provider's count", c.PreTokens)
		preJa = fmt.Sprintf("、圧縮前はプロバイダーの数で %d tokens", c.PreTokens)
	}
	return map[string]string{
		"en": fmt.Sprintf("Recorded in %s (line %d): the summary the session went on from after it compacted (%s) %s%s. The file does not say which model wrote it.", im.s.File, c.Line, trigger, when, pre),
		"ja": fmt.Sprintf("%s の %d 行目に記録された要約です。セッションは圧縮（%s、%s%s）の後、この要約から続けました。どのモデルが書いたかはファイルに記録されていません。", im.s.File, c.Line, trigger, whenJa, preJa),
	}
}
