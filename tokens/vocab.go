package tokens

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"strconv"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// vocab is the o200k_base vocabulary: every token's bytes and its rank,
// which is also its id. The BPE merge asks it for the rank of a byte string.
type vocab struct {
	ranks  map[string]uint32
	maxLen int // the longest token, in bytes: a longer string has no rank
}

// loadVocab decodes the o200k_base file embedded in tiktoken-go-loader (the
// file tiktoken-go reads through its offline loader): one "base64 rank" a
// line. All token bytes live in one string, so the 200k keys cost no
// allocation of their own.
func loadVocab() (*vocab, error) {
	const name = Encoding + ".tiktoken"
	data, err := assets.Assets.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read the embedded %s: %w", name, err)
	}
	lines := bytes.Count(data, []byte{'\n'}) + 1
	arena := make([]byte, 0, base64.StdEncoding.DecodedLen(len(data)))
	type entry struct{ start, end, rank uint32 }
	entries := make([]entry, 0, lines)
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
		start := len(arena)
		arena, err = base64.StdEncoding.AppendDecode(arena, b64)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: token: %w", name, n, err)
		}
		rank, err := strconv.ParseUint(string(num), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: rank: %w", name, n, err)
		}
		entries = append(entries, entry{uint32(start), uint32(len(arena)), uint32(rank)})
	}
	all := string(arena)
	v := &vocab{ranks: make(map[string]uint32, len(entries))}
	for _, e := range entries {
		v.ranks[all[e.start:e.end]] = e.rank
		v.maxLen = max(v.maxLen, int(e.end-e.start))
	}
	if len(v.ranks) != len(entries) {
		return nil, fmt.Errorf("%s: %d lines but %d distinct tokens", name, len(entries), len(v.ranks))
	}
	for b := range 256 {
		if _, ok := v.ranks[string([]byte{byte(b)})]; !ok {
			return nil, fmt.Errorf("%s: byte %#02x has no token", name, b)
		}
	}
	return v, nil
}

// rank is the rank of s, if s is a token.
func (v *vocab) rank(s string) (uint32, bool) {
	if len(s) > v.maxLen {
		return 0, false
	}
	r, ok := v.ranks[s]
	return r, ok
}
