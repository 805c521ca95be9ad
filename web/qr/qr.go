// Package qr encodes a short text (a room's join address) as a QR code
// (ISO/IEC 18004): byte mode, error correction level M, versions 1 to 10
// (up to 213 bytes), the mask with the lowest penalty. It draws the code as
// SVG for a phone's camera to read from a projected page. No network, no
// dependency.
package qr

import (
	"errors"
	"strconv"
	"strings"
)

// Code is an encoded QR code: Size × Size modules, true for dark.
type Code struct {
	Size    int
	Version int
	Mask    int
	dark    [][]bool
	fn      [][]bool // function patterns, not data
}

// Dark reports whether the module at column x, row y is dark.
func (c *Code) Dark(x, y int) bool { return c.dark[y][x] }

// ErrTooLong is returned for a text longer than version 10 at level M holds.
var ErrTooLong = errors.New("qr: text too long (at most 213 bytes)")

// blocks of each version at level M: error correction codewords per block,
// then the data codewords of each block.
var levelM = [11]struct {
	ec   int
	data []int
}{
	{},
	{10, []int{16}},
	{16, []int{28}},
	{26, []int{44}},
	{18, []int{32, 32}},
	{24, []int{43, 43}},
	{16, []int{27, 27, 27, 27}},
	{18, []int{31, 31, 31, 31}},
	{22, []int{38, 38, 39, 39}},
	{22, []int{36, 36, 36, 37, 37}},
	{26, []int{43, 43, 43, 43, 44}},
}

// alignment are the centres of the alignment patterns of each version.
var alignment = [11][]int{nil, nil, {6, 18}, {6, 22}, {6, 26}, {6, 30}, {6, 34}, {6, 22, 38}, {6, 24, 42}, {6, 26, 46}, {6, 28, 50}}

// Encode makes the QR code of text.
func Encode(text string) (*Code, error) {
	data := []byte(text)
	v := 1
	for ; v <= 10; v++ {
		capacity := 0
		for _, n := range levelM[v].data {
			capacity += n
		}
		countBits := 8
		if v >= 10 {
			countBits = 16
		}
		if 4+countBits+8*len(data) <= 8*capacity {
			break
		}
	}
	if v > 10 {
		return nil, ErrTooLong
	}
	c := &Code{Size: 17 + 4*v, Version: v}
	c.dark = grid(c.Size)
	c.fn = grid(c.Size)
	c.drawFunctions()
	c.drawCodewords(codewords(v, data))
	best, bestPenalty := 0, -1
	for m := range 8 {
		c.applyMask(m)
		c.drawFormat(m)
		if p := c.penalty(); bestPenalty < 0 || p < bestPenalty {
			best, bestPenalty = m, p
		}
		c.applyMask(m) // undo
	}
	c.Mask = best
	c.applyMask(best)
	c.drawFormat(best)
	return c, nil
}

func grid(n int) [][]bool {
	g := make([][]bool, n)
	for i := range g {
		g[i] = make([]bool, n)
	}
	return g
}

// codewords are the data of a version-v code, padded, split in blocks,
// with each block's error correction, interleaved.
func codewords(v int, data []byte) []byte {
	spec := levelM[v]
	capacity := 0
	for _, n := range spec.data {
		capacity += n
	}
	var bits []bool
	put := func(val, n int) {
		for i := n - 1; i >= 0; i-- {
			bits = append(bits, val>>i&1 == 1)
		}
	}
	put(0b0100, 4) // byte mode
	if v >= 10 {
		put(len(data), 16)
	} else {
		put(len(data), 8)
	}
	for _, b := range data {
		put(int(b), 8)
	}
	put(0, min(4, 8*capacity-len(bits)))
	for len(bits)%8 != 0 {
		bits = append(bits, false)
	}
	var all []byte
	for i := 0; i < len(bits); i += 8 {
		b := byte(0)
		for j := range 8 {
			if bits[i+j] {
				b |= 1 << (7 - j)
			}
		}
		all = append(all, b)
	}
	for pad := byte(0xEC); len(all) < capacity; pad ^= 0xEC ^ 0x11 {
		all = append(all, pad)
	}
	var blocks, ecs [][]byte
	for _, n := range spec.data {
		blocks = append(blocks, all[:n])
		ecs = append(ecs, ReedSolomon(all[:n], spec.ec))
		all = all[n:]
	}
	var out []byte
	for i := range spec.data[len(spec.data)-1] {
		for _, b := range blocks {
			if i < len(b) {
				out = append(out, b[i])
			}
		}
	}
	for i := range spec.ec {
		for _, e := range ecs {
			out = append(out, e[i])
		}
	}
	return out
}

// GF(256) with the QR code's polynomial x⁸+x⁴+x³+x²+1.
var gfExp, gfLog = func() ([512]byte, [256]byte) {
	var exp [512]byte
	var log [256]byte
	x := 1
	for i := range 255 {
		exp[i] = byte(x)
		log[x] = byte(i)
		x <<= 1
		if x&0x100 != 0 {
			x ^= 0x11D
		}
	}
	for i := 255; i < 512; i++ {
		exp[i] = exp[i-255]
	}
	return exp, log
}()

func gfMul(a, b byte) byte {
	if a == 0 || b == 0 {
		return 0
	}
	return gfExp[int(gfLog[a])+int(gfLog[b])]
}

// ReedSolomon is the n error correction codewords of data: the remainder
// of data·xⁿ divided by the generator ∏(x − αⁱ), i < n.
func ReedSolomon(data []byte, n int) []byte {
	gen := []byte{1}
	for i := range n {
		next := make([]byte, len(gen)+1)
		for j, g := range gen {
			next[j] ^= g
			next[j+1] ^= gfMul(g, gfExp[i])
		}
		gen = next
	}
	rem := make([]byte, n)
	for _, d := range data {
		f := d ^ rem[0]
		copy(rem, rem[1:])
		rem[n-1] = 0
		for j := range n {
			rem[j] ^= gfMul(gen[j+1], f)
		}
	}
	return rem
}

func (c *Code) set(x, y int, dark bool) {
	c.dark[y][x] = dark
	c.fn[y][x] = true
}

// drawFunctions draws the finders, separators, timing and alignment
// patterns, the dark module, and reserves the format and version areas.
func (c *Code) drawFunctions() {
	n := c.Size
	for i := range n {
		c.set(6, i, i%2 == 0)
		c.set(i, 6, i%2 == 0)
	}
	for _, p := range [][2]int{{3, 3}, {n - 4, 3}, {3, n - 4}} {
		for dy := -4; dy <= 4; dy++ {
			for dx := -4; dx <= 4; dx++ {
				x, y := p[0]+dx, p[1]+dy
				if x < 0 || y < 0 || x >= n || y >= n {
					continue
				}
				d := max(abs(dx), abs(dy))
				c.set(x, y, d != 2 && d != 4)
			}
		}
	}
	al := alignment[c.Version]
	for i, ax := range al {
		for j, ay := range al {
			if i == 0 && j == 0 || i == 0 && j == len(al)-1 || i == len(al)-1 && j == 0 {
				continue // the finders are there
			}
			for dy := -2; dy <= 2; dy++ {
				for dx := -2; dx <= 2; dx++ {
					c.set(ax+dx, ay+dy, max(abs(dx), abs(dy)) != 1)
				}
			}
		}
	}
	c.drawFormat(0) // reserves the areas; drawn again with the mask chosen
	if c.Version >= 7 {
		rem := c.Version
		for range 12 {
			rem = rem<<1 ^ (rem>>11)*0x1F25
		}
		bits := c.Version<<12 | rem
		for i := range 18 {
			dark := bits>>i&1 == 1
			a, b := n-11+i%3, i/3
			c.set(a, b, dark)
			c.set(b, a, dark)
		}
	}
}

// drawFormat draws the format information (level M, mask) in both copies.
func (c *Code) drawFormat(mask int) {
	n := c.Size
	bits := FormatBits(mask)
	bit := func(i int) bool { return bits>>i&1 == 1 }
	for i := range 6 {
		c.set(8, i, bit(i))
	}
	c.set(8, 7, bit(6))
	c.set(8, 8, bit(7))
	c.set(7, 8, bit(8))
	for i := 9; i < 15; i++ {
		c.set(14-i, 8, bit(i))
	}
	for i := range 8 {
		c.set(n-1-i, 8, bit(i))
	}
	for i := 8; i < 15; i++ {
		c.set(8, n-15+i, bit(i))
	}
	c.set(8, n-8, true) // the dark module
}

// FormatBits are the 15 format bits of level M with mask: the 5 data bits,
// their BCH(15,5) remainder, XOR 101010000010010.
func FormatBits(mask int) int {
	data := 0b00<<3 | mask // level M is 00
	rem := data
	for range 10 {
		rem = rem<<1 ^ (rem>>9)*0x537
	}
	return (data<<10 | rem) ^ 0x5412
}

// drawCodewords places the codewords' bits in the zigzag order, two
// columns at a time from the bottom right, skipping the timing column.
func (c *Code) drawCodewords(data []byte) {
	n := c.Size
	i := 0
	for right := n - 1; right >= 1; right -= 2 {
		if right == 6 {
			right = 5
		}
		for vert := range n {
			for j := range 2 {
				x := right - j
				y := vert
				if (right+1)&2 == 0 {
					y = n - 1 - vert
				}
				if c.fn[y][x] || i >= len(data)*8 {
					continue
				}
				c.dark[y][x] = data[i>>3]>>(7-i&7)&1 == 1
				i++
			}
		}
	}
}

// applyMask flips the data modules the mask selects (twice undoes it).
func (c *Code) applyMask(m int) {
	for y := range c.Size {
		for x := range c.Size {
			if c.fn[y][x] {
				continue
			}
			var flip bool
			switch m {
			case 0:
				flip = (x+y)%2 == 0
			case 1:
				flip = y%2 == 0
			case 2:
				flip = x%3 == 0
			case 3:
				flip = (x+y)%3 == 0
			case 4:
				flip = (x/3+y/2)%2 == 0
			case 5:
				flip = x*y%2+x*y%3 == 0
			case 6:
				flip = (x*y%2+x*y%3)%2 == 0
			case 7:
				flip = ((x+y)%2+x*y%3)%2 == 0
			}
			if flip {
				c.dark[y][x] = !c.dark[y][x]
			}
		}
	}
}

// penalty scores how hard the code is to read (the standard's four rules):
// long runs, 2×2 blocks, finder-like patterns, dark share far from half.
func (c *Code) penalty() int {
	n, p, dark := c.Size, 0, 0
	line := func(get func(i int) bool) {
		run := 1
		var s strings.Builder
		for i := range n {
			if get(i) {
				s.WriteByte('1')
			} else {
				s.WriteByte('0')
			}
			if i > 0 && get(i) == get(i-1) {
				run++
				if run == 5 {
					p += 3
				} else if run > 5 {
					p++
				}
			} else {
				run = 1
			}
		}
		str := s.String()
		p += 40 * (strings.Count(str, "00001011101") + strings.Count(str, "10111010000"))
	}
	for y := range n {
		line(func(x int) bool { return c.dark[y][x] })
	}
	for x := range n {
		line(func(y int) bool { return c.dark[y][x] })
	}
	for y := range n {
		for x := range n {
			if c.dark[y][x] {
				dark++
			}
			if x+1 < n && y+1 < n {
				d := c.dark[y][x]
				if c.dark[y][x+1] == d && c.dark[y+1][x] == d && c.dark[y+1][x+1] == d {
					p += 3
				}
			}
		}
	}
	pct := dark * 100 / (n * n)
	return p + 10*(abs(pct-50)/5)
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// SVG draws the code with a quiet zone of four modules as one path, module
// by module, dark on light.
func (c *Code) SVG() string {
	const quiet = 4
	side := c.Size + 2*quiet
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ` + strconv.Itoa(side) + " " + strconv.Itoa(side) +
		`" shape-rendering="crispEdges"><rect width="100%" height="100%" fill="#fff"/><path fill="#000" d="`)
	for y := range c.Size {
		for x := range c.Size {
			if c.dark[y][x] {
				b.WriteString("M" + strconv.Itoa(x+quiet) + " " + strconv.Itoa(y+quiet) + "h1v1h-1z")
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String()
}
