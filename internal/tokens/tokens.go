// Package tokens counts o200k_base tokens, offline: the vocabulary is the
// file embedded in tiktoken-go-loader, never the network. The counts are
// tiktoken-go's (v0.1.8, Encode with no special tokens allowed), token for
// token; the differential test and FuzzCount hold it to that.
package tokens

import (
	"fmt"
	"runtime"
	"sync"
	"unicode/utf8"
)

// Encoding is the tokenizer the lessons count excerpts with.
const Encoding = "o200k_base"

// Counter counts tokens of texts and remembers each count, so a text shown on
// many frames is encoded once. It is safe for concurrent use.
type Counter struct {
	enc  *encoder
	memo sync.Map // string -> int
}

// New loads the o200k_base vocabulary from the embedded file (about 50 ms);
// call it once at start-up and share the Counter.
func New() (*Counter, error) {
	enc, err := newEncoder()
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", Encoding, err)
	}
	return &Counter{enc: enc}, nil
}

// Count returns the number of o200k_base tokens in text, whatever its
// length (special-token markers such as <|endoftext|> are counted as plain
// text; invalid UTF-8 counts as tiktoken-go counts it, each bad byte as
// U+FFFD). Its time is linear in the text but for the merge of a long
// piece (a run of letters, of punctuation or of white space), O(n log n)
// in the piece, which then takes about 35 bytes of memory a byte while it
// is counted.
func (c *Counter) Count(text string) int {
	if n, ok := c.memo.Load(text); ok {
		return n.(int)
	}
	n := c.enc.count(text)
	c.memo.Store(text, n)
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

// encoder is the o200k_base tokenizer: the pre-tokenizer's rune classes and
// the vocabulary the merge reads.
type encoder struct {
	classes *classTable
	vocab   *vocab
}

func newEncoder() (*encoder, error) {
	v, err := loadVocab()
	if err != nil {
		return nil, err
	}
	return &encoder{classes: newClassTable(), vocab: v}, nil
}

// valid is text as tiktoken-go reads it: it converts the text to runes,
// which turns every byte of an invalid sequence into U+FFFD.
func valid(text string) string {
	if utf8.ValidString(text) {
		return text
	}
	return string([]rune(text))
}

// walk cuts text into pieces and calls f with each: with the ends of its
// tokens when the merge cut it, nil when the piece is one token.
func (e *encoder) walk(text string, f func(piece string, ends []int)) {
	text = valid(text)
	var ends []int
	var buf mergeBuf
	for i := 0; i < len(text); {
		end := e.classes.pieceEnd(text, i)
		piece := text[i:end]
		i = end
		if _, ok := e.vocab.rank(piece); ok { // every single byte is a token
			f(piece, nil)
			continue
		}
		ends = e.vocab.merge(piece, ends[:0], &buf)
		f(piece, ends)
	}
}

// count is the number of tokens of text.
func (e *encoder) count(text string) int {
	n := 0
	e.walk(text, func(_ string, ends []int) { n += max(1, len(ends)) })
	return n
}

// encode returns the token ids of text: the ids tiktoken-go's Encode(text,
// nil, nil) returns.
func (e *encoder) encode(text string) []int {
	var ids []int
	e.walk(text, func(piece string, ends []int) {
		if ends == nil {
			ends = []int{len(piece)}
		}
		start := 0
		for _, end := range ends {
			r, _ := e.vocab.rank(piece[start:end])
			ids = append(ids, int(r))
			start = end
		}
	})
	return ids
}
