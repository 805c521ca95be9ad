package scenarios

import (
	"gopkg.in/yaml.v3"

	"ctxsim/sim"
)

// The raw* types mirror the files of a lesson directory; decoding rejects
// unknown fields. One schema serves every lesson: a lesson names its
// mechanisms and gives one common trace.

type rawLesson struct {
	ID     string   `yaml:"id"`
	Order  int      `yaml:"order"`
	Title  sim.Text `yaml:"title"`
	Source sim.Text `yaml:"source"`
	Window int      `yaml:"window"`
	// Sizes: "trace" (every message gives its size) or "counted" (the
	// o200k_base count of each text).
	Sizes string `yaml:"sizes"`
	// Draw is how the page draws the window: blocks (one per message, the
	// default) or pairs (a tool call and its result share a row: dozens of
	// iterations fit a projector).
	Draw string `yaml:"draw"`
	// Policy lists the parameters in URL order (default: the mechanisms').
	Policy     []string      `yaml:"policy"`
	Mechanisms rawMechanisms `yaml:"mechanisms"`
	Facts      []rawFact     `yaml:"facts"`
	System     rawMessage    `yaml:"system"`
	Trace      []rawStep     `yaml:"trace"`
	// Generate is read by tools/gentrace only: what it needs to generate
	// result texts (the loader reads the files it wrote).
	Generate yaml.Node `yaml:"generate"`
	// Recorded says the trace is a real session's record (an imported
	// session): its texts are recorded, not written for the lesson.
	Recorded *rawRecording `yaml:"recorded"`
}

// rawRecording is where an imported session comes from.
type rawRecording struct {
	File     string `yaml:"file"`
	Format   string `yaml:"format"`
	Model    string `yaml:"model"`
	Started  string `yaml:"started"`
	Ended    string `yaml:"ended"`
	Imported string `yaml:"imported"`
	Redacted string `yaml:"redacted"`
}

// rawMechanisms holds each mechanism's configuration; the order of the
// keys in the file is the lesson's narration precedence.
type rawMechanisms struct {
	Memory      *rawMemory      `yaml:"memory"`
	Compaction  *rawCompaction  `yaml:"compaction"`
	StatusBar   *rawStatusBar   `yaml:"status_bar"`
	Counter     *rawCounter     `yaml:"counter"`
	Clock       *struct{}       `yaml:"clock"`
	Tiered      *rawTiered      `yaml:"tiered"`
	Workspace   *rawWorkspace   `yaml:"workspace"`
	Pairs       *struct{}       `yaml:"pairs"`
	PromptCache *rawPromptCache `yaml:"prompt_cache"`
	Limit       *rawLimit       `yaml:"limit"`
	Usage       *struct{}       `yaml:"usage"`
	Compression *rawCompression `yaml:"compression"`
	History     *rawHistory     `yaml:"history"`
	Subagent    *rawSubagent    `yaml:"subagent"`
	Spend       *struct{}       `yaml:"spend"`

	Arms         *rawArms         `yaml:"arms"`         // mech_arms.go
	Layout       *rawLayout       `yaml:"layout"`       // mech_layout.go
	Instructions *rawInstructions `yaml:"instructions"` // mech_instructions.go
	Layers       *rawLayers       `yaml:"layers"`       // mech_layers.go
}

// rawCompression: what happens to each tool result, by strategy.
type rawCompression struct {
	// Strategies offered (the strategy parameter), the default first; all
	// six when left out.
	Strategies []string `yaml:"strategies"`
	Trigger    int      `yaml:"trigger"` // adaptive: percent of the window
	Cards      string   `yaml:"cards"`   // summaries: one card per result and strategy
	// Tools whose results the strategies that summarize on arrival
	// compress; the others' results (a fetched page) stay whole. All tools
	// when left out.
	Tools []string `yaml:"tools"`
}

// rawHistory: what history each request carries.
type rawHistory struct {
	// Choices offered (the history parameter: sliding, full, adaptive), the
	// default first; one means no parameter.
	Choices  []string `yaml:"choices"`
	Messages int      `yaml:"messages"` // sliding: the most recent messages kept
	Keep     int      `yaml:"keep"`     // sliding: first messages that never slide out (the task)
	Trigger  int      `yaml:"trigger"`  // adaptive: percent of the window
	Cards    string   `yaml:"cards"`    // adaptive: one card per result
}

// rawSubagent: the sub-agent that does the steps marked agent: sub when
// isolation is on.
type rawSubagent struct {
	System rawMessage `yaml:"system"` // its system prompt
	Task   rawMessage `yaml:"task"`   // the main agent's tool call that hands the task over
	Prompt rawMessage `yaml:"prompt"` // the task as the sub-agent reads it (its first message)
}

// rawLimit offers window sizes as a policy parameter, the default first.
type rawLimit struct {
	Sizes []int `yaml:"sizes"`
}

type rawMemory struct {
	Path   string   `yaml:"path"`
	Tokens int      `yaml:"tokens"`
	Lines  []string `yaml:"lines"`
}

type rawCompaction struct {
	Threshold int    `yaml:"threshold"`
	Presets   []int  `yaml:"presets"`
	Tail      int    `yaml:"tail"`
	Cards     string `yaml:"cards"`    // a file of the lesson directory
	Recorded  bool   `yaml:"recorded"` // the trace marks where a recorded session compacted (compact steps)
	Loss      bool   `yaml:"loss"`     // summary frames list what of the range the summary keeps
}

type rawConstraint struct {
	Tool string `yaml:"tool"`
	Key  string `yaml:"key"`
	Max  int    `yaml:"max"`
}

type rawStatusBar struct {
	Constraint rawConstraint `yaml:"constraint"`
	Todo       string        `yaml:"todo"`
}

type rawCounter struct {
	Constraint rawConstraint `yaml:"constraint"`
}

type rawTiered struct {
	Pressure          int          `yaml:"pressure"`
	Rules             rawTierRules `yaml:"rules"`
	SummaryProvenance sim.Text     `yaml:"summary_provenance"`
	Optional          bool         `yaml:"optional"` // strategy "off" offered (the default); results need no summaries
}

type rawTierRules struct {
	KeepRecent         int      `yaml:"keep_recent"`
	Tier1Distance      int      `yaml:"tier1_distance"`
	SemanticMinChars   int      `yaml:"semantic_min_chars"`
	ExcerptChars       int      `yaml:"excerpt_chars"`
	HeadPercent        int      `yaml:"head_percent"`
	MaxSemanticPerPass int      `yaml:"max_semantic_per_pass"`
	ArgsChars          int      `yaml:"args_chars"`
	FloorTools         []string `yaml:"floor_tools"`
	FloorPrefixes      []string `yaml:"floor_prefixes"`
	SkipTools          []string `yaml:"skip_tools"`
}

type rawWorkspace struct {
	Files []rawFile `yaml:"files"`
}

// rawFile is a file of the workspace with its full text. Lines and chars,
// when given, are the figures the source states; the loader checks the
// text against them.
type rawFile struct {
	Path  string `yaml:"path"`
	Lines int    `yaml:"lines"`
	Chars int    `yaml:"chars"`
	Text  string `yaml:"text"`
}

type rawPromptCache struct {
	Alpha   int   `yaml:"alpha"`
	Presets []int `yaml:"presets"`
	Panel   bool  `yaml:"panel"`
}

type rawFact struct {
	ID      string   `yaml:"id"`
	Pattern string   `yaml:"pattern"`
	Label   sim.Text `yaml:"label"`
}

type rawStep struct {
	Step     string       `yaml:"step"`
	Type     string       `yaml:"type"`
	Time     string       `yaml:"time"`
	Show     string       `yaml:"show"` // "request": the frame is the request of the step's call
	Decision bool         `yaml:"decision"`
	Messages []rawMessage `yaml:"messages"`
	Line     string       `yaml:"line"`
	Tokens   int          `yaml:"tokens"`
	Branch   *rawBranch   `yaml:"branch"`
	Card     string       `yaml:"card"` // compact: the card of the recorded summary
	// Needs: facts the step's first model call must see; for each one the
	// window lacks, the agent first makes that need's calls.
	Needs []rawNeed `yaml:"needs"`
	// Agent: sub marks a step a sub-agent does (the subagent mechanism).
	Agent string `yaml:"agent"`
}

// rawNeed is a fact a step needs and what the agent does without it.
type rawNeed struct {
	Fact     string       `yaml:"fact"`
	Step     string       `yaml:"step"`     // narration key of the frame that shows the recovery
	Messages []rawMessage `yaml:"messages"` // the calls: a tool call repeated or refined, and its result
}

type rawBranch struct {
	Fact    string       `yaml:"fact"`
	Found   []rawMessage `yaml:"found"`
	Missing []rawMessage `yaml:"missing"`
}

// rawMessage is a message, or (with call) a tool call and its result.
type rawMessage struct {
	ID      string     `yaml:"id"`
	Role    string     `yaml:"role"`
	Kind    string     `yaml:"kind"`
	Label   sim.Text   `yaml:"label"`
	Tokens  int        `yaml:"tokens"`
	Content string     `yaml:"content"`
	Answer  *rawAnswer `yaml:"answer"`
	Call    *rawCall   `yaml:"call"`
	Usage   *rawUsage  `yaml:"usage"`
	// Origin overrides where the text comes from: "authored" marks text
	// written for the lesson inside a recorded one (a stand-in for a system
	// prompt the file does not hold).
	Origin string `yaml:"origin"`
	// Continues: the model call of the assistant message before it in the
	// step wrote this one too (a recorded response of text and tool calls).
	Continues bool `yaml:"continues"`
	// Chars: the characters of the whole text of a trace-sized tool result
	// whose content is an excerpt (a trace figure).
	Chars int `yaml:"chars"`
	// Tool: the tool a trace-sized tool_call calls (its result has it too).
	Tool string `yaml:"tool"`
}

// rawUsage is a provider's accounting of the model call that wrote a
// message, as a recorded session has it.
type rawUsage struct {
	Input         int `yaml:"input"`
	CacheRead     int `yaml:"cache_read"`
	CacheCreation int `yaml:"cache_creation"`
	Output        int `yaml:"output"`
}

type rawAnswer struct {
	Fact    string `yaml:"fact"`
	Found   string `yaml:"found"`
	Missing string `yaml:"missing"`
}

// rawCall is a tool call and its result: written out (result), a file
// operation the workspace performs (read, write, edit), or a text a tool
// of the repository generated (result.file).
type rawCall struct {
	ID   string    `yaml:"id"`
	Tool string    `yaml:"tool"`
	Args yaml.Node `yaml:"args"`
	// ArgsJSON is the arguments as the session sent them, a JSON object
	// (a recorded call's arguments may nest); instead of args.
	ArgsJSON string    `yaml:"args_json"`
	Label    sim.Text  `yaml:"label"`
	Result   yaml.Node `yaml:"result"` // a string, or a mapping: text, file, chars, gen
	Read     string    `yaml:"read"`
	Write    string    `yaml:"write"`
	Edit     *rawEdit  `yaml:"edit"`
	Summary  string    `yaml:"summary"`
	Usage    *rawUsage `yaml:"usage"` // the call's message, in a recorded session
	// Continues: the call is part of the model call of the assistant
	// message before it in the step (parallel calls of one response).
	Continues bool `yaml:"continues"`
}

type rawEdit struct {
	Path string `yaml:"path"`
	Old  string `yaml:"old"`
	New  string `yaml:"new"`
}

type rawSummaries struct {
	Provenance sim.Text `yaml:"provenance"`
	Prompt     string   `yaml:"prompt"` // what ctxsim record asks a summarizer (default: its own prompt)
	// Prompts: what ctxsim record asks for the cards of each strategy.
	Prompts map[string]string `yaml:"prompts"`
	Cards   []rawCard         `yaml:"cards"`
}

type rawCard struct {
	ID       string       `yaml:"id"`
	Covers   []string     `yaml:"covers"`
	Tokens   int          `yaml:"tokens"`
	Versions []rawVersion `yaml:"versions"`
	// Strategy: the compression strategy the card serves (compression and
	// history cards); a compaction card has none.
	Strategy string `yaml:"strategy"`
	Prompt   string `yaml:"prompt"` // what ctxsim record asks for this card (default: the file's)
}

// rawRecordedFile is recordings.yaml: summaries ctxsim record asked a model
// for, one entry per card and run, added to the cards as recorded versions.
type rawRecordedFile struct {
	Recordings []rawRecordedSummary `yaml:"recordings"`
}

// rawRecordedSummary is one recorded summary and where it came from.
type rawRecordedSummary struct {
	Card     string `yaml:"card"`
	Content  string `yaml:"content"`
	Model    string `yaml:"model"`
	Endpoint string `yaml:"endpoint"`
	API      string `yaml:"api"`
	Date     string `yaml:"date"` // RFC 3339
	Prompt   string `yaml:"prompt"`
}

type rawVersion struct {
	Content    string   `yaml:"content"`
	Provenance sim.Text `yaml:"provenance"`
	Recorded   bool     `yaml:"recorded"`
}
