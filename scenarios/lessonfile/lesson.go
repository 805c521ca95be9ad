package lessonfile

import (
	"gopkg.in/yaml.v3"

	"ctxsim/sim"
)

// The files of a lesson directory.
const (
	LessonFile     = "lesson.yaml"     // the lesson: Lesson
	RecordingsFile = "recordings.yaml" // summaries ctxsim record asked a model for: Recordings
)

// NarrationFile is the narration file of lang: narration.en.md.
func NarrationFile(lang string) string { return "narration." + lang + ".md" }

// Lesson is lesson.yaml. One schema serves every lesson: a lesson names
// its mechanisms and gives one common trace. Field order is the order the
// encoder writes (recorded: near the top, where the loader looks for it).
type Lesson struct {
	ID     string   `yaml:"id"`
	Order  int      `yaml:"order"`
	Title  sim.Text `yaml:"title"`
	Source sim.Text `yaml:"source,omitempty"`
	Window int      `yaml:"window"`
	// Sizes: "trace" (every message gives its size) or "counted" (the
	// o200k_base count of each text).
	Sizes string `yaml:"sizes,omitempty"`
	// Draw is how the page draws the window: blocks (one per message, the
	// default) or pairs (a tool call and its result share a row: dozens of
	// iterations fit a projector).
	Draw string `yaml:"draw,omitempty"`
	// Imported says the trace is a real session's record (an imported
	// session): its texts are recorded, not written for the lesson.
	Imported *ImportedSession `yaml:"recorded,omitempty"`
	// Policy lists the parameters in URL order (default: the mechanisms').
	Policy     []string   `yaml:"policy,omitempty"`
	Mechanisms Mechanisms `yaml:"mechanisms"`
	Facts      []Fact     `yaml:"facts,omitempty"`
	System     Message    `yaml:"system"`
	Trace      []Step     `yaml:"trace"`
	// Generate is read by tools/gentrace only: what it needs to generate
	// result texts (the loader reads the files it wrote).
	Generate *Generate `yaml:"generate,omitempty"`
}

// DecodeLesson strictly decodes lesson.yaml (Decode).
func DecodeLesson(name string, data []byte) (*Lesson, *File, error) {
	var l Lesson
	f, err := Decode(name, data, &l)
	if err != nil {
		return nil, nil, err
	}
	return &l, f, nil
}

// ImportedSession is where an imported session comes from.
type ImportedSession struct {
	File     string `yaml:"file"`
	Format   string `yaml:"format"`
	Model    string `yaml:"model,omitempty"`
	Started  string `yaml:"started,omitempty"`
	Ended    string `yaml:"ended,omitempty"`
	Imported string `yaml:"imported"`
	Redacted string `yaml:"redacted"`
}

// Fact is a fact the lesson tracks: a pattern over the texts of the window.
type Fact struct {
	ID      string   `yaml:"id"`
	Pattern string   `yaml:"pattern"`
	Label   sim.Text `yaml:"label"`
}

// Step is one step of the trace.
type Step struct {
	Step     string `yaml:"step"`
	Type     string `yaml:"type,omitempty"`
	Time     string `yaml:"time,omitempty"`
	Show     string `yaml:"show,omitempty"` // "request": a frame is the request of each of the step's calls; "last-request": of its last one
	Decision bool   `yaml:"decision,omitempty"`
	Card     string `yaml:"card,omitempty"` // compact: the card of the recorded summary
	// Messages of a messages step.
	Messages []Message `yaml:"messages,omitempty"`
	Line     string    `yaml:"line,omitempty"`   // remember: the line MEMORY.md gains
	Tokens   int       `yaml:"tokens,omitempty"` // remember: what the line adds to the injected copy
	Branch   *Branch   `yaml:"branch,omitempty"`
	// Needs: facts the step's first model call must see; for each one the
	// window lacks, the agent first makes that need's calls.
	Needs []Need `yaml:"needs,omitempty"`
	// Agent: sub marks a step a sub-agent does (the subagent mechanism).
	Agent string `yaml:"agent,omitempty"`
}

// Need is a fact a step needs and what the agent does without it.
type Need struct {
	Fact     string    `yaml:"fact"`
	Step     string    `yaml:"step"`     // narration key of the frame that shows the recovery
	Messages []Message `yaml:"messages"` // the calls: a tool call repeated or refined, and its result
}

// Branch is a lookup whose messages depend on whether the window holds a
// fact.
type Branch struct {
	Fact    string    `yaml:"fact"`
	Found   []Message `yaml:"found"`
	Missing []Message `yaml:"missing"`
}

// Message is a message, or (with call) a tool call and its result.
type Message struct {
	ID      string   `yaml:"id,omitempty"`
	Role    string   `yaml:"role,omitempty"`
	Kind    string   `yaml:"kind,omitempty"`
	Label   sim.Text `yaml:"label,omitempty"`
	Tokens  int      `yaml:"tokens,omitempty"`
	Content string   `yaml:"content,omitempty"`
	Answer  *Answer  `yaml:"answer,omitempty"`
	Usage   *Usage   `yaml:"usage,omitempty"`
	Call    *Call    `yaml:"call,omitempty"`
	// Origin overrides where the text comes from: "authored" marks text
	// written for the lesson inside a recorded one (a stand-in for a system
	// prompt the file does not hold).
	Origin string `yaml:"origin,omitempty"`
	// Continues: the model call of the assistant message before it in the
	// step wrote this one too (a recorded response of text and tool calls).
	Continues bool `yaml:"continues,omitempty"`
	// Chars: the characters of the whole text of a trace-sized tool result
	// whose content is an excerpt (a trace figure).
	Chars int `yaml:"chars,omitempty"`
	// Tool: the tool a trace-sized tool_call calls (its result has it too).
	Tool string `yaml:"tool,omitempty"`
}

// Usage is a provider's accounting of the model call that wrote a
// message, as a recorded session has it.
type Usage struct {
	Input         int `yaml:"input"`
	CacheRead     int `yaml:"cache_read"`
	CacheCreation int `yaml:"cache_creation"`
	Output        int `yaml:"output"`
}

// Answer is an assistant message whose text depends on whether the window
// holds a fact.
type Answer struct {
	Fact    string `yaml:"fact"`
	Found   string `yaml:"found"`
	Missing string `yaml:"missing"`
}

// Call is a tool call and its result: written out (result), a file
// operation the workspace performs (read, write, edit), or a text a tool
// of the repository generated (result.file).
type Call struct {
	ID   string `yaml:"id"`
	Tool string `yaml:"tool"`
	// Args is a mapping of scalars, kept in order (the loader reads it).
	Args yaml.Node `yaml:"args,omitempty"`
	// ArgsJSON is the arguments as the session sent them, a JSON object
	// (a recorded call's arguments may nest); instead of args.
	ArgsJSON string   `yaml:"args_json,omitempty"`
	Label    sim.Text `yaml:"label,omitempty"`
	// Result is a string, or a mapping: Result (text, file, chars, gen).
	Result  yaml.Node `yaml:"result,omitempty"`
	Read    string    `yaml:"read,omitempty"`
	Write   string    `yaml:"write,omitempty"`
	Edit    *Edit     `yaml:"edit,omitempty"`
	Summary string    `yaml:"summary,omitempty"`
	Usage   *Usage    `yaml:"usage,omitempty"` // the call's message, in a recorded session
	// Continues: the call is part of the model call of the assistant
	// message before it in the step (parallel calls of one response).
	Continues bool `yaml:"continues,omitempty"`
}

// Edit is an edit call: one exact occurrence of Old becomes New.
type Edit struct {
	Path string `yaml:"path"`
	Old  string `yaml:"old"`
	New  string `yaml:"new"`
}

// Result is a call's result given as a mapping: its text, or the file
// that holds it (generated by tools/gentrace when Gen is set), and its
// characters when the source states them.
type Result struct {
	Text  string `yaml:"text"`
	File  string `yaml:"file"`
	Chars int    `yaml:"chars"`
	Gen   *Gen   `yaml:"gen"`
}

// Gen is how tools/gentrace generates a result's text: the generator, its
// seed and the lines the text must hold.
type Gen struct {
	Kind  string   `yaml:"kind"`
	Seed  uint64   `yaml:"seed"`
	Lines []string `yaml:"lines"`
}

// Generate is what tools/gentrace needs of a lesson besides its trace:
// the Go module and the other files of the repository, by size.
type Generate struct {
	Module string     `yaml:"module"`
	Repo   []RepoFile `yaml:"repo"`
}

// RepoFile is a file of the repository known by path and size only.
type RepoFile struct {
	Path  string `yaml:"path"`
	Bytes int    `yaml:"bytes"`
}

// TextResult is a result written out as text.
func TextResult(text string) yaml.Node { return *textNode(text) }
