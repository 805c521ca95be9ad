package draw

import (
	"math"
	"slices"
	"strings"
)

// Geometry of the drawing, in user units. The box is Window.Height tall;
// the column of blocks sits right of a margin (for the range bracket), the
// lane of labels right of the column.
const (
	Width  = 470.0
	ColX   = 18.0
	ColW   = 216.0
	LaneX  = ColX + ColW + 16
	LaneW  = Width - LaneX - 2
	colEnd = ColX + ColW

	// inside labels
	textX      = ColX + 10 // after the role stripe
	textEnd    = colEnd - 6
	RoleSize   = 8.5
	NameSize   = 12.0
	SizeSize   = 11.0
	BadgeSize  = 10.0
	badgePad   = 4.0 // on each side of a badge's text
	gap        = 5.0
	insideMinH = 18.0 // a row shorter than this is labelled in the lane
	ascent     = 11.5 // of the name above its baseline (the font's line box, DejaVu Sans)
	descent    = 3.5

	// excerpt lines on tall rows
	ExcerptSize = 9.5
	excerptStep = 14.0

	// the lane
	LaneSize  = 11.0
	laneStep  = 14.5
	lineClear = 2.5 // a line keeps this far from any text

	minNameRunes = 6    // a name cut shorter than this moves to the lane
	keepRunes    = 14   // a name cut shorter than this drops its badges first
	maxShift     = 90.0 // the farthest a lane label may sit from its rows
)

// Window is what to draw: the window's size, the rows of the request in
// order, and the lines across it.
type Window struct {
	Tokens  int     // tokens the window holds: the box
	Height  float64 // units the box is tall
	Reserve float64 // units below the box for an overflow and its labels
	Rows    []Row
	Lines   []Line
	// Marks are labels the lane gives a point of the stack (where the
	// prompt cache stops reusing), placed like callouts.
	Marks []Mark
	// GroupText names several rows labelled together when the lane cannot
	// hold a label for each ("12 blocks · 3.4k").
	GroupText func(rows []int) string
}

// Row is one drawn row: a block, or a tool call and its result drawn as one.
type Row struct {
	Blocks  []Block
	Label   Label
	Focus   bool     // the step is about it: its label is never grouped
	Excerpt []string // lines of its text, shown on a tall row
}

// Block is one block of a row.
type Block struct {
	ID     string
	Tokens int
}

// Label is what a row is called: its role, its name, its size and badges.
type Label struct {
	Role   string
	Name   string
	Size   string
	Badges []Badge // most important first
}

// Badge is a small tag of a row (a tier, a floor, a re-read).
type Badge struct {
	Text  string
	Tone  string
	Minor bool // dropped first when room is short
}

// Line is a line across the window at a token position (a threshold, the
// limit).
type Line struct {
	Tokens int
	Label  string
	Kind   string
}

// Mark is a lane label for a token position of the stack.
type Mark struct {
	Tokens int
	Text   string
	Kind   string
}

// Drawing is the laid-out window.
type Drawing struct {
	Height, Reserve float64
	Scale           float64 // units per token
	Rows            []RowShape
	Lines           []LineShape
	Callouts        []Callout
	Marks           []MarkShape
	Stack           float64 // bottom of the stack
	Overflow        float64 // units of the stack below the box
	Clipped         bool    // the stack runs past the reserve and is cut there
}

// RowShape is a row placed.
type RowShape struct {
	Y, H    float64
	Blocks  []Rect
	Inside  *Inside // nil when the row is named in the lane
	Excerpt []Span
}

// Rect is one block's place.
type Rect struct {
	ID     string
	Tokens int
	Y, H   float64
}

// Inside is a label drawn on its row.
type Inside struct {
	Y      float64 // baseline
	Role   *Span
	Name   Span
	Size   Span // right-aligned: X is its end
	Badges []BadgeShape
}

// Span is a text at a place (X is its start unless said otherwise).
type Span struct {
	X, Y float64
	Text string
}

// BadgeShape is a badge placed: its pill and its text.
type BadgeShape struct {
	X, W float64
	Text string
	Tone string
}

// LineShape is a line placed, with its label in the lane.
type LineShape struct {
	Y     float64
	Kind  string
	Label Span
}

// Callout is a label in the lane for one row, or a group of rows, with the
// leader that joins it to them.
type Callout struct {
	First, Last int     // the rows it names
	Text        Span    // baseline
	Anchor      float64 // where the leader meets the column
	Top, Bottom float64 // the rows' extent (a group's bracket)
	Group       bool
}

// MarkShape is a mark placed in the lane, pointing at Y in the column.
type MarkShape struct {
	Y    float64
	Kind string
	Text Span
}

// Lay places w's rows to scale, labels them and places its lines and marks.
func Lay(w Window) Drawing {
	d := Drawing{Height: w.Height, Reserve: w.Reserve, Scale: w.Height / float64(max(w.Tokens, 1))}
	d.placeRows(w.Rows)
	d.placeLines(w.Lines)
	for i, r := range w.Rows {
		d.labelInside(i, r)
	}
	d.placeLane(w)
	return d
}

func (d *Drawing) y(tokens int) float64 { return float64(tokens) * d.Scale }

// placeRows stacks the rows from the top, each block tokens × scale tall.
func (d *Drawing) placeRows(rows []Row) {
	top := 0.0
	for _, r := range rows {
		rs := RowShape{Y: top}
		for _, b := range r.Blocks {
			h := d.y(b.Tokens)
			rs.Blocks = append(rs.Blocks, Rect{ID: b.ID, Tokens: b.Tokens, Y: top, H: h})
			top += h
		}
		rs.H = top - rs.Y
		d.Rows = append(d.Rows, rs)
	}
	d.Stack = top
	d.Overflow = max(top-d.Height, 0)
	d.Clipped = top > d.Height+d.Reserve+0.5
}

func (d *Drawing) placeLines(lines []Line) {
	for _, l := range lines {
		d.Lines = append(d.Lines, LineShape{Y: d.y(l.Tokens), Kind: l.Kind, Label: Span{X: LaneX, Text: l.Label}})
	}
}

// labelInside puts a row's label on the row when it fits there and no
// line crosses it, and its excerpt lines below it.
func (d *Drawing) labelInside(i int, r Row) {
	rs := &d.Rows[i]
	if rs.H < insideMinH || rs.Y+rs.H > d.Height+d.Reserve {
		return
	}
	in, ok := insideLabel(r.Label)
	if !ok {
		return
	}
	base, ok := d.baseline(rs)
	if !ok {
		return
	}
	in.Y = base
	in.Name.Y, in.Size.Y = base, base
	if in.Role != nil {
		in.Role.Y = base
	}
	rs.Inside = &in
	rs.Excerpt = d.excerpt(rs, base, r.Excerpt)
}

// baseline finds where a row's label sits: centred on a short row, at the
// top of a tall one, moved off any line that would cross it.
func (d *Drawing) baseline(rs *RowShape) (float64, bool) {
	top, bottom := rs.Y+2, rs.Y+rs.H-2
	want := rs.Y + 4 + ascent
	if rs.H < 2*insideMinH {
		want = rs.Y + rs.H/2 + (ascent-descent)/2
	}
	candidates := []float64{want}
	for _, l := range d.Lines {
		candidates = append(candidates, l.Y+lineClear+ascent, l.Y-lineClear-descent)
	}
	for _, b := range candidates {
		if b-ascent >= top && b+descent <= bottom && !d.crossed(b-ascent, b+descent) {
			return b, true
		}
	}
	return 0, false
}

// crossed reports whether a line runs through the band [top, bottom].
func (d *Drawing) crossed(top, bottom float64) bool {
	for _, l := range d.Lines {
		if l.Y > top-lineClear && l.Y < bottom+lineClear {
			return true
		}
	}
	return false
}

// insideLabel fits a label on the column's width. The role stays while it
// can (it is what tells a block apart without its colour), then the major
// badges (a tier, a re-read: what a step is about), cutting the name to
// keep them as long as keepRunes of it remain; only then the role goes. A
// name is never cut below minNameRunes.
func insideLabel(l Label) (Inside, bool) {
	major := slices.DeleteFunc(slices.Clone(l.Badges), func(b Badge) bool { return b.Minor })
	tries := []struct {
		role   bool
		badges []Badge
		cut    bool
	}{
		{true, l.Badges, false}, {true, major, false}, {true, major, true},
		{true, nil, false}, {true, nil, true},
		{false, major, false}, {false, major, true}, {false, nil, false}, {false, nil, true},
	}
	for i, t := range tries {
		in, ok := tryInside(l, t.role, t.badges, t.cut)
		last := i == len(tries)-1
		if ok && (!t.cut || last || len([]rune(in.Name.Text)) > keepRunes) {
			return in, true
		}
	}
	return Inside{}, false
}

func tryInside(l Label, role bool, badges []Badge, cut bool) (Inside, bool) {
	in := Inside{}
	right := textEnd
	if l.Size != "" {
		in.Size = Span{X: right, Text: l.Size}
		right -= TextWidth(l.Size, Mono, SizeSize) + gap
	}
	for i := len(badges) - 1; i >= 0; i-- {
		w := TextWidth(badges[i].Text, Mono, BadgeSize) + 2*badgePad
		right -= w
		in.Badges = append([]BadgeShape{{X: right, W: w, Text: badges[i].Text, Tone: badges[i].Tone}}, in.Badges...)
		right -= 3
	}
	left := textX
	if role && l.Role != "" {
		r := strings.ToUpper(l.Role)
		in.Role = &Span{X: left, Text: r}
		left += TextWidth(r, Sans, RoleSize) + gap
	}
	room := right - gap - left
	name := l.Name
	if TextWidth(name, SansBold, NameSize) > room {
		if !cut {
			return in, false
		}
		name = Fit(name, SansBold, NameSize, room)
		if len([]rune(name)) < minNameRunes+1 {
			return in, false
		}
	}
	in.Name = Span{X: left, Text: name}
	return in, true
}

// excerpt fits lines of a row's text below its label, as many as the row
// holds, none where a line crosses.
func (d *Drawing) excerpt(rs *RowShape, base float64, lines []string) []Span {
	var out []Span
	y := base + excerptStep + 2
	for _, l := range lines {
		if y+3 > rs.Y+rs.H-3 || y+3 > d.Height+d.Reserve {
			break
		}
		if !d.crossed(y-8, y+3) {
			if t := Fit(l, Mono, ExcerptSize, textEnd-textX); t != "" {
				out = append(out, Span{X: textX, Y: y, Text: t})
			}
		}
		y += excerptStep
	}
	return out
}

// laneItem is one label of the lane: a line's, a mark's, or a callout's.
type laneItem struct {
	want, at float64 // desired and placed centre
	fixed    bool    // a line's label stays at the line
	line     int     // index of the line, or -1
	mark     int     // index of the mark, or -1
	rows     []int   // the rows a callout names
	focus    bool
}

// placeLane labels every row that has no inside label, in the lane,
// grouping neighbours when the lane cannot hold one label each.
func (d *Drawing) placeLane(w Window) {
	lo, hi := laneStep/2, d.Height+d.Reserve-laneStep/2
	var fixed, free []laneItem
	for i, l := range d.Lines {
		fixed = append(fixed, laneItem{want: l.Y, fixed: true, line: i, mark: -1})
	}
	for i, m := range w.Marks {
		free = append(free, laneItem{want: min(d.y(m.Tokens), d.Stack) + laneStep/2, line: -1, mark: i, focus: true})
	}
	for i, rs := range d.Rows {
		if rs.Inside == nil && rs.Y < d.Height+d.Reserve {
			free = append(free, laneItem{want: rs.Y + rs.H/2, line: -1, mark: -1, rows: []int{i}, focus: w.Rows[i].Focus})
		}
	}
	placeFixed(fixed, lo, hi)
	segs := segments(fixed, lo, hi)
	free = group(free, capacity(segs), d.Rows)
	placeFree(free, segs)
	// A label far from its row makes a long leader nobody can follow:
	// group more until every label is near its rows.
	for room := len(free) - 1; room > 0 && farthest(free) > maxShift; room-- {
		n := len(free)
		if free = group(free, room, d.Rows); len(free) == n {
			break
		}
		placeFree(free, segs)
	}
	for _, it := range fixed {
		d.Lines[it.line].Label.Y = it.at + (ascent-descent)/2
		d.Lines[it.line].Label.Text = Fit(d.Lines[it.line].Label.Text, Mono, LaneSize, LaneW)
	}
	for _, it := range free {
		d.addLaneLabel(w, it)
	}
}

func (d *Drawing) addLaneLabel(w Window, it laneItem) {
	base := it.at + (ascent-descent)/2
	if it.mark >= 0 {
		m := w.Marks[it.mark]
		y := min(d.y(m.Tokens), d.Stack)
		d.Marks = append(d.Marks, MarkShape{Y: y, Kind: m.Kind, Text: Span{X: LaneX, Y: base, Text: Fit(m.Text, SansBold, LaneSize, LaneW)}})
		return
	}
	first, last := it.rows[0], it.rows[len(it.rows)-1]
	c := Callout{First: first, Last: last, Top: d.Rows[first].Y, Bottom: d.Rows[last].Y + d.Rows[last].H, Group: len(it.rows) > 1}
	c.Anchor = (c.Top + c.Bottom) / 2
	text := ""
	if c.Group && w.GroupText != nil {
		text = Fit(w.GroupText(it.rows), Sans, LaneSize, LaneW)
	} else {
		text = laneText(w.Rows[first].Label)
	}
	c.Text = Span{X: LaneX, Y: base, Text: text}
	d.Callouts = append(d.Callouts, c)
}

// laneText is a row's label in the lane: its role, name, size and badges,
// as much of it as fits (the role and the size stay; the name is cut).
func laneText(l Label) string {
	major := slices.DeleteFunc(slices.Clone(l.Badges), func(b Badge) bool { return b.Minor })
	head := ""
	if l.Role != "" {
		head = l.Role + " · "
	}
	for _, bs := range [][]Badge{l.Badges, major, nil} {
		parts := []string{head + l.Name}
		if l.Size != "" {
			parts = append(parts, l.Size)
		}
		for _, b := range bs {
			parts = append(parts, b.Text)
		}
		if t := strings.Join(parts, " · "); TextWidth(t, Sans, LaneSize) <= LaneW {
			return t
		}
	}
	tail := ""
	if l.Size != "" {
		tail = " · " + l.Size
	}
	return head + Fit(l.Name, Sans, LaneSize, LaneW-TextWidth(head+tail, Sans, LaneSize)) + tail
}

// placeFixed keeps the lines' labels at their lines, pushed apart where
// two lines are closer than a label.
func placeFixed(items []laneItem, lo, hi float64) {
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmpFloat(a.want, b.want) })
	for i := range items {
		items[i].at = clamp(items[i].want, lo, hi)
		if i > 0 && items[i].at < items[i-1].at+laneStep {
			items[i].at = items[i-1].at + laneStep
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		top := hi
		if i+1 < len(items) {
			top = items[i+1].at - laneStep
		}
		items[i].at = min(items[i].at, top)
	}
}

// segment is a free stretch of the lane between fixed labels: the centres
// a label may take.
type segment struct{ a, b float64 }

func (s segment) capacity() int {
	if s.b < s.a {
		return 0
	}
	return int(math.Floor((s.b-s.a)/laneStep+1e-9)) + 1
}

func segments(fixed []laneItem, lo, hi float64) []segment {
	var out []segment
	a := lo
	for _, f := range fixed {
		out = append(out, segment{a, f.at - laneStep})
		a = f.at + laneStep
	}
	return append(out, segment{a, hi})
}

func capacity(segs []segment) int {
	n := 0
	for _, s := range segs {
		n += s.capacity()
	}
	return n
}

// group merges neighbouring callouts until the lane holds them all: the
// two smallest neighbours first, never a focus row while another merge is
// possible, and rows that touch before rows that do not.
func group(items []laneItem, room int, rows []RowShape) []laneItem {
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmpFloat(a.want, b.want) })
	for len(items) > room && room > 0 {
		best, bestCost := -1, math.Inf(1)
		for i := 0; i+1 < len(items); i++ {
			a, b := items[i], items[i+1]
			if a.mark >= 0 || b.mark >= 0 {
				continue
			}
			// Crowded neighbours first (their rows are close), small
			// groups before large ones.
			cost := b.want - a.want + laneStep*float64(len(a.rows)+len(b.rows))/2
			if a.focus || b.focus {
				cost += 1e6
			}
			if a.rows[len(a.rows)-1]+1 != b.rows[0] {
				cost += 1e3
			}
			if cost < bestCost {
				best, bestCost = i, cost
			}
		}
		if best < 0 {
			break
		}
		a, b := items[best], items[best+1]
		rs := append(slices.Clone(a.rows), b.rows...)
		top, bottom := rows[rs[0]].Y, rows[rs[len(rs)-1]].Y+rows[rs[len(rs)-1]].H
		merged := laneItem{want: (top + bottom) / 2, line: -1, mark: -1, rows: rs, focus: a.focus || b.focus}
		items = slices.Replace(items, best, best+2, merged)
	}
	return items
}

// farthest is how far the lane label farthest from its rows sits.
func farthest(items []laneItem) float64 {
	f := 0.0
	for _, it := range items {
		f = max(f, math.Abs(it.at-it.want))
	}
	return f
}

// placeFree places the lane's labels: each in the free stretch nearest its
// row (moving to a neighbour stretch when full), then spread inside the
// stretch so that none overlaps and each stays as near its row as it can.
func placeFree(items []laneItem, segs []segment) {
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmpFloat(a.want, b.want) })
	in := make([][]int, len(segs))
	for i, it := range items {
		s := nearest(segs, it.want)
		in[s] = append(in[s], i)
	}
	rebalance(in, segs)
	for s, idx := range in {
		spread(items, idx, segs[s])
	}
}

func nearest(segs []segment, y float64) int {
	best, dist := 0, math.Inf(1)
	for i, s := range segs {
		if s.capacity() == 0 {
			continue
		}
		dd := 0.0
		if y < s.a {
			dd = s.a - y
		} else if y > s.b {
			dd = y - s.b
		}
		if dd < dist {
			best, dist = i, dd
		}
	}
	return best
}

// rebalance moves labels out of stretches that cannot hold them, one at
// a time from the full stretch's edge towards the nearest stretch with
// room (through full ones, which pass a label on in turn).
func rebalance(in [][]int, segs []segment) {
	for range 8 * (len(segs) + 1) * (len(segs) + 1) {
		moved := false
		for s := range in {
			if len(in[s]) <= segs[s].capacity() {
				continue
			}
			switch spareToward(in, segs, s) {
			case -1:
				in[s-1] = append(in[s-1], in[s][0])
				in[s] = in[s][1:]
			case 1:
				in[s+1] = append([]int{in[s][len(in[s])-1]}, in[s+1]...)
				in[s] = in[s][:len(in[s])-1]
			default:
				continue
			}
			moved = true
		}
		if !moved {
			return
		}
	}
}

// spareToward says in which direction (-1 up, 1 down, 0 none) the nearest
// stretch with room lies from stretch s.
func spareToward(in [][]int, segs []segment, s int) int {
	for d := 1; d < len(segs); d++ {
		if s-d >= 0 && len(in[s-d]) < segs[s-d].capacity() {
			return -1
		}
		if s+d < len(segs) && len(in[s+d]) < segs[s+d].capacity() {
			return 1
		}
	}
	return 0
}

// spread places the labels idx (in order of their rows) inside one
// stretch, each as near its row as it can be with none overlapping: runs
// of labels that would overlap are pooled and centred on their rows'
// mean, and a run that meets the one before it is pooled with it.
func spread(items []laneItem, idx []int, s segment) {
	type run struct {
		from, to int // idx[from:to]
		sum      float64
		at       float64 // centre of its first label
	}
	place := func(r *run) {
		n := float64(r.to - r.from)
		r.at = clamp(r.sum/n-(n-1)*laneStep/2, s.a, max(s.b-(n-1)*laneStep, s.a))
	}
	var runs []run
	for k, i := range idx {
		r := run{from: k, to: k + 1, sum: items[i].want}
		place(&r)
		runs = append(runs, r)
		for len(runs) > 1 {
			prev, last := &runs[len(runs)-2], runs[len(runs)-1]
			if prev.at+float64(prev.to-prev.from)*laneStep <= last.at+1e-9 {
				break
			}
			prev.to, prev.sum = last.to, prev.sum+last.sum
			place(prev)
			runs = runs[:len(runs)-1]
		}
	}
	for _, r := range runs {
		for k := r.from; k < r.to; k++ {
			items[idx[k]].at = r.at + float64(k-r.from)*laneStep
		}
	}
}

func clamp(v, lo, hi float64) float64 { return min(max(v, lo), hi) }

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
