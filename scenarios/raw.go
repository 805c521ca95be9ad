package scenarios

import "ctxsim/sim"

// The raw* types mirror the YAML files; decoding rejects unknown fields.

type rawLesson struct {
	ID               string     `yaml:"id"`
	Engine           string     `yaml:"engine"`
	Status           *rawStatus `yaml:"status"`
	Tiered           *rawTiered `yaml:"tiered"`
	Order            int        `yaml:"order"`
	Title            sim.Text   `yaml:"title"`
	Source           sim.Text   `yaml:"source"`
	Window           int        `yaml:"window"`
	ThresholdPercent int        `yaml:"threshold_percent"`
	TailMessages     int        `yaml:"tail_messages"`
	Thresholds       []int      `yaml:"thresholds"`
	Facts            []rawFact  `yaml:"facts"`
	System           rawMessage `yaml:"system"`
	Memory           rawMemory  `yaml:"memory"`
	Trace            []rawStep  `yaml:"trace"`
}

type rawFact struct {
	ID      string   `yaml:"id"`
	Pattern string   `yaml:"pattern"`
	Label   sim.Text `yaml:"label"`
}

type rawMemory struct {
	Path   string   `yaml:"path"`
	Tokens int      `yaml:"tokens"`
	Lines  []string `yaml:"lines"`
}

type rawStep struct {
	Step     string       `yaml:"step"`
	Type     string       `yaml:"type"`
	Messages []rawMessage `yaml:"messages"`
	Line     string       `yaml:"line"`
	Tokens   int          `yaml:"tokens"`
	Branch   *rawBranch   `yaml:"branch"`
}

type rawBranch struct {
	Fact    string       `yaml:"fact"`
	Found   []rawMessage `yaml:"found"`
	Missing []rawMessage `yaml:"missing"`
}

type rawMessage struct {
	ID      string     `yaml:"id"`
	Role    string     `yaml:"role"`
	Kind    string     `yaml:"kind"`
	Label   sim.Text   `yaml:"label"`
	Tokens  int        `yaml:"tokens"`
	Content string     `yaml:"content"`
	Answer  *rawAnswer `yaml:"answer"`
}

type rawAnswer struct {
	Fact    string `yaml:"fact"`
	Found   string `yaml:"found"`
	Missing string `yaml:"missing"`
}

type rawSummaries struct {
	Provenance sim.Text  `yaml:"provenance"`
	Cards      []rawCard `yaml:"cards"`
}

type rawCard struct {
	ID         string         `yaml:"id"`
	Covers     []string       `yaml:"covers"`
	Tokens     int            `yaml:"tokens"`
	Recordings []rawRecording `yaml:"recordings"`
}

type rawRecording struct {
	Content    string   `yaml:"content"`
	Provenance sim.Text `yaml:"provenance"`
}

// rawStatus is the status engine's section of lesson.yaml.
type rawStatus struct {
	System     string `yaml:"system"`
	Constraint struct {
		Tool string `yaml:"tool"`
		Key  string `yaml:"key"`
		Max  int    `yaml:"max"`
	} `yaml:"constraint"`
	Todo  string          `yaml:"todo"`
	Steps []rawStatusStep `yaml:"steps"`
}

type rawStatusStep struct {
	Step     string `yaml:"step"`
	Time     string `yaml:"time"`
	User     string `yaml:"user"`
	UserID   string `yaml:"user_id"`
	Decision bool   `yaml:"decision"`
	Call     *struct {
		ID     string `yaml:"id"`
		Tool   string `yaml:"tool"`
		Args   string `yaml:"args"`
		Key    string `yaml:"key"`
		Result string `yaml:"result"`
	} `yaml:"call"`
}
