package scenarios

import (
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// LayersConfig is the layers mechanism's configuration in a lesson file: the five layers of a production harness's context management.
type LayersConfig struct {
	Budget       int                `yaml:"budget"`        // 1: tokens above which a result is saved to disk
	Preview      int                `yaml:"preview"`       // 1: trace size of a preview
	PreviewLines int                `yaml:"preview_lines"` // 1: lines of the result a preview keeps
	Noise        []string           `yaml:"noise"`         // 2: tools whose results are noise
	NoiseAge     int                `yaml:"noise_age"`     // 2: rounds before a noise result is deleted
	KeepResults  int                `yaml:"keep_results"`  // 3: most recent results left whole
	MinFree      int                `yaml:"min_free"`      // 3, 4: act on a result or a round only when that frees more
	KeepRounds   int                `yaml:"keep_rounds"`   // 4: most recent rounds left whole
	MemoryRounds int                `yaml:"memory_rounds"` // 5: rounds the session memory compaction keeps
	Line         int                `yaml:"line"`          // percent of the window above which layers 2-5 act
	Failures     int                `yaml:"failures"`      // 5: consecutive failures that open the breaker
	Prompt       int                `yaml:"prompt"`        // 4, 5: the summarizer's instructions and room for its answer
	Memory       lessonfile.Message `yaml:"memory"`        // 5: the session memory notes
	Cards        string             `yaml:"cards"`         // 4: a record per round; 5: the full summary
}

// layers builds the layers mechanism.
func (b *builder) layers(r *LayersConfig, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.layers"
	c := sim.Layers{Budget: r.Budget, Preview: r.Preview, PreviewLines: r.PreviewLines, Noise: r.Noise, NoiseAge: r.NoiseAge,
		KeepResults: r.KeepResults, MinFree: r.MinFree, KeepRounds: r.KeepRounds, MemoryRounds: r.MemoryRounds, Line: r.Line, Failures: r.Failures,
		Prompt: r.Prompt}
	b.size(p+".preview", r.Preview)
	positive := map[string]int{"budget": r.Budget, "preview_lines": r.PreviewLines, "noise_age": r.NoiseAge, "keep_results": r.KeepResults,
		"keep_rounds": r.KeepRounds, "memory_rounds": r.MemoryRounds, "failures": r.Failures, "prompt": r.Prompt}
	for _, k := range []string{"budget", "preview_lines", "noise_age", "keep_results", "keep_rounds", "memory_rounds", "failures", "prompt"} {
		if positive[k] <= 0 {
			b.fail(p+"."+k, "must be a positive number, got %d", positive[k])
		}
	}
	if r.MinFree < 0 {
		b.fail(p+".min_free", "must not be negative, got %d", r.MinFree)
	}
	if r.Line < 1 || r.Line > 100 {
		b.fail(p+".line", "must be the percent of the window above which layers 2 to 5 act, 1 to 100; got %d", r.Line)
	}
	mem := r.Memory
	mem.Role, mem.Kind = string(sim.RoleUser), string(sim.KindText)
	if mem.ID == "" {
		b.fail(p+".memory.id", "is required: the session memory's block id")
	}
	c.Memory = b.message(p+".memory", mem, l.Facts)
	if r.Cards != "" {
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, nil)
	}
	if len(c.Noise) == 0 {
		b.fail(p+".noise", "names the tools whose results layer 2 deletes")
	}
	return c
}
