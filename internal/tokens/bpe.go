package tokens

import "math"

// The BPE merge of one piece, as tiktoken (and tiktoken-go's bytePairMerge)
// defines it: start from single bytes; while some two neighbouring parts
// join into a token, join the pair whose joined bytes have the lowest rank,
// the leftmost of equal ranks. The parts left are the piece's tokens.
//
// tiktoken finds each pair by scanning every part, O(n²) in a piece of n
// bytes (a 64 KiB run of one letter took seconds). mergeSmall does the same
// scan for short pieces, where it is fastest; mergeLarge keeps the pairs in
// a heap keyed (rank, position), O(n log n).

// smallPiece is the longest piece mergeSmall handles.
const smallPiece = 16

const noRank = math.MaxUint32

// merge appends to bounds the byte offsets where piece's tokens end (the
// first token starts at 0) and returns it; piece has at least two bytes.
// A long piece's merge works in buf, which it may grow.
func (v *vocab) merge(piece string, bounds []int, buf *mergeBuf) []int {
	if len(piece) <= smallPiece {
		return v.mergeSmall(piece, bounds)
	}
	return v.mergeLarge(piece, bounds, buf)
}

// pairRank is the rank of piece[start:end], or noRank.
func (v *vocab) pairRank(piece string, start, end int) uint32 {
	if r, ok := v.rank(piece[start:end]); ok {
		return r
	}
	return noRank
}

func (v *vocab) mergeSmall(piece string, bounds []int) []int {
	type part struct {
		start int
		rank  uint32 // of this part joined with the next
	}
	var buf [smallPiece + 1]part
	parts := buf[:len(piece)+1]
	for i := range parts {
		parts[i].start = i
	}
	// rank of part i joined with part i+1 (parts[i+2] starts after it).
	rank := func(i int) uint32 {
		if i+2 < len(parts) {
			return v.pairRank(piece, parts[i].start, parts[i+2].start)
		}
		return noRank
	}
	for i := range parts {
		parts[i].rank = rank(i)
	}
	for len(parts) > 2 {
		best, at := uint32(noRank), -1
		for i, p := range parts[:len(parts)-1] {
			if p.rank < best {
				best, at = p.rank, i
			}
		}
		if at < 0 {
			break
		}
		parts = append(parts[:at+1], parts[at+2:]...)
		parts[at].rank = rank(at)
		if at > 0 {
			parts[at-1].rank = rank(at - 1)
		}
	}
	for _, p := range parts[1:] {
		bounds = append(bounds, p.start)
	}
	return bounds
}

// mergeLarge keeps the parts as a linked list over byte offsets (a part
// starting at offset i ends where next[i] starts) and every joinable pair
// in a min-heap of rank<<32 | start. A popped pair is stale when its left
// part is gone or has been joined since (its pair rank changed); a stale
// pair that happens to carry the current rank is the current pair.
func (v *vocab) mergeLarge(piece string, bounds []int, buf *mergeBuf) []int {
	n := len(piece)
	buf.grow(n)
	next, prev, rank, alive := buf.next[:n], buf.prev[:n], buf.rank[:n], buf.alive[:n]
	h := buf.heap[:0]
	defer func() { buf.heap = h[:0] }()
	for i := range n {
		next[i], prev[i], alive[i] = int32(i+1), int32(i-1), true
	}
	pair := func(i int) uint32 { // rank of the part at i joined with its next part
		j := int(next[i])
		if j >= n {
			return noRank
		}
		return v.pairRank(piece, i, int(next[j]))
	}
	for i := range n {
		rank[i] = pair(i)
		h.push(rank[i], i)
	}
	for len(h) > 0 {
		r, i := h.pop()
		if !alive[i] || rank[i] != r {
			continue
		}
		j := int(next[i]) // joined into i
		alive[j] = false
		next[i] = next[j]
		if next[i] < int32(n) {
			prev[next[i]] = int32(i)
		}
		rank[i] = pair(i)
		h.push(rank[i], i)
		if p := int(prev[i]); p >= 0 {
			rank[p] = pair(p)
			h.push(rank[p], p)
		}
	}
	for i := int(next[0]); ; i = int(next[i]) {
		bounds = append(bounds, i)
		if i >= n {
			return bounds
		}
	}
}

// mergeBuf is mergeLarge's memory, kept from one piece to the next.
type mergeBuf struct {
	next, prev []int32  // next[i]: start of the part after the one at i (n past the last); prev[i] before it (-1)
	rank       []uint32 // rank of the part at i joined with the next
	alive      []bool   // a part starts at i
	heap       pairHeap
}

func (b *mergeBuf) grow(n int) {
	if len(b.next) < n {
		n = max(n, 2*len(b.next))
		b.next, b.prev = make([]int32, n), make([]int32, n)
		b.rank, b.alive = make([]uint32, n), make([]bool, n)
		b.heap = make(pairHeap, 0, 2*n)
	}
}

// pairHeap is a binary min-heap of rank<<32 | start.
type pairHeap []uint64

func (h *pairHeap) push(rank uint32, start int) {
	if rank == noRank {
		return
	}
	s := append(*h, uint64(rank)<<32|uint64(start))
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p] <= s[i] {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
	*h = s
}

func (h *pairHeap) pop() (uint32, int) {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		if r := l + 1; r < len(s) && s[r] < s[l] {
			l = r
		}
		if s[i] <= s[l] {
			break
		}
		s[i], s[l] = s[l], s[i]
		i = l
	}
	*h = s
	return uint32(top >> 32), int(top & math.MaxUint32)
}
