package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// mechanismKinds are the mechanisms a lesson file may name, by name. Each decodes
// its configuration (mechanisms.NAME) with its own type and builds the
// engine's mechanism from it: the sim type itself where the file gives the
// engine's configuration as is, else a type of this package next to its
// builder (mech_*.go). Adding a mechanism is its sim type, a builder and
// a line here (docs/mechanisms.md).
var mechanismKinds = map[string]mechanismKind{
	"memory":       mechanism((*builder).memory),
	"compaction":   mechanism((*builder).compaction),
	"status_bar":   mechanism((*builder).statusBar),
	"counter":      mechanism((*builder).counter),
	"clock":        mechanism((*builder).clock),
	"tiered":       mechanism((*builder).tiered),
	"workspace":    mechanism((*builder).workspaceMechanism),
	"pairs":        mechanism(as[sim.Pairs]),
	"prompt_cache": mechanism((*builder).promptCache),
	"limit":        mechanism((*builder).limit),
	"usage":        mechanism(usage),
	"compression":  mechanism((*builder).compression),
	"history":      mechanism((*builder).history),
	"subagent":     mechanism((*builder).subagent),
	"spend":        mechanism(as[sim.SpendMeter]),
	"arms":         mechanism((*builder).arms),
	"layout":       mechanism((*builder).layout),
	"instructions": mechanism((*builder).instructions),
	"layers":       mechanism((*builder).layers),
}

// mechanismKind is how one mechanism is read: its configuration decoded (before
// the trace is built: the workspace's files are), then built.
type mechanismKind struct {
	decode func(f *lessonfile.File, path string, n *yaml.Node) (any, error)
	build  func(b *builder, config any, l *sim.Lesson) sim.Mechanism
}

// mechanism is the kind whose configuration is a C, built by build.
func mechanism[C any](build func(b *builder, c *C, l *sim.Lesson) sim.Mechanism) mechanismKind {
	return mechanismKind{
		decode: func(f *lessonfile.File, path string, n *yaml.Node) (any, error) {
			c := new(C)
			return c, f.DecodeNode(path, n, c)
		},
		build: func(b *builder, config any, l *sim.Lesson) sim.Mechanism { return build(b, config.(*C), l) },
	}
}

// usage builds the usage mechanism, calibrating its lesson once.
func usage(_ *builder, u *sim.ProviderUsage, _ *sim.Lesson) sim.Mechanism { return u.Memoized() }

// as builds a mechanism that is its configuration, with nothing to check.
func as[M sim.Mechanism](_ *builder, m *M, _ *sim.Lesson) sim.Mechanism { return *m }

// config is a mechanism of the lesson with its decoded configuration.
type config struct {
	name  string
	value any
}

// configs decodes the configuration of every mechanism the file names, in
// file order (the narration precedence).
func (b *builder) configs(ms lessonfile.Mechanisms) []config {
	var out []config
	for _, m := range ms {
		p := "mechanisms." + m.Name
		k, ok := mechanismKinds[m.Name]
		if !ok {
			b.fail(p, "is not a mechanism: the mechanisms are %s", strings.Join(slices.Sorted(maps.Keys(mechanismKinds)), ", "))
			return nil
		}
		c, err := k.decode(b.f, p, m.Node)
		if err != nil {
			b.failWith(err)
			return nil
		}
		out = append(out, config{m.Name, c})
	}
	return out
}

// configOf is the decoded configuration of the mechanism called name.
func configOf[C any](cs []config, name string) (*C, bool) {
	for _, c := range cs {
		if c.name == name {
			v, ok := c.value.(*C)
			return v, ok
		}
	}
	return nil, false
}

// mechanisms builds the lesson's mechanisms in the order the file lists
// them (the narration precedence) and checks what each needs of the trace
// and of the others.
func (b *builder) mechanisms(cs []config, l *sim.Lesson) {
	for _, c := range cs {
		l.Mechanisms = append(l.Mechanisms, mechanismKinds[c.name].build(b, c.value, l))
	}
	for i, m := range l.Mechanisms {
		if s, ok := m.(sim.StatusBar); ok {
			s.Cost = sim.CostOf(l.Mechanisms)
			l.Mechanisms[i] = s
		}
	}
	if _, ok := l.Mechanism("memory"); !ok {
		for i, st := range l.Trace {
			if st.Type == sim.StepRemember {
				b.fail(fmt.Sprintf("trace[%d].type", i), "a remember step needs the memory mechanism")
			}
		}
	}
	if _, ok := l.Mechanism("workspace"); !ok && len(b.ops) > 0 {
		b.fail(b.opPaths[0], "a read, write or edit needs the workspace mechanism")
	}
	if _, ok := l.Mechanism("pairs"); ok && !slices.ContainsFunc(l.Mechanisms, sim.Cuts) {
		// Its broken mode breaks the pairs such a cut keeps.
		b.fail("mechanisms.pairs", "needs a mechanism that cuts history (compaction, tiered, or history with sliding): pairs: broken cuts through the tool pairs")
	}
	b.checkCompactSteps(l)
	b.checkSubSteps(l)
}

func (b *builder) memory(m *sim.MemoryStore, _ *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.memory"
	if m.Path == "" {
		b.fail(p+".path", "is required (e.g. MEMORY.md)")
	}
	b.size(p, m.Tokens)
	return *m
}

// limit offers window sizes: the first is the default, the largest the
// lesson's window (the box the page draws).
func (b *builder) limit(m *sim.Limit, l *sim.Lesson) sim.Mechanism {
	const p = "mechanisms.limit.sizes"
	if len(m.Sizes) == 0 {
		b.fail(p, "needs at least one window size in tokens")
		return sim.Limit{Sizes: []int{l.Window}}
	}
	for i, n := range m.Sizes {
		if n <= 0 || n > l.Window {
			b.fail(fmt.Sprintf("%s[%d]", p, i), "must be a positive size no larger than the window (%d), got %d", l.Window, n)
		}
	}
	return *m
}
