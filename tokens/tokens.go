// Package tokens counts o200k_base tokens with tiktoken-go, offline: the
// vocabulary comes from tiktoken-go-loader's embedded files, never the network.
package tokens

import (
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"

	"ctxsim/textcut"
)

// Encoding is the tokenizer the lessons count excerpts with.
const Encoding = "o200k_base"

// MaxText caps what Count encodes in one piece: tiktoken is quadratic on
// long runs of one character. A longer text is counted in pieces cut where
// no token can cross (see split); a run longer than MaxText with no such
// place is counted up to MaxText.
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
	n := c.count(text, MaxText)
	c.memo.Store(text, n)
	return n
}

// count encodes text in pieces of at most max bytes.
func (c *Counter) count(text string, max int) int {
	n := 0
	for _, t := range split(text, max) {
		n += len(c.enc.Encode(t, nil, nil))
	}
	return n
}

// CountAll counts texts on as many goroutines as there are CPUs, so that
// later Counts of them are lookups.
func (c *Counter) CountAll(texts []string) {
	next := make(chan string)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for t := range next {
				c.Count(t)
			}
		}()
	}
	for _, t := range texts {
		next <- t
	}
	close(next)
	wg.Wait()
}

// split cuts text into pieces of at most max bytes where the o200k_base
// pre-tokenizer starts a new piece whatever surrounds it: after a newline
// that a character other than white space or '/' follows (no pattern of
// the encoding runs a newline into such a character: a run of newlines,
// or of punctuation followed by newlines and slashes, ends at it). A stretch longer than max
// with no such place is cut at max, on a rune boundary.
func split(text string, max int) []string {
	var out []string
	for len(text) > max {
		cut := strings.LastIndexFunc(text[:max], func(r rune) bool { return r == '\n' })
		for cut >= 0 && (cut+1 >= len(text) || isSpace(text[cut+1]) || text[cut+1] == '/') {
			cut = strings.LastIndexByte(text[:cut], '\n')
		}
		if cut < 0 {
			out = append(out, textcut.Prefix(text, max))
			return out
		}
		out = append(out, text[:cut+1])
		text = text[cut+1:]
	}
	return append(out, text)
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' || b == '\f'
}
