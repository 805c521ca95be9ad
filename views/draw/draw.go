package draw

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// Style is the geometry and the type of a drawing, in user units: how
// wide it is, how wide its column, how large its text. A page scales the
// whole drawing to the screen, so a style is chosen for the smallest
// screen it is read on: Page for the lesson page (a laptop and a phone),
// Projector for the presenter view. Every text but a name is Small.
type Style struct {
	Name  string  // the drawing's class (st-NAME): the stylesheet sets the same sizes
	Width float64 // the drawing's width; its height is the box and the room below it
	ColW  float64 // the column of blocks
	Text  float64 // names, bold
	Small float64 // roles, sizes, badges, excerpts, the lane
}

// The styles of the drawings. Page: its smallest text is 11 px on a
// phone's 374 px and 12 px at 1440×900; Projector: 14 px per side of a
// comparison at 1280×720 (the browser tests measure both).
var (
	Page      = Style{Name: "page", Width: 470, ColW: 224, Text: 14.8, Small: 14.2}
	Projector = Style{Name: "projector", Width: 600, ColW: 286, Text: 16.4, Small: 15.8}
)

// Geometry a style derives, in user units.
const (
	ColX      = 18.0 // left of the column: room for the range bracket
	laneGap   = 16.0 // between the column and the lane
	stripeW   = 4.0  // the role stripe
	gap       = 5.0
	lineClear = 2.5 // a line keeps this far from any text

	minNameRunes = 6  // a name cut shorter than this moves to the lane
	keepRunes    = 14 // a name cut shorter than this drops its badges first
)

// ColEnd is the right edge of the column.
func (s Style) ColEnd() float64 { return ColX + s.ColW }

// LaneX is where the lane's labels start.
func (s Style) LaneX() float64 { return s.ColEnd() + laneGap }

// LaneW is the lane's width.
func (s Style) LaneW() float64 { return s.Width - s.LaneX() - 2 }

func (s Style) textX() float64       { return ColX + stripeW + 6 }
func (s Style) textEnd() float64     { return s.ColEnd() - 6 }
func (s Style) ascent() float64      { return s.Text * 0.96 } // of a name above its baseline (DejaVu Sans)
func (s Style) descent() float64     { return s.Text * 0.3 }
func (s Style) insideMinH() float64  { return s.Text * 1.55 } // a row shorter than this is named in the lane
func (s Style) excerptStep() float64 { return s.Small * 1.42 }
func (s Style) laneStep() float64    { return s.Small * 1.3 }
func (s Style) badgePad() float64    { return s.Small * 0.35 }
func (s Style) maxShift() float64    { return s.Small * 8 } // the farthest a lane label may sit from its rows

// BadgeH is the height of a badge's pill.
func (s Style) BadgeH() float64 { return s.Small * 1.2 }

// Window is what to draw: the window's size, the rows of the request in
// order, and the lines across it.
type Window struct {
	Tokens  int     // tokens the window holds: the box
	Height  float64 // units the box is tall
	Reserve float64 // units below the box for an overflow and its labels
	Rows    []Row
	Lines   []Line
	// Marks are labels the lane gives a point of the stack (where the
	// prompt cache stops reusing, what left the window), placed like
	// callouts.
	Marks []Mark
	// GroupText names several rows labelled together when the lane cannot
	// hold a label for each ("12 blocks · 3.4k").
	GroupText func(rows []int) string
}

// Row is one drawn row: a block, or a tool call and its result drawn as one.
type Row struct {
	Blocks []Block
	Label  Label
	Focus  bool // the step is about it: its label is never grouped
	// Full: the step's narration names it, so its name is drawn whole
	// (inside, or in the lane without its role, size or badges if need be).
	Full    bool
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
	Past   bool // it may point past the stack's bottom (at what left the window)
}

// at is where a mark points: its place, kept on the stack unless it may
// point past it.
func (d *Drawing) at(m Mark) float64 {
	if m.Past {
		return min(d.y(m.Tokens), d.Height+d.Reserve)
	}
	return min(d.y(m.Tokens), d.Stack)
}

// Drawing is the laid-out window.
type Drawing struct {
	Style           Style
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
	More        []Span  // its next line, when a named row's name needs two
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

// Lay places w's rows to scale in style s, labels them and places its
// lines and marks.
func Lay(w Window, s Style) Drawing {
	d := Drawing{Style: s, Height: w.Height, Reserve: w.Reserve, Scale: w.Height / float64(max(w.Tokens, 1))}
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
		d.Lines = append(d.Lines, LineShape{Y: d.y(l.Tokens), Kind: l.Kind, Label: Span{X: d.Style.LaneX(), Text: l.Label}})
	}
}

// labelInside puts a row's label on the row when it fits there and no
// line crosses it, and its excerpt lines below it.
func (d *Drawing) labelInside(i int, r Row) {
	rs := &d.Rows[i]
	if rs.H < d.Style.insideMinH() || rs.Y+rs.H > d.Height+d.Reserve {
		return
	}
	in, ok := d.Style.insideLabel(r.Label, r.Full)
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
	s := d.Style
	top, bottom := rs.Y+2, rs.Y+rs.H-2
	want := rs.Y + 4 + s.ascent()
	if rs.H < 2*s.insideMinH() {
		want = rs.Y + rs.H/2 + (s.ascent()-s.descent())/2
	}
	candidates := []float64{want}
	for _, l := range d.Lines {
		candidates = append(candidates, l.Y+lineClear+s.ascent(), l.Y-lineClear-s.descent())
	}
	for _, b := range candidates {
		if b-s.ascent() >= top && b+s.descent() <= bottom && !d.crossed(b-s.ascent(), b+s.descent()) {
			return b, true
		}
	}
	return 0, false
}

// crossed reports whether a line runs through the band [top, bottom].
func (d *Drawing) crossed(top, bottom float64) bool {
	for _, l := range d.Lines {
		if l.Y > top-lineClear+1e-9 && l.Y < bottom+lineClear-1e-9 {
			return true
		}
	}
	return false
}

// insideLabel fits a label on the column's width. The role stays while it
// can (it is what tells a block apart without its colour), then the major
// badges (a tier, a re-read: what a step is about), cutting the name to
// keep them as long as keepRunes of it remain. The role never goes (a
// block is not told by colour alone), nor is a name cut below
// minNameRunes, nor a full row's at all: such a row goes to the lane.
func (s Style) insideLabel(l Label, full bool) (Inside, bool) {
	major := slices.DeleteFunc(slices.Clone(l.Badges), func(b Badge) bool { return b.Minor })
	tries := []struct {
		badges []Badge
		cut    bool
	}{{l.Badges, false}, {major, false}, {major, true}, {nil, false}, {nil, true}}
	for i, t := range tries {
		// A full row keeps its name whole: where it and the role do not
		// fit, the lane names it ("system · system prompt · 3.0k").
		if full && t.cut {
			continue
		}
		in, ok := s.tryInside(l, t.badges, t.cut)
		last := i == len(tries)-1
		if ok && (!t.cut || last || len([]rune(in.Name.Text)) > keepRunes) {
			return in, true
		}
	}
	return Inside{}, false
}

// tryInside places a label inside its row: its role, then its name (cut
// to fit when cut), with badges before its size on the right.
func (s Style) tryInside(l Label, badges []Badge, cut bool) (Inside, bool) {
	in := Inside{}
	right := s.textEnd()
	if l.Size != "" {
		in.Size = Span{X: right, Text: l.Size}
		right -= TextWidth(l.Size, Mono, s.Small) + gap
	}
	for i := len(badges) - 1; i >= 0; i-- {
		w := TextWidth(badges[i].Text, Mono, s.Small) + 2*s.badgePad()
		right -= w
		in.Badges = append([]BadgeShape{{X: right, W: w, Text: badges[i].Text, Tone: badges[i].Tone}}, in.Badges...)
		right -= 3
	}
	left := s.textX()
	if l.Role != "" {
		in.Role = &Span{X: left, Text: l.Role}
		left += TextWidth(l.Role, Sans, s.Small) + gap
	}
	room := right - gap - left
	name := l.Name
	if TextWidth(name, SansBold, s.Text) > room {
		if !cut {
			return in, false
		}
		name = Fit(name, SansBold, s.Text, room)
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
	s := d.Style
	var out []Span
	y := base + s.excerptStep() + 2
	for _, l := range lines {
		if y+s.descent() > rs.Y+rs.H-3 || y+s.descent() > d.Height+d.Reserve {
			break
		}
		if !d.crossed(y-s.Small*0.8, y+s.descent()) {
			if t := Fit(l, Mono, s.Small, s.textEnd()-s.textX()); t != "" {
				out = append(out, Span{X: s.textX(), Y: y, Text: t})
			}
		}
		y += s.excerptStep()
	}
	return out
}

// laneItem is one label of the lane: a line's, a mark's, or a callout's.
type laneItem struct {
	want, at float64  // desired and placed centre
	fixed    bool     // a line's label stays at the line
	line     int      // index of the line, or -1
	mark     int      // index of the mark, or -1
	rows     []int    // the rows a callout names
	focus    bool     // the step is about its rows: grouped after others
	named    bool     // the narration names its row: grouped only when nothing else is left
	lines    []string // a callout's text, one line or (a named row's) more
}

// size is how many lines of the lane an item takes.
func (it laneItem) size() int { return max(len(it.lines), 1) }

// slots is how many lines of the lane items take.
func slots(items []laneItem) int {
	n := 0
	for _, it := range items {
		n += it.size()
	}
	return n
}

// lane is the column of labels right of the drawing's column: its step
// between labels and the centres a label may take.
type lane struct {
	step   float64
	lo, hi float64
}

// placeLane labels every row that has no inside label, in the lane,
// grouping neighbours when the lane cannot hold one label each.
func (d *Drawing) placeLane(w Window) {
	s := d.Style
	ln := lane{step: s.laneStep()}
	ln.lo, ln.hi = ln.step/2, d.Height+d.Reserve-ln.step/2
	var fixed, free []laneItem
	for i, l := range d.Lines {
		fixed = append(fixed, laneItem{want: l.Y, fixed: true, line: i, mark: -1})
	}
	for i, m := range w.Marks {
		free = append(free, laneItem{want: d.at(m) + ln.step/2, line: -1, mark: i, focus: true, named: true})
	}
	for i, rs := range d.Rows {
		if rs.Inside == nil && rs.Y < d.Height+d.Reserve {
			r := w.Rows[i]
			free = append(free, laneItem{want: rs.Y + rs.H/2, line: -1, mark: -1, rows: []int{i}, focus: r.Focus, named: r.Full,
				lines: s.laneLines(r.Label, r.Full)})
		}
	}
	ln.placeFixed(fixed)
	segs := ln.segments(fixed)
	free = ln.group(free, capacity(segs, ln.step), d.Rows, false)
	ln.placeFree(free, segs)
	// A label far from its row makes a long leader nobody can follow:
	// group more until every label is near its rows.
	for room := slots(free) - 1; room > 0 && farthest(free) > s.maxShift(); room-- {
		n := len(free)
		if free = ln.group(free, room, d.Rows, true); len(free) == n {
			break
		}
		ln.placeFree(free, segs)
	}
	// A label of several lines may find no stretch between two lines'
	// labels tall enough for it: group the unnamed more until no label
	// overlaps.
	for room := slots(free) - 1; room > 0 && ln.crowded(free, fixed); room-- {
		n := len(free)
		if free = ln.group(free, room, d.Rows, true); len(free) == n {
			break
		}
		ln.placeFree(free, segs)
	}
	for _, it := range fixed {
		d.Lines[it.line].Label.Y = it.at + (s.ascent()-s.descent())/2
		d.Lines[it.line].Label.Text = Fit(d.Lines[it.line].Label.Text, Mono, s.Small, s.LaneW())
	}
	for _, it := range free {
		d.addLaneLabel(w, it)
	}
}

func (d *Drawing) addLaneLabel(w Window, it laneItem) {
	s := d.Style
	base := it.at - float64(it.size()-1)*s.laneStep()/2 + (s.ascent()-s.descent())/2
	if it.mark >= 0 {
		m := w.Marks[it.mark]
		d.Marks = append(d.Marks, MarkShape{Y: d.at(m), Kind: m.Kind, Text: Span{X: s.LaneX(), Y: base, Text: Fit(m.Text, SansBold, s.Small, s.LaneW())}})
		return
	}
	first, last := it.rows[0], it.rows[len(it.rows)-1]
	c := Callout{First: first, Last: last, Top: d.Rows[first].Y, Bottom: d.Rows[last].Y + d.Rows[last].H, Group: len(it.rows) > 1}
	c.Anchor = (c.Top + c.Bottom) / 2
	lines := it.lines
	if c.Group {
		lines = []string{""}
		if w.GroupText != nil {
			lines[0] = Fit(w.GroupText(it.rows), Sans, s.Small, s.LaneW())
		}
	}
	c.Text = Span{X: s.LaneX(), Y: base, Text: lines[0]}
	for i, l := range lines[1:] {
		c.More = append(c.More, Span{X: s.LaneX(), Y: base + float64(i+1)*s.laneStep(), Text: l})
	}
	d.Callouts = append(d.Callouts, c)
}

// laneText is a row's label in the lane: its role, name, size and badges,
// as much of it as fits (badges go first, then the role; then the name is
// cut, the size stays). A full row's name is never cut while dropping its
// size can keep it whole.
func (st Style) laneText(l Label, full bool) string {
	f := laneFont(full)
	major := slices.DeleteFunc(slices.Clone(l.Badges), func(b Badge) bool { return b.Minor })
	head := ""
	if l.Role != "" {
		head = l.Role + " · "
	}
	// The role goes before the name is cut: the row's stripe, colour and
	// pattern still say it.
	tries := []struct {
		head   string
		badges []Badge
	}{{head, l.Badges}, {head, major}, {head, nil}, {"", major}, {"", nil}}
	for _, t := range tries {
		parts := []string{t.head + l.Name}
		if l.Size != "" {
			parts = append(parts, l.Size)
		}
		for _, b := range t.badges {
			parts = append(parts, b.Text)
		}
		if s := strings.Join(parts, " · "); TextWidth(s, f, st.Small) <= st.LaneW() {
			return s
		}
	}
	if full && TextWidth(l.Name, f, st.Small) <= st.LaneW() {
		return l.Name
	}
	tail := ""
	if l.Size != "" {
		tail = " · " + l.Size
	}
	return Fit(l.Name, f, st.Small, st.LaneW()-TextWidth(tail, f, st.Small)) + tail
}

// laneFont is the font of a row's label in the lane: bold where the
// narration names the row.
func laneFont(full bool) Font {
	if full {
		return SansBold
	}
	return Sans
}

// laneLines is a row's label in the lane: one line (laneText), or for a
// named row whose name fits no line, up to maxLines, broken after a space
// or a path's separator, the text whole.
func (st Style) laneLines(l Label, full bool) []string {
	one := st.laneText(l, full)
	if !full || strings.Contains(one, l.Name) {
		return []string{one}
	}
	text := l.Name
	if l.Size != "" {
		text += " · " + l.Size
	}
	var lines []string
	for text != "" && len(lines) < maxLines {
		cut := len(text)
		for TextWidth(text[:cut], SansBold, st.Small) > st.LaneW() {
			if cut = lastBreak(text, cut); cut <= 0 {
				return []string{one}
			}
		}
		lines, text = append(lines, text[:cut]), text[cut:]
	}
	if text != "" {
		return []string{one}
	}
	return lines
}

// lastBreak is the last place before end where a line may break: after a
// space or a path's separator, or between two full-width characters; 0
// when there is none.
func lastBreak(text string, end int) int {
	for i := end - 1; i > 0; {
		r, n := utf8.DecodeLastRuneInString(text[:i])
		next, _ := utf8.DecodeRuneInString(text[i:])
		if strings.ContainsRune(" /_-.", r) || wide(r) || wide(next) {
			return i
		}
		i -= n
	}
	return 0
}

// maxLines is the most lines a named row's label takes in the lane.
const maxLines = 4

// placeFixed keeps the lines' labels at their lines, pushed apart where
// two lines are closer than a label.
func (ln lane) placeFixed(items []laneItem) {
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmpFloat(a.want, b.want) })
	for i := range items {
		items[i].at = clamp(items[i].want, ln.lo, ln.hi)
		if i > 0 && items[i].at < items[i-1].at+ln.step {
			items[i].at = items[i-1].at + ln.step
		}
	}
	for i := len(items) - 1; i >= 0; i-- {
		top := ln.hi
		if i+1 < len(items) {
			top = items[i+1].at - ln.step
		}
		items[i].at = min(items[i].at, top)
	}
}

// segment is a free stretch of the lane between fixed labels: the centres
// a label may take.
type segment struct{ a, b float64 }

func (s segment) capacity(step float64) int {
	if s.b < s.a {
		return 0
	}
	return int(math.Floor((s.b-s.a)/step+1e-9)) + 1
}

func (ln lane) segments(fixed []laneItem) []segment {
	var out []segment
	a := ln.lo
	for _, f := range fixed {
		out = append(out, segment{a, f.at - ln.step})
		a = f.at + ln.step
	}
	return append(out, segment{a, ln.hi})
}

func capacity(segs []segment, step float64) int {
	n := 0
	for _, s := range segs {
		n += s.capacity(step)
	}
	return n
}

// group merges neighbouring callouts until the lane holds them all: the
// two smallest neighbours first, a focus row only when no other merge is
// possible, a named one only when nothing else is (never at all with
// keepNamed: the lane only has to hold them), and rows that touch before
// rows that do not.
func (ln lane) group(items []laneItem, room int, rows []RowShape, keepNamed bool) []laneItem {
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmpFloat(a.want, b.want) })
	for slots(items) > room && room > 0 {
		best, bestCost := -1, math.Inf(1)
		for i := 0; i+1 < len(items); i++ {
			a, b := items[i], items[i+1]
			if a.mark >= 0 || b.mark >= 0 {
				continue
			}
			// Crowded neighbours first (their rows are close), small
			// groups before large ones.
			cost := b.want - a.want + ln.step*float64(len(a.rows)+len(b.rows))/2
			if a.focus || b.focus {
				cost += 1e6
			}
			if a.named || b.named {
				cost += 1e9
			}
			if a.rows[len(a.rows)-1]+1 != b.rows[0] {
				cost += 1e3
			}
			if cost < bestCost {
				best, bestCost = i, cost
			}
		}
		if best < 0 || keepNamed && bestCost >= 1e9 {
			break
		}
		a, b := items[best], items[best+1]
		rs := append(slices.Clone(a.rows), b.rows...)
		top, bottom := rows[rs[0]].Y, rows[rs[len(rs)-1]].Y+rows[rs[len(rs)-1]].H
		merged := laneItem{want: (top + bottom) / 2, line: -1, mark: -1, rows: rs, focus: a.focus || b.focus, named: a.named || b.named}
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
func (ln lane) placeFree(items []laneItem, segs []segment) {
	slices.SortStableFunc(items, func(a, b laneItem) int { return cmpFloat(a.want, b.want) })
	in := make([][]int, len(segs))
	for i, it := range items {
		s := ln.nearest(segs, it.want)
		in[s] = append(in[s], i)
	}
	ln.rebalance(items, in, segs)
	for s, idx := range in {
		ln.spread(items, idx, segs[s])
	}
}

func (ln lane) nearest(segs []segment, y float64) int {
	best, dist := 0, math.Inf(1)
	for i, s := range segs {
		if s.capacity(ln.step) == 0 {
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
func (ln lane) rebalance(items []laneItem, in [][]int, segs []segment) {
	for range 8 * (len(segs) + 1) * (len(segs) + 1) {
		moved := false
		for s := range in {
			if slotsOf(items, in[s]) <= segs[s].capacity(ln.step) {
				continue
			}
			switch ln.spareToward(items, in, segs, s) {
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
func (ln lane) spareToward(items []laneItem, in [][]int, segs []segment, s int) int {
	for d := 1; d < len(segs); d++ {
		if s-d >= 0 && slotsOf(items, in[s-d]) < segs[s-d].capacity(ln.step) {
			return -1
		}
		if s+d < len(segs) && slotsOf(items, in[s+d]) < segs[s+d].capacity(ln.step) {
			return 1
		}
	}
	return 0
}

// crowded reports whether two of the lane's labels overlap, the lines'
// labels (fixed) among them.
func (ln lane) crowded(free, fixed []laneItem) bool {
	all := append(slices.Clone(free), fixed...)
	slices.SortStableFunc(all, func(a, b laneItem) int { return cmpFloat(a.at, b.at) })
	for i := 1; i < len(all); i++ {
		if all[i].at-all[i-1].at < float64(all[i].size()+all[i-1].size())*ln.step/2-1e-6 {
			return true
		}
	}
	return false
}

// slotsOf is how many lines of the lane the items idx take.
func slotsOf(items []laneItem, idx []int) int {
	n := 0
	for _, i := range idx {
		n += items[i].size()
	}
	return n
}

// spread places the labels idx (in order of their rows) inside one
// stretch, each as near its row as it can be with none overlapping: runs
// of labels that would overlap are pooled and centred on their rows'
// mean, and a run that meets the one before it is pooled with it. A label
// of two lines takes two of the stretch's places.
func (ln lane) spread(items []laneItem, idx []int, s segment) {
	step := ln.step
	// off[k] is where label k's centre sits below the top of the labels
	// packed tightly from idx[0]; total is their height.
	off := make([]float64, len(idx))
	total := 0.0
	for k, i := range idx {
		h := float64(items[i].size()) * step
		off[k] = total + h/2
		total += h
	}
	top, bottom := s.a-step/2, max(s.b+step/2-total, s.a-step/2)
	type run struct {
		from, to int // idx[from:to]
		sum      float64
		x        float64 // the packed labels' top, for this run
	}
	place := func(r *run) { r.x = clamp(r.sum/float64(r.to-r.from), top, bottom) }
	var runs []run
	for k, i := range idx {
		r := run{from: k, to: k + 1, sum: items[i].want - off[k]}
		place(&r)
		runs = append(runs, r)
		for len(runs) > 1 {
			prev, last := &runs[len(runs)-2], runs[len(runs)-1]
			if prev.x <= last.x+1e-9 {
				break
			}
			prev.to, prev.sum = last.to, prev.sum+last.sum
			place(prev)
			runs = runs[:len(runs)-1]
		}
	}
	for _, r := range runs {
		for k := r.from; k < r.to; k++ {
			items[idx[k]].at = r.x + off[k]
		}
	}
}

// Wrap breaks text into lines no wider than width in font at size, at
// spaces (or anywhere in a word longer than a line); it never cuts text.
func Wrap(text string, f Font, size, width float64) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		try := word
		if line != "" {
			try = line + " " + word
		}
		if TextWidth(try, f, size) <= width || line == "" && TextWidth(word, f, size) <= width {
			line = try
			continue
		}
		if line != "" {
			lines = append(lines, line)
		}
		line = ""
		for _, r := range word { // a word longer than a line, or CJK text without spaces
			// A closing mark (。、）」) never starts a line: it hangs at the
			// end of the one before (kinsoku), in the box's padding.
			if line != "" && !strings.ContainsRune(noLineStart, r) && TextWidth(line+string(r), f, size) > width {
				lines = append(lines, line)
				line = ""
			}
			line += string(r)
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// noLineStart are the marks a Japanese line never starts with.
const noLineStart = "。、，．）」』】〕！？ー・：；"

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
