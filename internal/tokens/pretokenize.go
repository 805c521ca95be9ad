package tokens

import (
	"unicode"
	"unicode/utf8"
)

// The o200k_base pre-tokenizer cuts a text into pieces before the BPE
// merge; no token crosses a piece. tiktoken-go finds them with this pattern
// (encoding.go of github.com/pkoukk/tiktoken-go v0.1.8), matched by
// github.com/dlclark/regexp2, a backtracking engine with .NET semantics
// (alternatives tried in order, greedy quantifiers backing off one
// character at a time) over the text's runes:
//
//	1 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	2 [^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?
//	3 \p{N}{1,3}
//	4  ?[^\s\p{L}\p{N}]+[\r\n/]*
//	5 \s*[\r\n]+
//	6 \s+(?!\S)
//	7 \s+
//
// pieceEnd finds the same match without backtracking: each alternative
// below says which path the engine's backing-off ends on. regexp2 takes
// \s as unicode.IsSpace, \p{..} as Go's unicode tables, and matches (?i)
// by comparing unicode.ToLower of the text's rune; so does this file.
// Every rune starts a match of one alternative (a letter 1 or 2, a number
// 3, white space 7, anything else 4), so the pieces tile the text.

// Classes of a rune, as bits.
const (
	clsU     = 1 << iota // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]: may start a word
	clsW                 // [\p{Ll}\p{Lm}\p{Lo}\p{M}]: may end one
	clsL                 // \p{L}
	clsN                 // \p{N}
	clsSpace             // \s
	clsCRLF              // [\r\n]
)

// classTable holds the class of every rune below tableRunes, built from
// the unicode range tables; a rune above it is classified on demand.
type classTable struct {
	ascii [utf8.RuneSelf]uint8
	bmp   *[tableRunes]uint8
}

// tableRunes is how many runes the table covers: the BMP and the SMP,
// where emoji, historic scripts and the mathematical letters live.
const tableRunes = 0x20000

func newClassTable() *classTable {
	t := &classTable{bmp: new([tableRunes]uint8)}
	set := func(tab *unicode.RangeTable, bit uint8) {
		for _, r := range tab.R16 {
			for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
				t.bmp[c] |= bit
			}
		}
		for _, r := range tab.R32 {
			for c := rune(r.Lo); c <= rune(r.Hi) && c < tableRunes; c += rune(r.Stride) {
				t.bmp[c] |= bit
			}
		}
	}
	set(unicode.Lu, clsU|clsL)
	set(unicode.Lt, clsU|clsL)
	set(unicode.Lm, clsU|clsW|clsL)
	set(unicode.Lo, clsU|clsW|clsL)
	set(unicode.Ll, clsW|clsL)
	set(unicode.M, clsU|clsW)
	set(unicode.N, clsN)
	set(unicode.White_Space, clsSpace) // unicode.IsSpace above Latin-1
	for c := range rune(0x100) {
		t.bmp[c] &^= clsSpace
		if unicode.IsSpace(c) {
			t.bmp[c] |= clsSpace
		}
	}
	t.bmp['\r'] |= clsCRLF
	t.bmp['\n'] |= clsCRLF
	copy(t.ascii[:], t.bmp[:])
	return t
}

// classOf classifies r from the unicode package, as regexp2 does.
func classOf(r rune) uint8 {
	var c uint8
	switch {
	case unicode.Is(unicode.Lu, r), unicode.Is(unicode.Lt, r):
		c = clsU | clsL
	case unicode.Is(unicode.Lm, r), unicode.Is(unicode.Lo, r):
		c = clsU | clsW | clsL
	case unicode.Is(unicode.Ll, r):
		c = clsW | clsL
	case unicode.Is(unicode.M, r):
		c = clsU | clsW
	case unicode.Is(unicode.N, r):
		c = clsN
	case unicode.IsSpace(r):
		c = clsSpace
	}
	if r == '\r' || r == '\n' {
		c |= clsCRLF
	}
	return c
}

// at is the class and byte length of the rune at s[i]; s is valid UTF-8.
func (t *classTable) at(s string, i int) (uint8, int) {
	if s[i] < utf8.RuneSelf {
		return t.ascii[s[i]], 1
	}
	return t.multibyte(s, i)
}

// multibyte is at for a rune of two bytes or more.
func (t *classTable) multibyte(s string, i int) (uint8, int) {
	r, n := utf8.DecodeRuneInString(s[i:])
	if r < tableRunes {
		return t.bmp[r], n
	}
	return classOf(r), n
}

// Derived classes.
func isPrefix(c uint8) bool { return c&(clsCRLF|clsL|clsN) == 0 }  // [^\r\n\p{L}\p{N}]
func isPunct(c uint8) bool  { return c&(clsSpace|clsL|clsN) == 0 } // [^\s\p{L}\p{N}]

// pieceEnd is the end of the piece that starts at s[i] (i < len(s)).
func (t *classTable) pieceEnd(s string, i int) int {
	c, n := t.at(s, i)
	// 1 and 2: the optional prefix rune is tried first, then without it.
	if isPrefix(c) {
		if end := t.lowerWord(s, i+n); end >= 0 {
			return end
		}
	}
	if end := t.lowerWord(s, i); end >= 0 {
		return end
	}
	if isPrefix(c) {
		if end := t.upperWord(s, i+n); end >= 0 {
			return end
		}
	}
	if end := t.upperWord(s, i); end >= 0 {
		return end
	}
	// 3
	if c&clsN != 0 {
		end := i + n
		for k := 1; k < 3 && end < len(s); k++ {
			c, n := t.at(s, end)
			if c&clsN == 0 {
				break
			}
			end += n
		}
		return end
	}
	// 4: " ?" takes the space when punctuation follows it.
	if s[i] == ' ' && i+1 < len(s) {
		if c, _ := t.at(s, i+1); isPunct(c) {
			return t.punct(s, i+1)
		}
	}
	if isPunct(c) {
		return t.punct(s, i)
	}
	// 5, 6, 7: c is white space (every other rune matched above).
	return t.space(s, i)
}

// lowerWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+
// and the contraction at s[j:], or returns -1. The first run is greedy;
// when no lower rune follows it, the engine backs off to the last rune of
// the run that is also a lower one (Lm, Lo, M), which then ends the match:
// every rune after it in the run is Lu or Lt.
func (t *classTable) lowerWord(s string, j int) int {
	lastLower := -1
	k := j
	for k < len(s) {
		c, n := t.ascii[s[k]&0x7f], 1 // t.at(s, k), inlined by hand
		if s[k] >= utf8.RuneSelf {
			c, n = t.multibyte(s, k)
		}
		if c&clsU == 0 {
			if c&clsW != 0 {
				return t.contraction(s, t.run(s, k, clsW))
			}
			break
		}
		k += n
		if c&clsW != 0 {
			lastLower = k
		}
	}
	if lastLower < 0 {
		return -1
	}
	return t.contraction(s, lastLower)
}

// upperWord matches [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*
// and the contraction at s[j:], or returns -1.
func (t *classTable) upperWord(s string, j int) int {
	k := t.run(s, j, clsU)
	if k == j {
		return -1
	}
	return t.contraction(s, t.run(s, k, clsW))
}

// run is the end of the run of runes of class bit that starts at s[k].
func (t *classTable) run(s string, k int, bit uint8) int { return t.runOf(s, k, bit, bit) }

// runOf is the end of the run of runes whose class c has c&mask == want
// that starts at s[k].
func (t *classTable) runOf(s string, k int, mask, want uint8) int {
	for k < len(s) {
		c, n := t.ascii[s[k]&0x7f], 1 // t.at(s, k), inlined by hand
		if s[k] >= utf8.RuneSelf {
			c, n = t.multibyte(s, k)
		}
		if c&mask != want {
			break
		}
		k += n
	}
	return k
}

// contraction is the end of (?i:'s|'t|'re|'ve|'m|'ll|'d)? at s[k:].
func (t *classTable) contraction(s string, k int) int {
	if k >= len(s) || s[k] != '\'' {
		return k
	}
	r1, n1 := lowerAt(s, k+1)
	switch r1 {
	case 's', 't', 'm', 'd':
		return k + 1 + n1
	case 'r', 'v', 'l':
		want := rune('e')
		if r1 == 'l' {
			want = 'l'
		}
		if r2, n2 := lowerAt(s, k+1+n1); r2 == want {
			return k + 1 + n1 + n2
		}
	}
	return k
}

// lowerAt is unicode.ToLower of the rune at s[i] and its length, or -1.
func lowerAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return -1, 0
	}
	if b := s[i]; b < utf8.RuneSelf {
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return rune(b), 1
	}
	r, n := utf8.DecodeRuneInString(s[i:])
	return unicode.ToLower(r), n
}

// punct matches [^\s\p{L}\p{N}]+[\r\n/]* at s[k:], k at such a rune.
func (t *classTable) punct(s string, k int) int {
	k = t.runOf(s, k, clsSpace|clsL|clsN, 0) // isPunct
	for k < len(s) && (s[k] == '\r' || s[k] == '\n' || s[k] == '/') {
		k++
	}
	return k
}

// space matches 5, 6 or 7 at s[i:], a white-space rune. 5 backs \s* off to
// the last line break of the run and ends after it; 6 backs \s+ off by one
// rune unless the run ends the text; 7 takes the run, one rune.
func (t *classTable) space(s string, i int) int {
	k, last, afterCRLF := i, i, -1
	for k < len(s) {
		c, n := t.ascii[s[k]&0x7f], 1 // t.at(s, k), inlined by hand
		if s[k] >= utf8.RuneSelf {
			c, n = t.multibyte(s, k)
		}
		if c&clsSpace == 0 {
			break
		}
		last = k
		k += n
		if c&clsCRLF != 0 {
			afterCRLF = k
		}
	}
	switch {
	case afterCRLF >= 0:
		return afterCRLF
	case k == len(s):
		return k
	case last > i:
		return last
	}
	return k
}
