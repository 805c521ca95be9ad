package sim

// FrameKind says what a frame shows.
type FrameKind string

// Frame kinds. A trace step gives a FrameStep; a compaction adds four frames
// (crossed, selected, summary, replaced); a refused request adds FrameOverflow.
const (
	FrameStep     FrameKind = "step"
	FrameCrossed  FrameKind = "crossed"
	FrameSelected FrameKind = "selected"
	FrameSummary  FrameKind = "summary"
	FrameReplaced FrameKind = "replaced"
	FrameOverflow FrameKind = "overflow"
)

// ErrContextLengthExceeded is the provider error of a request above the window.
const ErrContextLengthExceeded = "context_length_exceeded"

// Frame is the state of the simulated harness after one visible step.
type Frame struct {
	Step      int       // 1-based position in the run
	Kind      FrameKind // what happened
	TraceStep string    // id of the trace step this frame belongs to
	// Narration holds the narration keys for this frame, most specific first
	// ("loss-check@missing", "loss-check").
	Narration []string
	Blocks    []Block // the window, in request order
	Total     int     // tokens in the window (the refused request, on overflow)
	Error     string  // ErrContextLengthExceeded when a call was refused
	// Pending is the summarizer's output shown beside the window before it
	// replaces the selected range (FrameSummary only).
	Pending        *Block
	MemoryEnabled  bool
	MemoryFile     []string // lines of MEMORY.md on disk
	MemoryInjected []string // lines of the copy injected at session start
	MemoryNew      []string // lines on disk that the injected copy lacks
	Session        int      // 1-based session number; 0 before the first
	Events         []Event
	Compaction     *Compaction // set on the four frames of a compaction
	Decisive       bool        // a frame a presenter should stop on
}

// Block is one message of the window as drawn.
type Block struct {
	ID       string
	Role     Role
	Kind     Kind
	Label    Text
	Tokens   int
	Content  string
	New      bool       // not in the previous frame's window
	Selected bool       // inside the compaction range being shown
	Summary  *SummaryOf // set on summary blocks
}

// SummaryOf says where a summary block's text came from.
type SummaryOf struct {
	Card       string   // card id; empty for a mechanical excerpt
	Recording  int      // 1-based recording number; 0 for a mechanical excerpt
	Mechanical bool     // no recording exists for this range
	Covers     []string // ids of the blocks it replaced
	Provenance Text
}

// Compaction describes the compaction a frame belongs to.
type Compaction struct {
	Number       int // 1 for the first compaction of the run
	Before       int // tokens before
	After        int // tokens after (known from the replaced frame on)
	Threshold    int // threshold in tokens
	Count        int // blocks in the range
	RangeTokens  int
	Summary      int  // summary tokens
	Resummarize  bool // the range holds an earlier summary
	StillAbove   bool // after > threshold: the heavy tail
	Mechanical   bool // no recording for this range
	Emergency    bool // forced by the window after the breaker stopped routine compaction
	RangeIDs     []string
	SummaryBlock string
}

// Event is something that happened in a frame, for the frames API and the
// "what changed" line.
type Event struct {
	Type   string `json:"type"`
	Tokens int    `json:"tokens,omitempty"`
	Fact   string `json:"fact,omitempty"`
	Found  *bool  `json:"found,omitempty"`
	Reason string `json:"reason,omitempty"`
	Line   string `json:"line,omitempty"`
	Block  string `json:"block,omitempty"`
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
)
