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
type wireLog struct{ events []WireEvent }

func (w *wireLog) request(req []Block, shown int) {
	w.events = append(w.events, WireEvent{Request: req, Frame: shown})
}
func (w *wireLog) wrote(b Block) { w.events = append(w.events, WireEvent{Wrote: &b, Frame: -1}) }
func (w *wireLog) frame(i int)   { w.events = append(w.events, WireEvent{Frame: i}) }

// RunWire is Run with the provider's side of the replay logged: tests model
// the prompt cache from it without the engine's cache code.
func RunWire(l *Lesson, p Policy, tok Tokenizer) (*Replay, []WireEvent, error) {
	w := &wireLog{}
	r, err := run(l, p, tok, w)
	return r, w.events, err
}
