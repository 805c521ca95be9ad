package sim

import "strconv"

// Limit is the window-size mechanism: the provider's limit is a policy
// parameter, one of Sizes (tokens), so one trace can be replayed in a
// smaller window than the one it was recorded in. The lesson's Window is
// the largest size; pages draw the others as a limit line inside it.
type Limit struct {
	Sizes []int // offered sizes, the default first
}

// Name is "limit".
func (Limit) Name() string { return "limit" }

// Params is the window size in tokens.
func (l Limit) Params() []Param {
	pr := Param{Name: "window", Default: strconv.Itoa(l.Sizes[0])}
	for _, s := range l.Sizes {
		pr.Choices = append(pr.Choices, strconv.Itoa(s))
	}
	return []Param{pr}
}

// start does nothing: the harness reads the window before any mechanism
// starts (a threshold is a share of it).
func (Limit) start(*harness) hooks { return base{} }

// windowOf is the provider's limit under p: the policy's window size when
// the lesson has a Limit, else the lesson's window.
func windowOf(l *Lesson, p Policy) int {
	for _, m := range l.Mechanisms {
		if _, ok := m.(Limit); ok {
			if n := p.Int("window"); n > 0 {
				return n
			}
		}
	}
	return l.Window
}
