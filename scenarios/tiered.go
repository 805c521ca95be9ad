package scenarios

import "ctxsim/sim"

// rawTiered is the tiered engine's section of lesson.yaml.
type rawTiered struct{}

// tiered validates the tiered engine's section of lesson.yaml.
func (b *builder) tiered(raw *rawTiered) *sim.TieredTrace {
	if raw == nil {
		b.fail("tiered", "is required for engine tiered")
		return nil
	}
	return &sim.TieredTrace{}
}
