package web

import (
	"ctxsim/scenarios"
	"ctxsim/sim"
)

// Units of the drawn window: 1000 u is the whole window. The stylesheet maps
// u to pixels (see assets.go), so these numbers are exact at any screen size.
const (
	unitsPerWindow = 1000
	minBlockU      = 36 // minimum block height: about 19 px on a laptop, 16 px on a projector
	thinRowU       = 22 // minimum height of a compressed call + result row
	fitMarginU     = 60 // rows: the legend line above the box and a little air below the stack
	maxU           = 3000
)

// layout is the geometry of one frame's window, in u.
type layout struct {
	heights   []int
	stackU    int
	threshold int // position of the line (threshold, pressure) from the top
	edge      int // position of the window limit from the top
	box       int // height of the window box
	overflow  int // height of the stack below the limit
	selTop    int
	selU      int
}

// layoutOf places blocks to scale. Blocks under the minimum are drawn taller,
// so positions of the line and the limit are found in token space along
// the drawn stack: a token at position t is drawn where it falls inside its
// block. The free space below the stack is therefore exact.
func layoutOf(blocks []sim.Block, window, line int) layout {
	mins := make([]int, len(blocks))
	for i := range mins {
		mins[i] = minBlockU
	}
	return place(blocks, mins, window, line)
}

func place(blocks []sim.Block, mins []int, window, line int) layout {
	var lo layout
	lo.heights = make([]int, len(blocks))
	for i, b := range blocks {
		lo.heights[i] = clampU(max(mins[i], scaled(b.Tokens, window)))
		if b.Selected && lo.selU == 0 {
			lo.selTop = lo.stackU
		}
		if b.Selected {
			lo.selU = lo.stackU + lo.heights[i] - lo.selTop
		}
		lo.stackU += lo.heights[i]
	}
	lo.threshold = positionOf(line, blocks, lo.heights, window)
	lo.edge = positionOf(window, blocks, lo.heights, window)
	lo.box = clampU(max(lo.edge, lo.stackU))
	if lo.stackU > lo.edge {
		lo.overflow = lo.stackU - lo.edge
	}
	return lo
}

// row is one drawn row: a tool call with its result, or a lone block (the
// system prompt, the task, a call whose result was dropped).
type row struct {
	call, main *sim.Block
	tokens     int
}

func rowsOf(blocks []sim.Block) []row {
	var rows []row
	for i := 0; i < len(blocks); i++ {
		b := &blocks[i]
		if b.Kind == sim.KindToolCall && i+1 < len(blocks) && blocks[i+1].Role == sim.RoleTool && blocks[i+1].ToolUseID == b.ToolUseID {
			rows = append(rows, row{call: b, main: &blocks[i+1], tokens: b.Tokens + blocks[i+1].Tokens})
			i++
			continue
		}
		rows = append(rows, row{main: b, tokens: b.Tokens})
	}
	return rows
}

// rowsLayout places rows to scale. Forty-odd iterations do not fit a
// projector at the full minimum, so compressed rows (a summary, an
// excerpt, a stub) keep a thin one: their state shows as colour and
// pattern, their text in the sheet and the table.
func rowsLayout(rows []row, window, line int) layout {
	blocks := make([]sim.Block, len(rows))
	mins := make([]int, len(rows))
	for i, r := range rows {
		blocks[i].Tokens = r.tokens
		mins[i] = minBlockU
		if r.call != nil && r.main.Kind != sim.KindToolResult {
			mins[i] = thinRowU
		}
	}
	return place(blocks, mins, window, line)
}

// fitOf is the height a frame needs, in u: its box, or for rows the stack
// (after a pass most of the window is free, and drawing that free space on
// screen would shrink every row below reading size).
func fitOf(l *scenarios.Lesson, f sim.Frame) int {
	line := 0
	if f.Line.Key != "" {
		line = f.Line.Tokens
	}
	if l.Draw == scenarios.DrawPairs {
		return rowsLayout(rowsOf(f.Blocks), l.Window, line).stackU
	}
	return layoutOf(f.Blocks, l.Window, line).box
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
