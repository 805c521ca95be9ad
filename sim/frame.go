package sim

// FrameKind says what a frame shows.
type FrameKind string

// Frame kinds. A trace step gives a FrameStep; a compaction adds four frames
// (crossed, selected, summary, replaced); a request above the window adds
// FrameOverflow; the tiered compressor's first pass is shown on its own
// (FramePass); a request the provider refuses for another reason is
// FrameRefused; FrameDecision is the model call where the arms of an
// experiment differ.
const (
	FrameStep     FrameKind = "step"
	FrameCrossed  FrameKind = "crossed"
	FrameSelected FrameKind = "selected"
	FrameSummary  FrameKind = "summary"
	FrameReplaced FrameKind = "replaced"
	FrameOverflow FrameKind = "overflow"
	FramePass     FrameKind = "pass"
	FrameRefused  FrameKind = "refused"
	FrameDecision FrameKind = "decision"
)

// FrameKinds is every kind of frame, in the order above.
var FrameKinds = []FrameKind{FrameStep, FrameCrossed, FrameSelected, FrameSummary, FrameReplaced,
	FrameOverflow, FramePass, FrameRefused, FrameDecision}

// ErrContextLengthExceeded is the provider error of a request above the window.
const ErrContextLengthExceeded = "context_length_exceeded"

// Replay is a lesson replayed under one policy.
type Replay struct {
	Frames []Frame
	// Window is the provider's limit in this run: the lesson's window, or
	// the policy's size where the lesson has a Limit.
	Window int
	// Fields are run-level figures for the frames API, in order
	// (threshold_tokens, a cost model, ...).
	Fields []Field
	// Panels are shown beside every frame (rules in force, a cost model).
	Panels []Panel
	// Figures are run-level figures narration may use on any frame.
	Figures []Figure

	store *store // the blocks the frames share
}

// Versions calls yield with every version of every block the run's
// requests held, once each (not the per-frame flags, badges and
// attributes): what holds the texts of a run.
func (r *Replay) Versions(yield func(*Block) bool) {
	if r.store == nil {
		return
	}
	for i := range r.store.n {
		if !yield(r.store.at(i)) {
			return
		}
	}
}

// Held is how many blocks the run keeps: the versions its frames share and
// the copies of blocks frames show differently, each once however many
// frames show it (a tool result's annotations under the tiered compressor). A replay's memory grows with it.
func (r *Replay) Held() int {
	n := 0
	if r.store != nil {
		n = int(r.store.n)
	}
	copies := map[*Block]bool{}
	for i := range r.Frames {
		for _, o := range r.Frames[i].req.over {
			copies[o.b] = true
		}
	}
	return n + len(copies)
}

// Field is a named run-level value of the frames API.
type Field struct {
	Name  string
	Value any // encodes as JSON; a []Field is an object with its fields in order
}

// Frame is the state of the simulated harness after one visible step.
type Frame struct {
	Step      int       // 1-based position in the run
	Kind      FrameKind // what happened
	TraceStep string    // id of the trace step this frame belongs to
	// Narration holds the narration keys for this frame, most specific first
	// ("loss-check@missing", "loss-check").
	Narration []string
	req       request // the request, in order (Blocks)
	Total     int     // tokens in the request (the refused request, when refused)
	Error     string  // the provider's error when the request was refused
	// Pending is the summarizer's output shown beside the window before it
	// replaces the selected range.
	Pending  *Block
	Session  int // 1-based session number
	Events   []Event
	Decisive bool // a frame a presenter should stop on

	Cache    *Cache    // prompt-cache reuse of this request (lessons with a prompt cache)
	Memory   *Memory   // the memory file and its injected copy (lessons with memory)
	Figures  []Figure  // named figures for narration and captions, in order
	Counters []Counter // running counters of the mechanisms, in order
	Panels   []Panel   // panels of this frame, beside the run's panels
	Legend   string    // catalog key of a one-line legend under the meter ("" for none)
	Line     Line      // a line across the window (a threshold); Key is "" when none
	// Alert is set when the window state deserves a warning colour (above a
	// threshold or a pressure line) short of a refusal.
	Alert bool

	Spend  *Spend        // what the run has spent on model calls so far (the spend mechanism)
	Second *SecondWindow // a second window beside the request (a sub-agent's own context)

	// Categories sum the request by what it holds (CategoryOf), in the
	// order of Categories, leaving out those that hold nothing: they sum
	// to Total.
	Categories []Category
	// Provider is the provider's recorded count of the request this frame
	// shows (a model call of a recorded session whose file records its
	// usage); nil when the frame shows no such request.
	Provider *ProviderCount
}

// ProviderCount is what the provider recorded of one request: its size
// and how its prompt cache served it. Tokens = Input + CacheRead +
// CacheWritten.
type ProviderCount struct {
	Tokens       int
	Input        int // computed anew and not cached
	CacheRead    int // read from the prompt cache
	CacheWritten int // computed anew and written to the prompt cache
	// Matches: the replayed request is the recorded one's size (the
	// session as recorded, up to this call); the cache split then marks
	// the window.
	Matches bool
}

// Spend is what a run has spent on model calls up to a frame.
type Spend struct {
	// Tokens is the input and output of every model call so far: each
	// request as sent, and what the model wrote (a sub-agent's calls too).
	Tokens int
	// Iteration is the agent's model call this frame belongs to: the
	// calls made so far, the one the provider refused included.
	Iteration int
	// Sub is the part of Tokens that sub-agents spent in their own windows.
	Sub int
}

// SecondWindow is a window a frame carries beside the request: a
// sub-agent's own context while it works. Pages draw it to the same scale.
type SecondWindow struct {
	LabelKey  string // catalog key that names it
	LegendKey string // catalog key of a line under its meter ("" for none)
	// IdleKey is the catalog key of what an empty second window says on a
	// frame of the run that carries none ("": ui.second-idle, a sub-agent's).
	IdleKey string
	Blocks  []Block
	Total   int
}

// Line is a horizontal line drawn across the window at a token position.
type Line struct {
	Tokens int
	Key    string // catalog key of its label
}

// Memory is the memory file on disk and the copy injected at session start.
type Memory struct {
	Enabled  bool
	Path     string
	File     []string // lines of the file on disk
	Injected []string // lines of the copy injected at session start; nil when none
	New      []string // lines on disk that the injected copy lacks
}

// Cache compares a request with what the provider has cached from the
// previous one: the reused prefix and the recomputed suffix.
type Cache struct {
	ReusedTokens      int
	RecomputedTokens  int
	ReusedBlocks      int
	FirstChanged      string // id of the first block not reused; "" when all reused
	Reason            string // one of the Cache* reasons
	InvalidatedTokens int    // cached tokens recomputed because an earlier block changed
	OldStatusTokens   int    // tokens of earlier status blocks still in the request
}

// Reasons the cache reuse of a request ends where it does.
const (
	CacheCold           = "cold"            // first request: nothing cached
	CacheAppend         = "append"          // only new messages at the tail
	CacheStatusReplaced = "status_replaced" // the previous status message was removed
	CacheSystemChanged  = "system_changed"  // the system prompt changed (clock in it)
	CacheRewritten      = "rewritten"       // an earlier message was rewritten (compaction)
)

// Unit says how a figure is written.
type Unit uint8

// Units of figures.
const (
	UnitCount   Unit = iota // a count of things
	UnitTokens              // tokens
	UnitPercent             // a percent
	UnitChars               // characters
	UnitText                // Str holds the value (language-neutral: a path, a tool, a sign)
	UnitBlock               // Str names a block; written as its label
	UnitRatio               // Value is thousandths, written with two decimals
	UnitRounded             // a measured figure rounded to an integer
	UnitTenths              // Value is tenths, written with one decimal
	UnitKey                 // Str is a catalog key: the page's word for it
	UnitSigned              // tokens with a sign: a difference (+3.4k, −3.4k)
)

// Figure is a named value of a frame: narration and captions refer to it
// by name ({total}, {before}).
type Figure struct {
	Name  string
	Value int
	Unit  Unit
	Str   string // UnitText, UnitBlock, UnitKey
}

// Counter is a running total of a mechanism. By, when set, splits it
// (cache invalidations by tier) and is written under ByName.
type Counter struct {
	Name   string
	Value  int
	ByName string
	By     map[string]int
}

// Panel is a card beside the window: neutral data whose words come from
// the page's catalog (panel.<ID>.<row key>) and whose prose comes from the
// lesson's narration (Section).
type Panel struct {
	ID      string
	Tone    string // info, warn, ok
	Rows    []Row
	Section string // a narration section rendered as the panel's body
	Notes   []Msg  // catalog messages under the rows
}

// Row is one line of a panel: a catalog key and its figures. Value is
// written through the catalog key <panel>.<key>.value when it exists, else
// as the figures joined; Note through <panel>.<key>.note.
type Row struct {
	Key    string
	Values []Figure
	Note   *Msg
	Emph   bool
}

// Msg is a catalog key with named figures to fill it.
type Msg struct {
	Key  string
	Args []Figure
}

// Block is one message of the request as drawn.
type Block struct {
	ID        string
	Role      Role
	Kind      Kind
	Label     Text
	LabelKey  string // catalog key that names the block; {0} is Label or the tool
	Tokens    int
	Content   string
	Origin    *Msg       // where its text comes from (catalog key origin.<Key>); nil for text the harness keeps as given
	Summary   *SummaryOf // set on summary blocks
	Tool      string     // tool name, on tool calls and results
	ToolUseID string     // pairs a tool call with its result
	Args      string     // a tool call's arguments
	Attrs     []Attr     // figures the frames API carries on the block (chars, tier, distance)
	Badges    []Badge    // small labels the page draws on the block
	Usage     *Usage     // the provider's usage for the call that wrote it (a recorded session)

	New      bool // not in the previous frame's request
	Selected bool // inside the compaction range being shown
	Touched  bool // rewritten in place before this frame's request (a compressor's pass)
	// Spotlight asks the page to show the block's text beside the window
	// (a new summary, a pending one).
	Spotlight    bool
	Cached       bool  // inside the reused prefix of the prompt cache
	FirstChanged bool  // the first block the cache cannot reuse
	tier         int8  // the tier a compressor classified it in (0: untouched)
	ref          int32 // 1 + the index of the version of the replay's store it was last found as (0: none)
}

// Attr is a named integer the frames API carries on a block.
type Attr struct {
	Name  string
	Value int
}

// Attr returns the block's attribute name and whether it has one.
func (b *Block) Attr(name string) (int, bool) {
	for _, a := range b.Attrs {
		if a.Name == name {
			return a.Value, true
		}
	}
	return 0, false
}

// Badge is a catalog key (badge.<Key>) with figures, and a tone (info,
// warn, ok, muted) that picks its colour. Minor badges are left out where
// a block is too thin to carry more than one.
type Badge struct {
	Key   string
	Args  []Figure
	Tone  string
	Minor bool
}

// SummaryOf says where a summary block's text came from.
type SummaryOf struct {
	Card         string   // card id; empty for a mechanical excerpt
	Version      int      // 1-based version of the card's text; 0 for a mechanical excerpt
	Versions     int      // how many versions the card has
	ModelWritten bool     // a model's output, not text written for the lesson
	Mechanical   bool     // no card covers this range: a mechanical excerpt
	Covers       []string // ids of the blocks it replaced
	Provenance   Text
}

// Event is something that happened in a frame, for the frames API and the
// "what changed" list.
type Event struct {
	Type   string `json:"type"`
	Tokens int    `json:"tokens,omitempty"`
	Fact   string `json:"fact,omitempty"`
	Found  *bool  `json:"found,omitempty"`
	Reason string `json:"reason,omitempty"`
	Line   string `json:"line,omitempty"`
	Block  string `json:"block,omitempty"`
	Tier   int    `json:"tier,omitempty"`
	Index  *int   `json:"index,omitempty"`
	// Variant picks the catalog sentence of the event (event.<type>.<variant>).
	Variant string `json:"-"`
}

// Event types.
const (
	EventSessionStart      = "session_start"
	EventSessionEnd        = "session_end"
	EventMemoryWrite       = "memory_write"
	EventMemoryOff         = "memory_off"
	EventMessage           = "message"
	EventThresholdCrossed  = "threshold_crossed"
	EventRangeSelected     = "range_selected"
	EventSummary           = "summary"
	EventCompaction        = "compaction"
	EventHeavyTail         = "heavy_tail"
	EventCompactionSkipped = "compaction_skipped"
	EventOverflow          = "overflow"
	EventLookup            = "lookup"
	EventSkipped           = "skipped"
	EventStatusInjected    = "status_injected"
	EventStatusRemoved     = "status_removed"
	EventToolCall          = "tool_call"
	EventDecision          = "decision"
	EventCacheCompaction   = "cache_compaction"
	EventPressure          = "pressure"      // the request crossed the pressure line: the compressor starts
	EventSemanticCall      = "semantic_call" // a model call to summarize a result (Reason ok or failed)
	EventReread            = "reread"        // the agent re-ran a read (one extra round trip)
	EventRefused           = "refused"       // the provider refused the request (Reason: its error)
)

// Blocks is the request, in order. While the harness emits the frame
// (in the mechanisms' frame hooks) it is the frame's own slice, which they
// may change; afterwards it is a new copy made from the blocks the
// replay's frames share: changing it changes nothing.
func (f *Frame) Blocks() []Block { return f.req.blocks() }

// EachBlock calls yield with each block of the request, in order, as
// Blocks would hold it, until yield returns false. Nothing is copied but
// the block yield gets, which it must not keep: a way to look through a
// long request without the copy Blocks makes.
func (f *Frame) EachBlock(yield func(b *Block) bool) { f.req.each(yield) }

// BlockCount is how many blocks the request holds (len(f.Blocks()),
// without the copy).
func (f *Frame) BlockCount() int { return f.req.count() }

// SetBlocks makes bs the request of a frame made outside a replay (a view
// of a second window).
func (f *Frame) SetBlocks(bs []Block) { f.req = request{n: int32(len(bs)), open: bs, isOpen: true} }

// Figure returns the frame's figure name and whether it has one. Besides
// the figures its mechanisms gave it, every frame has total (tokens in
// the request) and session.
func (f *Frame) Figure(name string) (Figure, bool) {
	switch name {
	case "total":
		return tokens(name, f.Total), true
	case "session":
		return count(name, f.Session), true
	}
	for _, g := range f.Figures {
		if g.Name == name {
			return g, true
		}
	}
	return Figure{}, false
}

// Block returns the frame's block id and whether the request holds it (a
// copy, once the frame is closed, as Blocks).
func (f *Frame) Block(id string) (*Block, bool) {
	if b, ok := f.req.block(id); ok {
		return b, true
	}
	if f.Pending != nil && f.Pending.ID == id {
		return f.Pending, true
	}
	if f.Second != nil {
		for i := range f.Second.Blocks {
			if f.Second.Blocks[i].ID == id {
				return &f.Second.Blocks[i], true
			}
		}
	}
	return nil, false
}

// Counter returns the frame's counter name.
func (f *Frame) Counter(name string) (Counter, bool) {
	for _, c := range f.Counters {
		if c.Name == name {
			return c, true
		}
	}
	return Counter{}, false
}

// tokens is a figure in tokens.
func tokens(name string, v int) Figure { return Figure{Name: name, Value: v, Unit: UnitTokens} }

// count is a figure that counts things.
func count(name string, v int) Figure { return Figure{Name: name, Value: v, Unit: UnitCount} }

// blockRef is a figure naming a block.
func blockRef(name, id string) Figure { return Figure{Name: name, Unit: UnitBlock, Str: id} }

// signedTokens is a difference in tokens, written with its sign.
func signedTokens(name string, v int) Figure { return Figure{Name: name, Value: v, Unit: UnitSigned} }

// text is a figure of language-neutral text.
func text(name, s string) Figure { return Figure{Name: name, Unit: UnitText, Str: s} }

// key is a figure whose words are a catalog key.
func key(name, k string) Figure { return Figure{Name: name, Unit: UnitKey, Str: k} }
