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
	Cache          *Cache      // prompt-cache reuse of this request (status engine)
	Counters       *Counters   // running counters (tiered engine)
}

// FrameDecision is the model call where the arms of an experiment differ.
const FrameDecision FrameKind = "decision"

// Cache compares a request with what the provider has cached from the
// previous one: the reused prefix and the recomputed suffix.
type Cache struct {
	ReusedTokens      int
	RecomputedTokens  int
	ReusedBlocks      int
	FirstChanged      string // id of the first block not reused; "" when all reused
	Reason            string // CacheCold, CacheAppend, CacheStatusReplaced, CacheSystemChanged
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

// Counters are the running totals of the tiered engine.
type Counters struct {
	TokensSaved        int
	CompressionCalls   int
	Rereads            int
	RoundTrips         int
	CacheInvalidations map[int]int // by tier
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

	Tool         string // tool name, on tool calls and results
	ToolUseID    string // pairs a tool call with its result
	Chars        int    // characters of the content (tiered engine)
	Tier         int    // 0 untouched, else the tier it was classified in
	Distance     int    // tool results after this one
	Floor        bool   // a floor tool: never below Tier 2
	Cached       bool   // inside the reused prefix of the prompt cache
	FirstChanged bool   // the first block the cache cannot reuse
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
	Tier   int    `json:"tier,omitempty"`
	Index  *int   `json:"index,omitempty"`
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
)
