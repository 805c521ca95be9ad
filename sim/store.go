package sim

import (
	"maps"
	"reflect"
	"slices"
	"sync"
)

// How a replay keeps its frames' requests: each block once per version in
// a store the frames share, and each frame as ranges of that store plus
// what it alone shows of its blocks (the per-frame flags, and badges or
// attributes its mechanisms gave them for that frame). A session without
// compaction adds a block or a few per frame, so a replay's memory grows
// with its blocks, not with its frames times their blocks.
//
// While the harness emits a frame the frame is open: its blocks are a
// plain slice the mechanisms' frame hooks change as they always did
// (Frame.Blocks returns that slice). When the next frame is emitted, or
// the run ends, the harness closes it: it keeps the store ranges, the
// flags as runs, and the blocks that differ from their stored version.

// storeChunk is the blocks of one chunk of a store: the store grows by
// chunks, so it never copies what it holds.
const storeChunk = 512

// store is the blocks of a replay's requests, each version once, in the
// order the harness first sent them. It only grows while the replay runs;
// afterwards it is read by any number of goroutines.
type store struct {
	chunks [][]Block
	n      int32

	index  sync.Once
	byID   map[string][]int32 // the versions of each block id, built on the first lookup
	latest map[string]int32   // while the replay runs: the newest version of each id
}

func newStore() *store { return &store{latest: map[string]int32{}} }

// add keeps b as a new version and returns its index.
func (s *store) add(b Block) int32 {
	if int(s.n)%storeChunk == 0 {
		s.chunks = append(s.chunks, make([]Block, 0, storeChunk))
	}
	c := &s.chunks[len(s.chunks)-1]
	*c = append(*c, b)
	s.latest[b.ID] = s.n
	s.n++
	return s.n - 1
}

// at is the block at index i.
func (s *store) at(i int32) *Block { return &s.chunks[i/storeChunk][i%storeChunk] }

// versions are the indexes of the versions of block id.
func (s *store) versions(id string) []int32 {
	s.index.Do(func() {
		s.byID = make(map[string][]int32, s.n)
		for i := range s.n {
			b := s.at(i)
			s.byID[b.ID] = append(s.byID[b.ID], i)
		}
	})
	return s.byID[id]
}

// span is n blocks of the store from at.
type span struct{ at, n int32 }

// flags are a block's per-frame marks (Block.New ... Block.FirstChanged).
type flags uint8

const (
	flagNew flags = 1 << iota
	flagSelected
	flagTouched
	flagSpotlight
	flagCached
	flagFirstChanged
)

func flagsOf(b *Block) flags {
	f := flags(0)
	on := func(set bool, x flags) {
		if set {
			f |= x
		}
	}
	on(b.New, flagNew)
	on(b.Selected, flagSelected)
	on(b.Touched, flagTouched)
	on(b.Spotlight, flagSpotlight)
	on(b.Cached, flagCached)
	on(b.FirstChanged, flagFirstChanged)
	return f
}

// set gives b the flags f (and clears the others).
func (f flags) set(b *Block) {
	b.New, b.Selected, b.Touched = f&flagNew != 0, f&flagSelected != 0, f&flagTouched != 0
	b.Spotlight, b.Cached, b.FirstChanged = f&flagSpotlight != 0, f&flagCached != 0, f&flagFirstChanged != 0
}

// mark is a run of blocks [from, to) of a frame with the same flags.
type mark struct {
	from, to int32
	flags    flags
}

// override is a block of a frame that differs from its stored version in
// more than its flags (a badge or an attribute its mechanisms gave it for
// this frame).
type override struct {
	at int32
	b  *Block
}

// request is a frame's blocks: open while the harness emits the frame,
// then ranges of the replay's store.
//
// An open request is the store version of each block and its flags, plus
// the few blocks a hook changed for this frame (edit). A hook that asks
// for all the blocks (Frame.Blocks) gets them as a slice of the frame's
// own (open), which it may change freely; either way close keeps only what
// differs from the store.
type request struct {
	s     *store
	n     int32
	spans []span
	marks []mark
	over  []override // by position
	// derived is set when blocks hold values their reader fills in from
	// their position (a tool result's distance: withDistances).
	derived bool

	// While the frame is open:
	isOpen bool
	ids    []int32  // the stored version of each block, by position
	fl     []flags  // each block's flags, by position (until open is made)
	edits  []edited // blocks a hook changed for this frame (until open is made)
	open   []Block  // the frame's blocks as one slice, once a hook asked for them
}

// edited is a block a hook changed for this frame only.
type edited struct {
	at int32
	b  *Block
}

// blocks are the request's blocks: the open frame's own slice (made on
// the first call), else a new copy made from the store.
func (r *request) blocks() []Block {
	if r.isOpen {
		if r.open == nil && r.n > 0 {
			r.open = r.materialize()
			r.fl, r.edits = nil, nil
		}
		return r.open
	}
	if r.n == 0 {
		return nil
	}
	out := make([]Block, 0, r.n)
	for _, sp := range r.spans {
		for at, end := sp.at, sp.at+sp.n; at < end; {
			c := r.s.chunks[at/storeChunk]
			i := at % storeChunk
			take := min(end-at, int32(len(c))-i)
			out = append(out, c[i:i+take]...)
			at += take
		}
	}
	for _, o := range r.over {
		out[o.at] = *o.b
	}
	for _, m := range r.marks {
		for i := m.from; i < m.to; i++ {
			m.flags.set(&out[i])
		}
	}
	if r.derived {
		withDistances(out)
	}
	return out
}

// materialize is an open request's blocks as a new slice.
func (r *request) materialize() []Block {
	if r.open != nil {
		return slices.Clone(r.open)
	}
	out := make([]Block, r.n)
	for i, at := range r.ids {
		out[i] = *r.s.at(at)
		r.fl[i].set(&out[i])
	}
	for _, e := range r.edits {
		out[e.at] = *e.b
	}
	return out
}

// view is block i of an open request, to read: a hook must not change it
// (setFlag and edit do).
func (r *request) view(i int) *Block {
	if r.open != nil {
		return &r.open[i]
	}
	for _, e := range r.edits {
		if int(e.at) == i {
			return e.b
		}
	}
	return r.s.at(r.ids[i])
}

// flagsAt are block i's flags in an open request.
func (r *request) flagsAt(i int) flags {
	if r.open != nil {
		return flagsOf(&r.open[i])
	}
	return r.fl[i]
}

// setFlag sets (or clears) flag f of block i of an open request.
func (r *request) setFlag(i int, f flags, on bool) {
	if r.open != nil {
		fl := flagsOf(&r.open[i])
		if on {
			fl |= f
		} else {
			fl &^= f
		}
		fl.set(&r.open[i])
		return
	}
	if on {
		r.fl[i] |= f
	} else {
		r.fl[i] &^= f
	}
	for _, e := range r.edits {
		if int(e.at) == i {
			r.fl[i].set(e.b)
		}
	}
}

// edit is block i of an open request as this frame's own copy, which a
// hook may change (its badges, its attributes); its flags stay setFlag's.
func (r *request) edit(i int) *Block {
	if r.open != nil {
		return &r.open[i]
	}
	for _, e := range r.edits {
		if int(e.at) == i {
			return e.b
		}
	}
	b := *r.s.at(r.ids[i])
	r.fl[i].set(&b)
	r.edits = append(r.edits, edited{int32(i), &b})
	return &b
}

// each calls yield with each block of the request, in order, until it
// returns false: the open frame's own (to read), or a copy of a closed
// one's (one at a time, reused).
func (r *request) each(yield func(*Block) bool) {
	if r.isOpen {
		for i := range int(r.n) {
			b := *r.view(i)
			r.flagsAt(i).set(&b)
			if !yield(&b) {
				return
			}
		}
		return
	}
	var b Block
	pos, over, mark := int32(0), 0, 0
	after := 0 // tool results after this block
	if r.derived {
		after = r.resultsAfter(-1)
	}
	for _, sp := range r.spans {
		for at := sp.at; at < sp.at+sp.n; at, pos = at+1, pos+1 {
			if over < len(r.over) && r.over[over].at == pos {
				b = *r.over[over].b
				over++
			} else {
				b = *r.s.at(at)
			}
			for mark < len(r.marks) && r.marks[mark].to <= pos {
				mark++
			}
			f := flags(0)
			if mark < len(r.marks) && r.marks[mark].from <= pos {
				f = r.marks[mark].flags
			}
			f.set(&b)
			if r.derived && b.Role == RoleTool {
				after--
				if hasDistance(&b) {
					withDistance(&b, after)
				}
			}
			if !yield(&b) {
				return
			}
		}
	}
}

// resultsAfter is how many tool results a closed request holds after
// position pos.
func (r *request) resultsAfter(pos int32) int {
	n, p, over := 0, int32(0), 0
	for _, sp := range r.spans {
		for at := sp.at; at < sp.at+sp.n; at, p = at+1, p+1 {
			b := r.s.at(at)
			for over < len(r.over) && r.over[over].at < p {
				over++
			}
			if over < len(r.over) && r.over[over].at == p {
				b = r.over[over].b
			}
			if p > pos && b.Role == RoleTool {
				n++
			}
		}
	}
	return n
}

// count is how many blocks the request holds.
func (r *request) count() int { return int(r.n) }

// block is the request's block id, as the frame shows it: a copy, or the
// open frame's own block.
func (r *request) block(id string) (*Block, bool) {
	if r.isOpen {
		for i := range int(r.n) {
			if r.view(i).ID == id {
				if r.open == nil {
					return r.edit(i), true // the caller may change it, as the open slice's
				}
				return &r.open[i], true
			}
		}
		return nil, false
	}
	if r.n == 0 {
		return nil, false
	}
	for _, v := range r.s.versions(id) {
		pos := int32(0)
		for _, sp := range r.spans {
			if v >= sp.at && v < sp.at+sp.n {
				return r.at(pos + v - sp.at), true
			}
			pos += sp.n
		}
	}
	return nil, false
}

// at is a copy of the block at position pos of a closed request.
func (r *request) at(pos int32) *Block {
	var b Block
	if i, ok := slices.BinarySearchFunc(r.over, pos, func(o override, p int32) int { return int(o.at - p) }); ok {
		b = *r.over[i].b
	} else {
		b = *r.s.at(r.stored(pos))
	}
	for _, m := range r.marks {
		if pos >= m.from && pos < m.to {
			m.flags.set(&b)
		}
	}
	if r.derived && hasDistance(&b) {
		withDistance(&b, r.resultsAfter(pos))
	}
	return &b
}

// stored is the store index of the block at position pos.
func (r *request) stored(pos int32) int32 {
	for _, sp := range r.spans {
		if pos < sp.n {
			return sp.at + pos
		}
		pos -= sp.n
	}
	panic("sim: block position out of range")
}

// framer builds a replay's frames on one store: it finds or adds each
// block's version as a frame is emitted, and closes the frame when the
// next one comes.
type framer struct {
	s     *store
	seen  []int32           // by version: the last frame (1-based) whose request held it
	frame int32             // frames opened so far
	over  map[string]*Block // the previous frame's overrides, by id
	ids   []int32           // scratch for the open request's versions
	fl    []flags           // and flags
}

func newFramer() *framer { return &framer{s: newStore(), over: map[string]*Block{}} }

// opened is what opening a request measured of it.
type opened struct {
	total, newBlocks, newTokens int
}

// open opens the request of the next frame on the blocks of h's window as
// it stands, each found or added in the store; a block is New when its id
// was not in the previous frame's request.
func (fr *framer) open(h *harness) (request, opened) {
	fr.frame++
	prev := fr.frame - 1
	ids, fl := fr.ids[:0], fr.fl[:0]
	var o opened
	h.each(func(b *Block) bool {
		at, was := fr.version(b)
		in := prev > 0 && (fr.seen[at] == prev || (was >= 0 && fr.seen[was] == prev))
		fr.seen[at] = fr.frame
		f := flags(0)
		if !in {
			f = flagNew
			o.newBlocks, o.newTokens = o.newBlocks+1, o.newTokens+b.Tokens
		}
		o.total += b.Tokens
		ids, fl = append(ids, at), append(fl, f)
		return true
	})
	fr.ids, fr.fl = ids, fl
	return request{s: fr.s, n: int32(len(ids)), ids: ids, fl: fl, isOpen: true}, o
}

// version is the store index of b: the version b came from or the newest
// of its id when b is the same, else a new one (then was is the newest
// version of its id before it, or -1). It notes the version in b.
func (fr *framer) version(b *Block) (at, was int32) {
	was = -1
	if b.ref > 0 && sameBlock(b, fr.s.at(b.ref-1)) {
		return b.ref - 1, was
	}
	if v, ok := fr.s.latest[b.ID]; ok {
		if sameBlock(b, fr.s.at(v)) {
			b.ref = v + 1
			return v, was
		}
		was = v
	}
	at = fr.s.add(plain(b))
	fr.s.at(at).ref = at + 1
	b.ref = at + 1
	fr.seen = append(fr.seen, 0)
	return at, was
}

// close turns an open request into ranges of the store, flags and
// overrides.
func (fr *framer) close(r *request) {
	if !r.isOpen {
		return
	}
	over := map[string]*Block{}
	for i, at := range r.ids {
		if n := len(r.spans); n > 0 && r.spans[n-1].at+r.spans[n-1].n == at {
			r.spans[n-1].n++
		} else {
			r.spans = append(r.spans, span{at, 1})
		}
		f := flags(0)
		var b *Block // the frame's own block, where a hook had one
		switch {
		case r.open != nil:
			b = &r.open[i]
			f = flagsOf(b)
		default:
			f = r.fl[i]
			for _, e := range r.edits {
				if int(e.at) == i {
					b = e.b
				}
			}
		}
		if f != 0 {
			if n := len(r.marks); n > 0 && r.marks[n-1].to == int32(i) && r.marks[n-1].flags == f {
				r.marks[n-1].to++
			} else {
				r.marks = append(r.marks, mark{int32(i), int32(i) + 1, f})
			}
		}
		if b == nil || sameBlock(b, fr.s.at(at)) {
			continue
		}
		o := fr.over[b.ID]
		if o == nil || !sameBlock(b, o) {
			p := plain(b)
			p.Attrs, p.Badges = slices.Clone(p.Attrs), slices.Clone(p.Badges)
			o = &p
		}
		over[b.ID] = o
		r.over = append(r.over, override{int32(i), o})
		r.derived = r.derived || hasDistance(o)
	}
	fr.over = over
	r.spans, r.marks, r.over = slices.Clip(r.spans), slices.Clip(r.marks), slices.Clip(r.over)
	r.ids, r.fl, r.edits, r.open, r.isOpen = nil, nil, nil, nil, false
}

// plain is b without its per-frame flags, its lists capped so that an
// append to them never writes into the store.
func plain(b *Block) Block {
	p := *b
	flags(0).set(&p)
	p.Attrs, p.Badges = slices.Clip(p.Attrs), slices.Clip(p.Badges)
	return p
}

// sameBlock reports whether a and b are the same version of a block: equal
// in every field but the per-frame flags. (TestSameBlockFields keeps it in
// step with Block.)
func sameBlock(a, b *Block) bool {
	return a.ID == b.ID && a.Role == b.Role && a.Kind == b.Kind && a.LabelKey == b.LabelKey &&
		a.Tokens == b.Tokens && a.Content == b.Content && a.Tool == b.Tool && a.ToolUseID == b.ToolUseID &&
		a.Args == b.Args && a.tier == b.tier && sameText(a.Label, b.Label) &&
		samePtr(a.Origin, b.Origin) && samePtr(a.Summary, b.Summary) && samePtr(a.Usage, b.Usage) &&
		slices.Equal(a.Attrs, b.Attrs) && slices.EqualFunc(a.Badges, b.Badges, sameBadge)
}

// sameText reports whether two texts are the same map or equal ones.
func sameText(a, b Text) bool {
	if len(a) != len(b) {
		return false
	}
	return len(a) == 0 || reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer() || maps.Equal(a, b)
}

// samePtr reports whether two pointers are equal or point to equal values.
func samePtr[T any](a, b *T) bool {
	return a == b || (a != nil && b != nil && reflect.DeepEqual(*a, *b))
}

func sameBadge(a, b Badge) bool {
	return a.Key == b.Key && a.Tone == b.Tone && a.Minor == b.Minor && slices.Equal(a.Args, b.Args)
}
