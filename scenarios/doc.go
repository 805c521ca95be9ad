// Package scenarios holds the built-in lessons as data files (a lesson.yaml
// trace, summaries.yaml recordings and narration.<lang>.md per lesson) and
// the loader that reads, validates and renders them once at start-up.
//
// A lesson directory holds:
//
//	lesson.yaml        the trace, sizes and facts (see context-memory/lesson.yaml)
//	summaries.yaml     summary cards: recordings per compaction range (optional)
//	narration.en.md    narration sections, "@@ key", "# headline", Markdown body
//	narration.ja.md    the same keys in Japanese
//
// Errors name the file, the line and the field.
package scenarios

import (
	"embed"
	"io/fs"
)

//go:embed */*.yaml */*.md
var builtin embed.FS

// Builtin returns the lessons shipped in the binary.
func Builtin() fs.FS { return builtin }
