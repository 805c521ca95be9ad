package views

// Assets are the content-hashed URLs of the static files.
type Assets struct {
	CSS      string
	Scale    string // generated stylesheet of height and position classes
	JS       string
	Htmx     string
	Icon     string
	Room     string // room.js: presenter rooms and audience follow
	Messages string // the catalog's js. messages for the scripts
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

// LessonPage is one state of a lesson: its window, memory, narration and controls.
type LessonPage struct {
	Lang      string
	UI        UI
	Assets    Assets
	Title     string
	LessonID  string
	IndexURL  string
	URL       string // canonical URL of this state
	AltLang   Link
	Modes     []ModeGroup
	Window    Window
	Memory    MemoryPanel
	Narration Narration
	Steps     StepBar
	Blocks    []BlockView // every block that has a detail sheet (window and pending)
	About     []AboutSection
	Source    string
	Panels    []Panel // panels beside the window (cache, cost, counters, a decision's outcomes)
	Nav       Nav
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

// ModeOption is one choice of a ModeGroup, a plain link to the state it selects.
type ModeOption struct {
	Value  string // the parameter's value in the URL
	Label  string
	URL    string
	Active bool
}

// Window is the context window drawn to scale. Heights and positions are in
// units of a thousandth of the window ("u"); the stylesheet maps u to pixels.
type Window struct {
	Blocks         []BlockView
	BoxU           int // height of the drawn window box
	ThresholdU     int // position of the threshold line from the top
	EdgeU          int // position of the window's end (the limit) from the top
	OverflowU      int // height of the part of the stack past the limit
	ShowThreshold  bool
	ThresholdLabel string // "92% · 46.0k"
	Meter          string // "47.9k / 50k"
	MeterExact     string // "47,900 / 50,000 tokens"
	MeterState     string // ok, warn, error
	Error          string
	Empty          string // shown when the window holds nothing (between sessions)
	Pending        *BlockView
	Compacting     bool
	Legend         string // shown under the meter (e.g. the cache reading)
	BracketTopU    int    // the compaction range's bracket, when one is selected
	BracketU       int
	FitU           int // the tallest box of any preset run: sets the drawing scale
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
	HeightU      int
	Small        bool   // label drawn in one compact line
	Roomy        bool   // tall enough for a second line (the excerpt token count)
	Thin         bool   // under the minimum height (rows of old results): one tiny line
	Hair         bool   // too thin for any text: the tooltip, sheet and table carry it
	SizeNote     string // why the trace size and the excerpt count differ (or agree)
	New          bool
	Selected     bool
	Touched      bool // rewritten before this request (a compressor's pass)
	Summary      bool
	Mechanical   bool
	Provenance   string
	Content      string
	Excerpt      string  // "112 (o200k_base count of the text shown)"
	ExcerptShort string  // "excerpt: 112 tokens (o200k_base)", drawn on tall blocks
	Transition   string  // view-transition-name
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
}

// Tick is one step on the progress track.
type Tick struct {
	URL      string
	Current  bool
	Done     bool
	Decisive bool
	Title    string
}

// AboutSection is a lesson-level section (intro, lifetimes, ...).
type AboutSection struct {
	Key      string
	Headline string
	Body     string
}

// QuickMode is a numbered policy a presenter switches to with a digit key.
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
	Decisive   bool // autoplay pauses here
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
	Lang     string
	UI       UI
	Assets   Assets
	Title    string
	LessonID string
	URL      string
	IndexURL string
	AltLang  Link
	Modes    []ModeGroup // the left policy's controls
	ModesB   []ModeGroup // the right policy's controls
	View     CompareView
	Steps    StepBar
	Nav      Nav
}

// PresentPage is the projector view of a state (or of a comparison).
type PresentPage struct {
	Lang     string
	UI       UI
	Assets   Assets
	Title    string
	LessonID string
	URL      string
	StateURL string // the normal view of this state, which an audience follows
	Window   Window
	Compare  *CompareView
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
	FitU    int
}

// HandoutFrame is one key frame of a handout.
type HandoutFrame struct {
	Kicker   string
	Headline string
	Changes  []string
	Body     string // HTML
	Window   Window
}
