package web

import "ctxsim/sim"

// Units of the drawn window: 1000 u is the whole window. The stylesheet maps
// u to pixels (see assets.go), so these numbers are exact at any screen size.
const (
	unitsPerWindow = 1000
	minBlockU      = 36 // minimum block height: about 19 px on a laptop, 16 px on a projector
	maxU           = 3000
)

// layout is the geometry of one frame's window, in u.
type layout struct {
	heights   []int
	stackU    int
	threshold int // position of the threshold line from the top
	edge      int // position of the window limit from the top
	box       int // height of the window box
	overflow  int // height of the stack below the limit
	selTop    int
	selU      int
}

// layoutOf places blocks to scale. Blocks under the minimum are drawn taller,
// so positions of the threshold and the limit are found in token space along
// the drawn stack: a token at position t is drawn where it falls inside its
// block. The free space below the stack is therefore exact.
func layoutOf(blocks []sim.Block, window, threshold int) layout {
	var lo layout
	lo.heights = make([]int, len(blocks))
	for i, b := range blocks {
		lo.heights[i] = clampU(max(minBlockU, scaled(b.Tokens, window)))
		if b.Selected && lo.selU == 0 {
			lo.selTop = lo.stackU
		}
		if b.Selected {
			lo.selU = lo.stackU + lo.heights[i] - lo.selTop
		}
		lo.stackU += lo.heights[i]
	}
	lo.threshold = positionOf(threshold, blocks, lo.heights, window)
	lo.edge = positionOf(window, blocks, lo.heights, window)
	lo.box = clampU(max(lo.edge, lo.stackU))
	if lo.stackU > lo.edge {
		lo.overflow = lo.stackU - lo.edge
	}
	return lo
}

// positionOf returns where token t falls along the drawn stack.
func positionOf(t int, blocks []sim.Block, heights []int, window int) int {
	top, seen := 0, 0
	for i, b := range blocks {
		if t <= seen+b.Tokens {
			return clampU(top + heights[i]*(t-seen)/max(b.Tokens, 1))
		}
		top += heights[i]
		seen += b.Tokens
	}
	return clampU(top + scaled(t-seen, window))
}

func scaled(tokens, window int) int {
	return (tokens*unitsPerWindow + window/2) / window
}

func clampU(u int) int { return min(max(u, 0), maxU) }
