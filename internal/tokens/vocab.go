package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/bits"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// vocab is the o200k_base vocabulary: every token's bytes and its rank,
// which is also its id. The BPE merge asks it for the rank of a byte
// string several times a byte, so it is a hash table of its own rather
// than a Go map (which took 60% of the time): one or two-byte strings are
// looked up directly; a longer one in an open-addressing table whose slot
// holds the string's first eight bytes, so most lookups read one slot.
type vocab struct {
	short  [1 << 16]uint32 // rank of each two-byte string, or noRank
	single [256]uint32     // rank of each byte
	slots  []slot          // len(slots) is a power of two
	arena  string          // every token's bytes, one after another
	starts []uint32        // where the token of each slot's index starts in arena
	maxLen int             // the longest token, in bytes: a longer string has no rank
}

// slot is one token of three bytes or more; lenIndex 0 marks an empty slot.
type slot struct {
	key      uint64 // the token's first eight bytes, little-endian, zero-padded
	rank     uint32
	lenIndex uint32 // len<<24 | 1+index of the token in vocab.starts
}

// loadVocab decodes the o200k_base file embedded in tiktoken-go-loader (the
// file tiktoken-go reads through its offline loader): one "base64 rank" a
// line.
func loadVocab() (*vocab, error) {
	const name = Encoding + ".tiktoken"
	data, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read the embedded %s: %w", name, err)
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	arena := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	v := &vocab{starts: make([]uint32, 0, lines+1)}
	ranks := make([]uint32, 0, lines)
	for n := 1; len(data) > 0; n++ {
		line, rest, _ := bytes.Cut(data, []byte{'\n'})
		data = rest
		if len(line) == 0 {
			continue
		}
		b64, num, ok := bytes.Cut(line, []byte{' '})
		if !ok {
			return nil, fmt.Errorf("%s:%d: want \"base64 rank\", got %q", name, n, line)
		}
		v.starts = append(v.starts, uint32(len(arena)))
		arena, err = base64.StdEncoding.AppendDecode(arena, b64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token: %w", name, n, err)
		}
		rank, err := strconv.ParseUint(string(num), 10, 32)
		if err != nil || rank >= noRank {
			return nil, fmt.Errorf("%s:%d: rank %q: %v", name, n, num, err)
		}
		ranks = append(ranks, uint32(rank))
	}
	v.starts = append(v.starts, uint32(len(arena)))
	v.arena = string(arena)
	if err := v.index(ranks); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// index fills the tables from arena, starts and the ranks of the tokens.
func (v *vocab) index(ranks []uint32) error {
	for i := range v.short {
		v.short[i] = noRank
	}
	for i := range v.single {
		v.single[i] = noRank
	}
	if len(ranks) >= 1<<24 {
		return fmt.Errorf("%d tokens: a slot indexes at most 2^24", len(ranks))
	}
	// At most half full (o200k_base: 37%): a lookup that misses, as most
	// pair lookups do, probes 1.8 slots on average, 7 at 72% full (where
	// counting CJK text took 17% more instructions, prose 4% more).
	v.slots = make([]slot, 1<<bits.Len(uint(2*len(ranks))))
	for i, r := range ranks {
		tok := v.arena[v.starts[i]:v.starts[i+1]]
		v.maxLen = max(v.maxLen, len(tok))
		var at *uint32 // where r goes
		switch len(tok) {
		case 0:
			return fmt.Errorf("rank %d: empty token", r)
		case 1:
			at = &v.single[tok[0]]
		case 2:
			at = &v.short[uint16(tok[0])|uint16(tok[1])<<8]
		default:
			if len(tok) > 255 {
				return fmt.Errorf("rank %d: token of %d bytes", r, len(tok))
			}
			key, mask := prefix(tok), len(v.slots)-1
			j := int(hash(tok, key)) & mask
			for ; v.slots[j].lenIndex != 0; j = (j + 1) & mask {
				if v.slots[j].key == key && v.slots[j].lenIndex>>24 == uint32(len(tok)) && v.token(j) == tok {
					return fmt.Errorf("token %q appears twice", tok)
				}
			}
			v.slots[j] = slot{key: key, rank: noRank, lenIndex: uint32(len(tok))<<24 | uint32(i+1)}
			at = &v.slots[j].rank
		}
		if *at != noRank {
			return fmt.Errorf("token %q appears twice", tok)
		}
		*at = r
	}
	for b, r := range v.single {
		if r == noRank {
			return fmt.Errorf("byte %#02x has no token", b)
		}
	}
	return nil
}

// rank is the rank of s, if s is a token.
func (v *vocab) rank(s string) (uint32, bool) {
	var r uint32
	switch n := len(s); {
	case n == 1:
		r = v.single[s[0]]
	case n == 2:
		r = v.short[uint16(s[0])|uint16(s[1])<<8]
	case n == 0 || n > v.maxLen:
		return 0, false
	default:
		key, mask := prefix(s), len(v.slots)-1
		for j := int(hash(s, key)) & mask; ; j = (j + 1) & mask {
			sl := &v.slots[j]
			if sl.lenIndex == 0 {
				return 0, false
			}
			if sl.key == key && int(sl.lenIndex>>24) == n && (n <= 8 || v.token(j)[8:] == s[8:]) {
				return sl.rank, true
			}
		}
	}
	return r, r != noRank
}

// token is the bytes of the token in slot j.
func (v *vocab) token(j int) string {
	i := v.slots[j].lenIndex&(1<<24-1) - 1
	return v.arena[v.starts[i]:v.starts[i+1]]
}

// prefix is the first eight bytes of s, little-endian, zero-padded.
func prefix(s string) uint64 {
	if len(s) >= 8 {
		return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
			uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	}
	var k uint64
	i := 0
	if len(s)&4 != 0 {
		k = uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24
		i = 4
	}
	if len(s)&2 != 0 {
		k |= (uint64(s[i]) | uint64(s[i+1])<<8) << (8 * i)
		i += 2
	}
	if len(s)&1 != 0 {
		k |= uint64(s[i]) << (8 * i)
	}
	return k
}

// hash mixes s's length and bytes, eight at a time (the finalizer of
// SplitMix64 after each word); key is prefix(s).
func hash(s string, key uint64) uint64 {
	h := uint64(len(s)) * 0x9e3779b97f4a7c15
	for {
		h ^= key
		h ^= h >> 30
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 27
		h *= 0x94d049bb133111eb
		h ^= h >> 31
		if len(s) <= 8 {
			return h
		}
		s = s[8:]
		key = prefix(s)
	}
}
