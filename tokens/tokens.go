// Package tokens counts o200k_base tokens with tiktoken-go, offline: the
// vocabulary comes from tiktoken-go-loader's embedded files, never the network.
package tokens

import (
	"fmt"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// Encoding is the tokenizer the lessons count excerpts with.
const Encoding = "o200k_base"

// MaxText caps what Count encodes: tiktoken is quadratic on long runs of one
// character, and lesson texts are far shorter.
const MaxText = 64 << 10

// Counter counts tokens of texts and remembers each count, so a text shown on
// many frames is encoded once. It is safe for concurrent use.
type Counter struct {
	enc  *tiktoken.Tiktoken
	memo sync.Map // string -> int
}

// New loads the o200k_base encoding with the offline loader. It takes about
// 0.3 s; call it once at start-up and share the Counter.
func New() (*Counter, error) {
	tiktoken.SetBpeLoader(tiktoken_loader.NewOfflineLoader())
	enc, err := tiktoken.GetEncoding(Encoding)
	if err != nil {
		return nil, fmt.Errorf("load %s offline: %w", Encoding, err)
	}
	return &Counter{enc: enc}, nil
}

// Count returns the number of o200k_base tokens in text (special-token
// markers are counted as plain text).
func (c *Counter) Count(text string) int {
	if n, ok := c.memo.Load(text); ok {
		return n.(int)
	}
	t := text
	if len(t) > MaxText {
		t = t[:MaxText]
	}
	n := len(c.enc.Encode(t, nil, nil))
	c.memo.Store(text, n)
	return n
}
