package views

import (
	"github.com/a-h/templ"

	"ctxsim/views/draw"
)

// Assets are the content-hashed URLs of the static files.
type Assets struct {
	CSS      string
	JS       string
	Icon     templ.SafeURL // a data: URL (the icon is in the page)
	Room     string        // room.js: presenter rooms and audience follow
	Messages string        // the catalog's js. messages for the scripts
	WithRoom bool          // the page links room.js itself (the presenter view)
	// Static marks a page of a static copy (ctxsim export): no rooms, and
	// controls that need the server are replaced by notes.
	Static bool
	CSP    string // the Content-Security-Policy a static page carries in a meta tag
}

// Link is a labelled URL.
type Link struct {
	Label string
	URL   string
}

// IndexPage lists the lessons.
type IndexPage struct {
	Lang    string
	UI      UI
	Assets  Assets
	AltLang Link
	Lessons []LessonCard
	// Preparing says which lessons are still being prepared; empty when none.
	Preparing string
}

// LessonCard is one lesson on the index.
type LessonCard struct {
	Title string
	URL   string
	Intro string // HTML rendered from the lesson's Markdown at start-up
	Steps string // "14 steps"
}

// ErrorPage is a 400 or 404 (or, never on purpose, a 500) page.
type ErrorPage struct {
	Lang    string
	UI      UI
	Assets  Assets
	Status  int
	Message string
	Param   string
	Allowed string
	Lessons []Link
}

// LessonHead is what every view of a lesson's state says of where it
// is: its language, catalog and assets, the lesson, and the addresses of
// this state, of the index and of this state in the other language.
type LessonHead struct {
	Lang     string
	UI       UI
	Assets   Assets
	Title    string
	LessonID string
	IndexURL string
	URL      string // canonical URL of this state
	AltLang  Link
}

// LessonPage is one state of a lesson: its window, memory, narration and controls.
type LessonPage struct {
	LessonHead
	Modes     []ModeGroup
	Window    Window
	Memory    MemoryPanel
	Narration Narration
	Steps     StepBar
	Blocks    []BlockView // every block that has a detail sheet (window and pending)
	About     []AboutSection
	Source    string
	// Second is a second window the frame carries (a sub-agent's), drawn
	// beside the first to the same scale; TwoWindows keeps the room for it
	// on every step of a run that has one.
	Second     *Window
	TwoWindows bool
	// Pair: some mode of the lesson draws a second window beside the
	// first, so every view of it sizes its box for two side by side (one
	// box height in every mode).
	Pair   bool
	Panels []Panel // panels of figures beside the window (cache, cost, counters)
	Notes  []Panel // panels of prose, read after the narration (a decision's recorded outcomes)
	Nav    Nav
	// ServerOnly says, in a static copy, which values of the modes need the
	// server (a threshold typed into the URL); empty otherwise.
	ServerOnly string
}

// Panel is a card in the side column: a title, rows of figures, a note and
// optional rendered Markdown.
type Panel struct {
	ID    string // test id
	Title string
	Rows  []PanelRow
	Note  string
	Body  string // HTML rendered at start-up (lesson Markdown), may be empty
	Tone  string // info, warn, ok
}

// PanelRow is one figure of a panel.
type PanelRow struct {
	Label string
	Value string
	Note  string
	Emph  bool
}

// ModeGroup is a segmented control: one policy parameter and its choices.
type ModeGroup struct {
	Name    string // parameter name, for test ids
	Label   string
	Options []ModeOption
}

// ModeOption is one choice of a ModeGroup, a plain link to the state it
// selects; without a URL (a comparison a static copy does not hold) it is
// shown disabled.
type ModeOption struct {
	Value  string // the parameter's value in the URL
	Label  string
	URL    string
	Active bool
}

// Window is the context window drawn to one scale (package draw): every
// coordinate is in the drawing's user units, which the page scales to the
// screen as a whole, so the box is the same height at every step.
type Window struct {
	Style          draw.Style // the drawing's geometry and type (a page's, a projector's)
	Width, Height  float64    // the drawing; Height is the box: the window's tokens
	Reserve        float64    // room below the box for an overflow, the same at every step of a lesson
	Scale          float64    // units per token
	Tokens         int        // the window's size in tokens (the box)
	Rows           []RowView
	Lines          []draw.LineShape
	Callouts       []draw.Callout
	Marks          []draw.MarkShape
	Bracket        *Band  // the compaction range being shown
	Cached         *Band  // the prefix the prompt cache reuses
	Overflow       *Band  // the stack past the limit
	Excess         *Band  // on the step that crosses a threshold: the stack past the line
	Ghost          *Band  // where what left the window since the step before was (the freed height)
	Crossing       bool   // this step crosses a threshold: the line is drawn loud
	Clipped        bool   // the stack runs past the room below the box
	ThresholdLabel string // "92% · 46.0k"
	Meter          string // "47.9k / 50k"
	MeterExact     string // "47,900 / 50,000 tokens"
	MeterState     string // ok, warn, error
	Total          int    // tokens in the window (the meter counts to it)
	Error          string
	Empty          string // shown when the window holds nothing (between sessions)
	Pending        *BlockView
	Compacting     bool
	Legend         string // shown under the meter (e.g. the cache reading)
	Title          string // the window's name when a page draws two
	// Categories is what the window holds by category, as one bar beside
	// the meter (nil: not drawn).
	Categories *CategoryBar
	// O200k: the table shows each row's o200k_base count beside its size
	// (a session sized by the provider's counts).
	O200k bool
}

// CategoryBar is a window's contents by category (as Claude Code's
// /context lists them), then its free space and, where compaction is on,
// the room above the threshold: each part's share of the window.
type CategoryBar struct {
	Title string
	Note  string
	Parts []CategoryPart
}

// CategoryPart is one part of a CategoryBar.
type CategoryPart struct {
	Name   string // a category (unseen, messages, tool_results, …), free or reserved
	Label  string
	Tokens int
	Size   string  // "12.3k"
	Exact  string  // "12,345"
	X, W   float64 // where it starts and how wide it is, in a bar CategoryBarWidth wide
}

// CategoryBarWidth is the width of a CategoryBar's drawing, in its units.
const CategoryBarWidth = 1000.0

// Band is a vertical extent of the drawing.
type Band struct{ Top, Bottom float64 }

// RowView is one drawn row: a block, or a tool call and its result drawn
// as one. The embedded BlockView names and sizes the row as a whole (its
// sheet, its label); Blocks are the rectangles drawn to scale.
type RowView struct {
	BlockView
	Blocks  []BlockView
	Stale   bool         // a status that a newer one in the window supersedes
	Named   bool         // the step's headline or what changed names it: its name is drawn whole
	Inside  *draw.Inside // the label drawn on the row; nil when the lane names it
	Excerpt []draw.Span  // lines of its text drawn on a tall row
}

// BlockView is one block as drawn.
type BlockView struct {
	ID           string // block id from the engine
	Anchor       string // id of its detail sheet
	Role         string
	Kind         string
	RoleLabel    string
	KindLabel    string
	Label        string
	Size         string // "19.0k"
	Exact        string // "19,000"
	Tokens       int    // the size, for data-tokens (an integer)
	Y, H         float64
	SizeNote     string // why the trace size and the excerpt count differ (or agree)
	New          bool
	Selected     bool
	Touched      bool // rewritten before this request (a compressor's pass)
	Summary      bool
	Mechanical   bool
	Provenance   string
	Covers       string // a summary's covered block ids, space-separated (it grows out of them)
	Content      string
	TextURL      string  // where the sheet loads Content from ("" when empty): the page does not carry it
	TextLink     string  // the words of the link to it ("Read the text (1,234 characters)")
	Excerpt      string  // "112 (o200k_base count of the text shown)"
	O200k        string  // the o200k_base count of its text, for the table beside a provider's size ("" when not shown)
	Description  string  // text alternative
	Badges       []Badge // small labels drawn on the block: tier, distance, floor, pair
	Cached       bool    // in the reused prefix of the prompt cache
	FirstChanged bool    // where the cache reuse ends
}

// Badge is a small label on a block; Tone picks its colour (info, warn, ok,
// muted). Minor badges are left out where a block is too thin.
type Badge struct {
	Text  string
	Tone  string
	Minor bool
}

// MemoryPanel shows MEMORY.md on disk beside the window.
type MemoryPanel struct {
	Enabled    bool
	Path       string
	Lines      []MemoryLine
	Changed    bool   // the file differs from the injected copy
	FileBadge  string // "changed on disk"
	CopyBadge  string // "snapshot from session start"
	HasCopy    bool
	Note       string
	Transition string // view-transition-name of the line that enters the next copy
}

// MemoryLine is one line of the memory file.
type MemoryLine struct {
	Text string
	New  bool // on disk, not in the injected copy
}

// Narration is the right-hand column.
type Narration struct {
	Headline string
	Body     string // HTML rendered at start-up
	Changes  []string
	Kicker   string // "Step 5 of 16 · compaction"
}

// StepBar is the step controls at the bottom.
type StepBar struct {
	Current int
	Total   int
	First   string
	Prev    string
	Next    string
	Last    string
	Ticks   []Tick
	Label   string // "Step 3 of 14"
	Jump    bool   // the track leaves steps out: offer a field to go to any step
	JumpURL string // the form's action (this state); ?step=N goes there
	// JumpTemplate is, in a static copy, the URL of any step with {step}
	// for its number: the page script goes there, as no server redirects
	// ?step=N.
	JumpTemplate string
}

// Tick is one step on the progress track.
type Tick struct {
	URL      string
	Current  bool
	Done     bool
	Decisive bool
	Gap      bool // steps the track leaves out here (Title says how many)
	Title    string
}

// AboutSection is a lesson-level section (intro, lifetimes, ...).
type AboutSection struct {
	Key      string
	Headline string
	Body     string
}

// QuickMode is a numbered policy a presenter switches to with a digit key;
// without a URL (a comparison a static copy does not hold) it is disabled.
type QuickMode struct {
	Key    int
	Label  string
	URL    string
	Active bool
}

// Nav holds the links between the views of one state and the controls
// every view shares (quick modes, autoplay).
type Nav struct {
	NormalURL  string
	PresentURL string
	NotesURL   string
	CompareURL string // toggles the comparison on or off
	HandoutURL string // the printable handout of this policy
	Compare    bool   // this view is a comparison
	QuickModes []QuickMode
	ShowQuick  bool   // the quick modes are shown (the presenter view, which has no mode bar)
	Decisive   bool   // autoplay pauses here
	Motion     string // "slow" where the window changes a lot (a compaction, a pass): the step animates longer
}

// ComparePane is one side of a comparison.
type ComparePane struct {
	Title    string // the policy, in words
	Window   Window
	Diff     string // one line: what happened on this side here
	Headline string
}

// CompareView is two policies side by side at one point of the trace.
type CompareView struct {
	Left, Right ComparePane
	Delta       string // token difference, right minus left
}

// ComparePage is the comparison of two policies of a lesson.
type ComparePage struct {
	LessonHead
	Modes  []ModeGroup // the left policy's controls
	ModesB []ModeGroup // the right policy's controls
	Pair   bool        // as LessonPage.Pair
	View   CompareView
	Steps  StepBar
	Nav    Nav
	// ServerOnly says, in a static copy, which comparisons need the server;
	// empty otherwise.
	ServerOnly string
}

// PresentPage is the projector view of a state (or of a comparison).
type PresentPage struct {
	Memory         MemoryPanel
	Summary        *BlockView // the summary the step is about (the summarizer's output, or the new summary)
	SummaryPending bool
	LessonHead
	StateURL string // the normal view of this state, which an audience follows
	Window   Window
	Second   *Window // a second window the frame carries (a sub-agent's)
	Compare  *CompareView
	Pair     bool // as LessonPage.Pair
	Kicker   string
	Headline string
	Changes  []string
	Steps    StepBar
	Nav      Nav
}

// NotesPage is the speaker-notes window: the full narration of the state and
// the next step's headline.
type NotesPage struct {
	Lang         string
	UI           UI
	Assets       Assets
	Title        string
	URL          string
	Kicker       string
	Headline     string
	Body         string
	Changes      []string
	NextHeadline string
	Steps        StepBar
	Nav          Nav
}

// HandoutPage is the printable handout of a lesson under one policy: its
// key frames with their narration, no controls.
type HandoutPage struct {
	Lang    string
	UI      UI
	Assets  Assets
	Title   string
	Policy  string
	Intro   string // HTML
	BackURL string
	Frames  []HandoutFrame
	Source  string
}

// HandoutFrame is one key frame of a handout.
type HandoutFrame struct {
	Kicker         string
	Headline       string
	Changes        []string
	Body           string // HTML
	Window         Window
	Memory         MemoryPanel // the memory file, where the lesson has one
	Summary        *BlockView  // the summary the step is about, with its text and provenance
	SummaryPending bool
}
