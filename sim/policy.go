package sim

import "fmt"

// Policy is how the simulated harness behaves. Modes of a lesson are
// policies over one trace, not separate scripts. Each engine reads only the
// fields of its parameters (see EngineParams).
type Policy struct {
	// context engine
	Compaction       bool // compact when the window passes the threshold
	Memory           bool // keep and inject MEMORY.md
	ThresholdPercent int  // 1..100, percent of the window
	Recording        int  // 1..Recordings: which recording each summary card shows

	// status engine
	Status       string // off, replace, append
	Counter      bool   // write the repeat count into each tool result
	Clock        bool   // put "Current time" into the system prompt (the anti-pattern)
	AlphaPercent int    // cached-input price as a percent of the normal input price

	// tiered engine
	Strategy   string // tiered, age
	Floor      bool   // floor tools never go below Tier 2
	Summarizer string // ok, broken
	Budget     string // attempts, successes: what the semantic budget counts
	Pairs      string // kept, broken
}

// PolicyError names a policy field whose value is not allowed.
type PolicyError struct {
	Field   string
	Allowed string
}

// Error names the field and what it allows.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("policy field %s: allowed %s", e.Field, e.Allowed)
}

// Tokenizer counts tokens of a text. The context engine uses it only for
// text it makes itself (a mechanical excerpt); the other engines size their
// blocks with it.
type Tokenizer interface {
	Count(text string) int
}
