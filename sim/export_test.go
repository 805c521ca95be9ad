package sim

// WireEvent is one thing the provider's side of a replay saw, in order: a
// request it accepted (Request, as sent; Frame is the index of the frame
// that showed it, emitted just before, or -1), a block the model wrote in
// answer (Wrote), or a frame emitted (Frame, its index in the replay).
type WireEvent struct {
	Request []Block
	Wrote   *Block
	Frame   int
}

// wireLog is a tap that keeps every event.
type wireLog struct {
	events []WireEvent
	open   map[int][]Block // each frame's blocks as emitted, when asked for
}

func (w *wireLog) request(req []Block, shown int) {
	w.events = append(w.events, WireEvent{Request: req, Frame: shown})
}
func (w *wireLog) wrote(b Block) { w.events = append(w.events, WireEvent{Wrote: &b, Frame: -1}) }
func (w *wireLog) frame(i int)   { w.events = append(w.events, WireEvent{Frame: i}) }
func (w *wireLog) closing(i int, bs []Block) {
	if w.open != nil {
		w.open[i] = bs
	}
}

// RunWire is Run with the provider's side of the replay logged: tests model
// the prompt cache from it without the engine's cache code.
func RunWire(l *Lesson, p Policy, tok Tokenizer) (*Replay, []WireEvent, error) {
	w := &wireLog{}
	r, err := run(l, p, tok, w)
	return r, w.events, err
}

// RunOpen is Run that also returns each frame's blocks as the harness
// emitted them, before the frame was closed into the blocks the replay's
// frames share: tests compare them with what the closed frames give back.
func RunOpen(l *Lesson, p Policy, tok Tokenizer) (*Replay, [][]Block, error) {
	w := &wireLog{open: map[int][]Block{}}
	r, err := run(l, p, tok, w)
	if err != nil {
		return nil, nil, err
	}
	out := make([][]Block, len(r.Frames))
	for i := range out {
		out[i] = w.open[i]
	}
	return r, out, nil
}
