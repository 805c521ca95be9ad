package sim

// TieredTrace is the tiered engine's trajectory (filled in by the
// tiered-compaction lesson's loader).
type TieredTrace struct{}

// runTiered replays a tiered-compaction trajectory.
func runTiered(l *Lesson, p Policy, tok Tokenizer) []Frame { return nil }
