package importer

import (
	_ "embed"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

//go:embed compressor.yaml
var compressorYAML []byte

// compressorFile is compressor.yaml: the tiered compressor an imported
// session offers.
type compressorFile struct {
	RulesFrom       string   `yaml:"rules_from"`       // the shipped lesson whose rules it takes
	PressurePercent int      `yaml:"pressure_percent"` // the pressure line, percent of the window
	FloorTools      []string `yaml:"floor_tools"`
	FloorPrefixes   []string `yaml:"floor_prefixes"`
	SkipTools       []string `yaml:"skip_tools"`
}

// importCompressor is the compressor of every import: the rules of a
// shipped lesson with the import's tool lists.
type importCompressor struct {
	PressurePercent int
	Rules           sim.TierRules
}

// compressor reads compressor.yaml and the rules of the lesson it names,
// once.
var compressor = sync.OnceValues(func() (importCompressor, error) {
	var c compressorFile
	if _, err := lessonfile.Decode("importer/compressor.yaml", compressorYAML, &c); err != nil {
		return importCompressor{}, err
	}
	rules, err := shippedRules(c.RulesFrom)
	if err != nil {
		return importCompressor{}, fmt.Errorf("importer/compressor.yaml: rules_from: %w", err)
	}
	rules.FloorTools, rules.FloorPrefixes, rules.SkipTools = c.FloorTools, c.FloorPrefixes, c.SkipTools
	return importCompressor{PressurePercent: c.PressurePercent, Rules: rules}, nil
})

// shippedRules are the tiered compressor's rules of the shipped lesson id.
func shippedRules(id string) (sim.TierRules, error) {
	name := path.Join(id, lessonfile.LessonFile)
	data, err := fs.ReadFile(scenarios.Builtin(), name)
	if err != nil {
		return sim.TierRules{}, err
	}
	l, f, err := lessonfile.DecodeLesson(name, data)
	if err != nil {
		return sim.TierRules{}, err
	}
	m, ok := l.Mechanisms.Get("tiered")
	if !ok {
		return sim.TierRules{}, fmt.Errorf("%s has no tiered mechanism", name)
	}
	var t sim.Tiered
	if err := f.DecodeNode("mechanisms.tiered", m.Node, &t); err != nil {
		return sim.TierRules{}, err
	}
	return t.Rules, nil
}
