package sim

import "fmt"

// Policy is how the simulated harness behaves. Modes of a lesson are
// policies over one trace, not separate scripts.
type Policy struct {
	Compaction       bool // compact when the window passes the threshold
	Memory           bool // keep and inject MEMORY.md
	ThresholdPercent int  // 1..100, percent of the window
	Recording        int  // 1..Recordings: which recording each summary card shows
}

// DefaultPolicy is the lesson's default mode: everything on, its threshold,
// recording 1.
func (l *Lesson) DefaultPolicy() Policy {
	return Policy{Compaction: true, Memory: true, ThresholdPercent: l.ThresholdPercent, Recording: 1}
}

// Validate reports the first field of p that is out of range.
func (p Policy) Validate() error {
	if p.ThresholdPercent < 1 || p.ThresholdPercent > 100 {
		return &PolicyError{Field: "threshold", Allowed: "an integer from 1 to 100"}
	}
	if p.Recording < 1 || p.Recording > Recordings {
		return &PolicyError{Field: "rec", Allowed: fmt.Sprintf("an integer from 1 to %d", Recordings)}
	}
	return nil
}

// PolicyError names a policy field whose value is not allowed.
type PolicyError struct {
	Field   string
	Allowed string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("policy field %s: allowed %s", e.Field, e.Allowed)
}

// Tokenizer counts tokens of a text. The engine uses it only for text it
// makes itself (a mechanical excerpt); trace sizes come from the lesson.
type Tokenizer interface {
	Count(text string) int
}
