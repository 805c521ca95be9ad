package lessonfile

import "ctxsim/sim"

// Summaries is a cards file (summaries.yaml): the summary cards of a
// compaction, compression or history mechanism, each with versions of its
// text.
type Summaries struct {
	Provenance sim.Text `yaml:"provenance,omitempty"`
	Prompt     string   `yaml:"prompt,omitempty"` // what ctxsim record asks a summarizer (default: its own prompt)
	// Prompts: what ctxsim record asks for the cards of each strategy.
	Prompts map[string]string `yaml:"prompts,omitempty"`
	Cards   []Card            `yaml:"cards"`
}

// Card is a summary of an exact range of blocks.
type Card struct {
	ID       string    `yaml:"id"`
	Covers   []string  `yaml:"covers"`
	Tokens   int       `yaml:"tokens,omitempty"`
	Versions []Version `yaml:"versions"`
	// Strategy: the compression strategy the card serves (compression and
	// history cards); a compaction card has none.
	Strategy string `yaml:"strategy,omitempty"`
	Prompt   string `yaml:"prompt,omitempty"` // what ctxsim record asks for this card (default: the file's)
	// Opaque: the file does not hold the text of the summary the recorded
	// session compacted to (Codex's is an item the provider encrypted):
	// the card's text only says so, and the session's usage sizes it.
	Opaque bool `yaml:"opaque,omitempty"`
}

// Version is one text of a card, with where it comes from.
type Version struct {
	Content      string   `yaml:"content"`
	Provenance   sim.Text `yaml:"provenance,omitempty"`
	ModelWritten bool     `yaml:"recorded"`
}

// Recordings is recordings.yaml: summaries ctxsim record asked a model
// for, one entry per card and run, added to the cards as recorded
// versions.
type Recordings struct {
	Recordings []Take `yaml:"recordings"`
}

// Take is one summary a model wrote in a `ctxsim record` run, and where
// it came from.
type Take struct {
	Card     string `yaml:"card"`
	Content  string `yaml:"content"`
	Model    string `yaml:"model"`
	Endpoint string `yaml:"endpoint"`
	API      string `yaml:"api"`
	Date     string `yaml:"date"` // RFC 3339
	Prompt   string `yaml:"prompt"`
}
