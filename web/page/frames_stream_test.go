package page

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"testing"
)

// writes records each write an answer makes.
type writes struct {
	all   bytes.Buffer
	sizes []int
}

func (w *writes) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.all.Write(b)
}

// TestWriteFramesStreams: the frames API document goes out in pieces of
// about flushAt bytes (a piece holds at most one frame past it), and the
// pieces make exactly the document Frames returns.
func TestWriteFramesStreams(t *testing.T) {
	s := newFixture(t)
	for _, l := range s.lessons {
		p := l.DefaultPolicy()
		r, err := s.run(l, p)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := s.b.Frames(l, p, r)
		if err != nil {
			t.Fatal(err)
		}
		var w writes
		if err := s.b.WriteFrames(&w, l, p, r, Span{}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(w.all.Bytes(), whole) {
			t.Fatalf("%s: WriteFrames wrote %d bytes that differ from Frames' %d", l.ID, w.all.Len(), len(whole))
		}
		largest := 0 // the largest frame as the document writes it, with its comma
		for i := range r.Frames {
			fw := &jsonw{}
			fw.frame(&r.Frames[i], s.cat.For("en").T("origin.mechanical"))
			largest = max(largest, len(fw.b)+1)
		}
		for i, n := range w.sizes {
			if n > flushAt+largest {
				t.Errorf("%s: write %d of %d holds %d bytes; want at most %d (the buffer, then one frame of at most %d)", l.ID, i+1, len(w.sizes), n, flushAt+largest, largest)
			}
		}
		if want := len(whole) / (flushAt + largest); len(w.sizes) < want {
			t.Errorf("%s: %d bytes in %d writes; want at least %d", l.ID, len(whole), len(w.sizes), want)
		}
	}
}

// TestWriteFramesSpan: a span of frames is the whole document's frames
// from..to, with the same run-level fields and the run's frame count.
func TestWriteFramesSpan(t *testing.T) {
	s := newFixture(t)
	l := s.byID["context-memory"]
	p := l.DefaultPolicy()
	r, err := s.run(l, p)
	if err != nil {
		t.Fatal(err)
	}
	whole := decodeDoc(t, func(w *bytes.Buffer) error { return s.b.WriteFrames(w, l, p, r, Span{}) })
	var all []json.RawMessage
	if err := json.Unmarshal(whole["frames"], &all); err != nil {
		t.Fatal(err)
	}
	n := len(r.Frames)
	if len(all) != n || n < 4 {
		t.Fatalf("the whole document has %d frames; the run %d (want at least 4)", len(all), n)
	}
	for _, sp := range []Span{{1, 1}, {1, 3}, {4, n}, {n, n}, {1, n}} {
		part := decodeDoc(t, func(w *bytes.Buffer) error { return s.b.WriteFrames(w, l, p, r, sp) })
		var frames []json.RawMessage
		if err := json.Unmarshal(part["frames"], &frames); err != nil {
			t.Fatal(err)
		}
		if len(frames) != sp.To-sp.From+1 {
			t.Fatalf("span %v: %d frames", sp, len(frames))
		}
		for i, f := range frames {
			if !bytes.Equal(f, all[sp.From-1+i]) {
				t.Errorf("span %v: frame %d differs from the whole document's frame %d", sp, i+1, sp.From+i)
			}
		}
		if string(part["frame_count"]) != itoa(n) {
			t.Errorf("span %v: frame_count = %s; want %d", sp, part["frame_count"], n)
		}
		keys, want := slices.Sorted(maps.Keys(part)), slices.Sorted(slices.Values(append(slices.Collect(maps.Keys(whole)), "frame_count")))
		if !slices.Equal(keys, want) {
			t.Errorf("span %v: fields %v; want %v (the whole document's and frame_count)", sp, keys, want)
		}
		for k, v := range whole {
			if k != "frames" && !bytes.Equal(part[k], v) {
				t.Errorf("span %v: %s = %s; the whole document has %s", sp, k, part[k], v)
			}
		}
	}
	for _, sp := range []Span{{0, 1}, {2, 1}, {1, n + 1}} {
		var b bytes.Buffer
		if err := s.b.WriteFrames(&b, l, p, r, sp); err == nil || b.Len() != 0 {
			t.Errorf("span %v of %d frames: err %v after %d bytes; want an error before anything is written", sp, n, err, b.Len())
		}
	}
}

func decodeDoc(t *testing.T, write func(*bytes.Buffer) error) map[string]json.RawMessage {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return doc
}
