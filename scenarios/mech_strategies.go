package scenarios

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"ctxsim/sim"
)

// CompressionConfig is the compression mechanism's configuration in a
// lesson file (mechanisms.compression): what happens to each tool result,
// by strategy.
type CompressionConfig struct {
	// Strategies offered (the strategy parameter), the default first; all
	// six when left out.
	Strategies []string `yaml:"strategies,omitempty"`
	Trigger    int      `yaml:"trigger,omitempty"` // adaptive: percent of the window
	Cards      string   `yaml:"cards,omitempty"`   // summaries: one card per result and strategy
	// Tools whose results the strategies that summarize on arrival
	// compress; the others' results (a fetched page) stay whole. All tools
	// when left out.
	Tools []string `yaml:"tools,omitempty"`
	// ReportedRatio: the compression ratio the source reports for a
	// strategy, in percent of characters, shown beside the run's own ratio
	// in tokens.
	ReportedRatio map[string]float64 `yaml:"reported_ratio,omitempty"`
}

// HistoryConfig is the history mechanism's configuration in a lesson file
// (mechanisms.history): what history each request carries.
type HistoryConfig struct {
	// Choices offered (the history parameter: sliding, full, adaptive), the
	// default first; one means no parameter.
	Choices  []string `yaml:"choices,omitempty"`
	Messages int      `yaml:"messages,omitempty"` // sliding: the most recent messages kept
	Keep     int      `yaml:"keep,omitempty"`     // sliding: first messages that never slide out (the task)
	Trigger  int      `yaml:"trigger,omitempty"`  // adaptive: percent of the window
	Cards    string   `yaml:"cards,omitempty"`    // adaptive: one card per result
}

// compression builds the compression mechanism: the strategies it offers,
// the adaptive trigger, and a card per result for each strategy that
// summarizes.
func (b *builder) compression(r *CompressionConfig, _ *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.compression"
	offered := b.offered(p+".strategies", r.Strategies, sim.Strategies)
	c := sim.Compression{Strategies: offered, Trigger: r.Trigger, Tools: r.Tools}
	var summarizing []string
	for _, s := range offered {
		if sim.Summarizes(s) {
			summarizing = append(summarizing, s)
		}
	}
	b.trigger(p, r.Trigger, slices.Contains(offered, sim.StrategyAdaptive))
	for s, v := range r.ReportedRatio {
		switch {
		case !slices.Contains(summarizing, s):
			b.fail(p+".reported_ratio."+s, "is not a strategy offered that summarizes (%s)", strings.Join(summarizing, ", "))
		case v <= 0 || v > 100:
			b.fail(p+".reported_ratio."+s, "must be a percent above 0 and at most 100, got %v", v)
		default:
			if c.Reported == nil {
				c.Reported = map[string]int{}
			}
			c.Reported[s] = int(math.Round(v * 10))
		}
	}
	switch {
	case len(summarizing) > 0 && r.Cards == "":
		b.fail(p+".cards", "is required: %s replace a result with the summary written for it (a cards file)", strings.Join(summarizing, ", "))
	case r.Cards != "" && len(summarizing) == 0:
		b.fail(p+".cards", "is never used: none of the strategies offered summarizes a result")
	case r.Cards != "":
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, summarizing)
	}
	return c
}

// offered checks the choices a strategy mechanism offers (all of them
// when none is given) and returns them.
func (b *builder) offered(p string, given, all []string) []string {
	if len(given) == 0 {
		return all
	}
	for i, s := range given {
		switch {
		case !slices.Contains(all, s):
			b.fail(fmt.Sprintf("%s[%d]", p, i), "must be one of %s, got %q", strings.Join(all, ", "), s)
		case slices.Contains(given[:i], s):
			b.fail(fmt.Sprintf("%s[%d]", p, i), "%q is listed twice", s)
		}
	}
	return given
}

// trigger checks the adaptive trigger: a percent of the window when the
// adaptive strategy is offered, else left out.
func (b *builder) trigger(p string, pct int, adaptive bool) {
	switch {
	case adaptive && (pct < 1 || pct > 100):
		b.fail(p+".trigger", "must be the percent of the window that starts the adaptive batch, 1 to 100; got %d", pct)
	case !adaptive && pct != 0:
		b.fail(p+".trigger", "is for the adaptive strategy, which is not offered")
	}
}

// history builds the history mechanism: sliding, full, adaptive.
func (b *builder) history(r *HistoryConfig, _ *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.history"
	offered := b.offered(p+".choices", r.Choices, sim.Histories)
	c := sim.History{Choices: offered, Messages: r.Messages, Keep: r.Keep, Trigger: r.Trigger}
	sliding, adaptive := slices.Contains(offered, sim.HistorySliding), slices.Contains(offered, sim.StrategyAdaptive)
	switch {
	case sliding && r.Messages < 2:
		b.fail(p+".messages", "must be the number of recent messages a sliding window keeps, at least 2; got %d", r.Messages)
	case !sliding && (r.Messages != 0 || r.Keep != 0):
		b.fail(p+".messages", "messages and keep are for the sliding window, which is not offered")
	case r.Keep < 0:
		b.fail(p+".keep", "must not be negative")
	case adaptive && r.Cards == "":
		b.fail(p+".cards", "is required: adaptive replaces each result with the summary written for it (a cards file)")
	case !adaptive && r.Cards != "":
		b.fail(p+".cards", "is for the adaptive strategy, which is not offered")
	}
	b.trigger(p, r.Trigger, adaptive)
	if adaptive && r.Cards != "" && b.err == nil {
		c.Cards, c.Versions = b.cards(p+".cards", r.Cards, []string{sim.StrategyAdaptive})
	}
	return c
}
