package sim

// Cards returns the summary cards of the lesson's mechanisms (compaction,
// compression, history), in mechanism order: what a summarizer would be
// asked to write for the lesson.
func (l *Lesson) Cards() []Card {
	var out []Card
	for _, m := range l.Mechanisms {
		if c, ok := m.(interface{ summaryCards() []Card }); ok {
			out = append(out, c.summaryCards()...)
		}
	}
	return out
}

func (c Compaction) summaryCards() []Card  { return c.Cards }
func (c Compression) summaryCards() []Card { return c.Cards }
func (c History) summaryCards() []Card     { return c.Cards }

// Message returns the trace message id: in a step, either side of a
// branch, or the calls of a need.
func (l *Lesson) Message(id string) (Message, bool) {
	find := func(ms []Message) (Message, bool) {
		for _, m := range ms {
			if m.ID == id {
				return m, true
			}
		}
		return Message{}, false
	}
	for _, st := range l.Trace {
		lists := [][]Message{st.Messages}
		if b := st.Branch; b != nil {
			lists = append(lists, b.Found, b.Missing)
		}
		for _, n := range st.Needs {
			lists = append(lists, n.Recover)
		}
		for _, ms := range lists {
			if m, ok := find(ms); ok {
				return m, true
			}
		}
	}
	for _, m := range l.Mechanisms {
		if mm, ok := m.(interface{ message(string) (Message, bool) }); ok {
			if msg, ok := mm.message(id); ok {
				return msg, true // a block the mechanism makes (a rule it loads)
			}
		}
	}
	return Message{}, false
}
