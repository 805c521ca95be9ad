package page

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/views/draw"
)

// BoxHeight is the drawing's height in units, for every lesson: the box
// and the room below it for the lesson's largest overflow. The page scales
// the drawing to the screen, so a lesson's scale is one number at every
// step, in every mode and on both sides of a comparison. Reserves (Runs,
// ReserveFor) are measured against a box of BoxHeight units.
const BoxHeight = 500.0

// boxOf splits the drawing's height between the box and the room below it
// for a lesson whose overflow needs reserve units below a box of BoxHeight.
func boxOf(reserve float64) (box, below float64) {
	box = BoxHeight * BoxHeight / (BoxHeight + reserve)
	return box, BoxHeight - box
}

// excerptLines is how many lines of a block's text a tall block may show.
const excerptLines = 40

// row is one drawn row: a tool call with its result, or a lone block (the
// system prompt, the task, a call whose result was dropped).
type row struct {
	call, main *sim.Block
	tokens     int
}

// rowsOf is how a lesson draws a frame: one row per block, or (pairs) a
// call and its result as one row.
func rowsOf(l *scenarios.Lesson, blocks []sim.Block) []row {
	var rows []row
	for i := 0; i < len(blocks); i++ {
		b := &blocks[i]
		if l.Draw == scenarios.DrawPairs && b.Kind == sim.KindToolCall && i+1 < len(blocks) &&
			blocks[i+1].Role == sim.RoleTool && blocks[i+1].ToolUseID == b.ToolUseID {
			rows = append(rows, row{call: b, main: &blocks[i+1], tokens: b.Tokens + blocks[i+1].Tokens})
			i++
			continue
		}
		rows = append(rows, row{main: b, tokens: b.Tokens})
	}
	return rows
}

// reserveOf is the room a frame needs below the box: its overflow, in
// drawing units.
func reserveOf(l *scenarios.Lesson, f sim.Frame) float64 {
	return max(float64(f.Total-l.Window), 0) * BoxHeight / float64(l.Window)
}

// ReserveFor rounds a lesson's largest overflow up to a multiple of 5% of
// the box, at most 30% (a larger overflow is cut at the drawing's edge):
// the room below the box, which boxOf takes from the drawing's height.
func ReserveFor(units float64) float64 {
	if units <= 0 {
		return 0
	}
	pct := math.Ceil((units+12)/BoxHeight*100/5) * 5
	return min(pct, 30) * BoxHeight / 100
}

// drawWindow lays out a frame's rows, lines and marks, and turns them into
// the view's rows and labels.
func (b *Builder) drawWindow(v *frameView, w *views.Window, rows []row) {
	f, l := v.f, v.l
	box, below := boxOf(b.runs.Reserve(l.ID))
	in := draw.Window{Tokens: l.Window, Height: box, Reserve: below, GroupText: func(rs []int) string {
		return groupText(v, rows, rs)
	}}
	named := b.namedIn(v)
	labels := map[string]int{}
	for _, rv := range w.Rows {
		labels[rv.Label]++
	}
	for i := range rows {
		dr := b.drawRow(v, rows[i], w.Rows[i])
		// A name several rows share (six edits of one file) names the
		// ones the step is about.
		dr.Full = named(rows[i], w.Rows[i]) && (labels[w.Rows[i].Label] == 1 || dr.Focus) ||
			w.Rows[i].New // what the step brings is read whole too (a status bar's "(3/3)")
		w.Rows[i].Named = dr.Full
		in.Rows = append(in.Rows, dr)
	}
	if f.Line.Key != "" {
		in.Lines = append(in.Lines, draw.Line{Tokens: f.Line.Tokens, Label: w.ThresholdLabel, Kind: "threshold"})
	}
	// The box is the lesson's largest window; a smaller limit (a policy's
	// window size) is a line inside it, drawn always; the box's own limit
	// only when the request passes it.
	if limit := v.run.Window; limit < l.Window || f.Total > limit {
		in.Lines = append(in.Lines, draw.Line{Tokens: limit, Label: v.ui.F("ui.limit-line", map[string]string{"limit": limitOf(l.Lesson, limit)}), Kind: "limit"})
	}
	for _, pl := range payloads {
		if pl.marks != nil {
			in.Marks = append(in.Marks, pl.marks(v)...)
		}
	}
	ghost, left := v.ghost()
	if left != "" {
		in.Marks = append(in.Marks, draw.Mark{Tokens: (ghost[0] + ghost[1]) / 2, Text: left, Kind: "ghost", Past: true})
	}
	d := draw.Lay(in, v.style)
	w.Style, w.Width, w.Height, w.Reserve, w.Scale, w.Tokens = v.style, v.style.Width, d.Height, d.Reserve, d.Scale, l.Window
	for i, rs := range d.Rows {
		placeRow(&w.Rows[i], rs)
	}
	w.Lines, w.Callouts, w.Marks, w.Clipped = d.Lines, d.Callouts, d.Marks, d.Clipped
	for i := range w.Callouts {
		if len(w.Callouts[i].More) == 0 { // a line broken at a space keeps it
			w.Callouts[i].Text.Text = strings.TrimSpace(w.Callouts[i].Text.Text)
		}
	}
	if top := d.Scale * float64(v.run.Window); d.Stack > top {
		w.Overflow = &views.Band{Top: top, Bottom: min(d.Stack, d.Height+d.Reserve)}
	}
	if ghost[1] > ghost[0] {
		w.Ghost = &views.Band{Top: float64(ghost[0]) * d.Scale, Bottom: min(float64(ghost[1])*d.Scale, d.Height+d.Reserve)}
	}
	w.Bracket, w.Cached = bands(w.Rows)
	if f.Kind == sim.FrameCrossed && len(d.Lines) > 0 && d.Lines[0].Kind == "threshold" && d.Stack > d.Lines[0].Y {
		w.Crossing = true
		w.Excess = &views.Band{Top: d.Lines[0].Y, Bottom: min(d.Stack, d.Height)}
	}
}

// ghost is what left the window since the step before: the stretch, in
// tokens, from the new stack's bottom to where the old one ended (empty
// when the stack did not shrink), and a lane label naming what left ("" when
// nothing did).
func (v *frameView) ghost() ([2]int, string) {
	if v.i == 0 || v.second { // a second window comes and goes with what it shows
		return [2]int{}, ""
	}
	prev, f := &v.frames[v.i-1], v.f
	in := make(map[string]bool, f.BlockCount())
	f.EachBlock(func(b *sim.Block) bool { in[b.ID] = true; return true })
	var gone []sim.Block
	tokens := 0
	prev.EachBlock(func(b *sim.Block) bool {
		if !in[b.ID] {
			gone = append(gone, *b)
			tokens += b.Tokens
		}
		return true
	})
	if len(gone) == 0 {
		return [2]int{}, ""
	}
	band := [2]int{f.Total, max(prev.Total, f.Total)}
	if len(in) == 0 {
		band = [2]int{0, prev.Total}
	}
	args := map[string]string{"size": sizeOf(v.l.Lesson, tokens), "n": itoa(len(gone))}
	if len(gone) == 1 {
		args["label"] = v.label(&gone[0])
		return band, v.ui.F("ui.ghost-one", args)
	}
	return band, v.ui.F("ui.ghost", args)
}

// namedIn returns whether a row is one the step's headline or "what
// changed" (the lines shown) names: by its label, a block's label or id,
// or the file its call names. Such a row's name is drawn whole, never
// grouped.
func (b *Builder) namedIn(v *frameView) func(row, views.RowView) bool {
	said := []string{b.headlineOf(v)}
	changes := v.changes()
	if len(changes) > views.ChangesShown+1 {
		changes = changes[:views.ChangesShown] // the rest waits behind a disclosure
	}
	said = append(said, changes...)
	return func(r row, rv views.RowView) bool {
		names := append([]string{rv.Label}, fileOf(rv.Label))
		for _, blk := range []*sim.Block{r.call, r.main} {
			if blk != nil {
				names = append(names, blk.ID, v.label(blk), fileOf(v.label(blk)))
			}
		}
		for _, n := range names {
			for _, s := range said {
				if mentions(s, n) {
					return true
				}
			}
		}
		return false
	}
}

// fileOf is the file a tool call's label names ("session.go" of
// "file_read internal/session.go"), or "".
func fileOf(label string) string {
	_, arg, ok := strings.Cut(label, " ")
	if !ok || strings.Contains(arg, " ") || !strings.ContainsAny(arg, "./") {
		return ""
	}
	return arg[strings.LastIndex(arg, "/")+1:]
}

// mentions reports whether text names name as a word of its own (not as
// part of a longer word); names shorter than three characters never count.
func mentions(text, name string) bool {
	if len([]rune(name)) < 3 {
		return false
	}
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if !wordRune(lastRune(text[:i])) && !wordRune(firstRune(text[end:])) {
			return true
		}
		from = i + 1
	}
}

func wordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' }

func lastRune(s string) rune {
	r, _ := utf8.DecodeLastRuneInString(s)
	if s == "" {
		return 0
	}
	return r
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	if s == "" {
		return 0
	}
	return r
}

// groupText names rows labelled together: how many, of which kind when
// they share one ("3 × stub · 0.3k"), and their size.
func groupText(v *frameView, rows []row, rs []int) string {
	n, kind := 0, string(rows[rs[0]].main.Kind)
	for _, i := range rs {
		n += rows[i].tokens
		if string(rows[i].main.Kind) != kind {
			kind = ""
		}
	}
	args := map[string]string{"n": itoa(len(rs)), "size": sizeOf(v.l.Lesson, n)}
	if kind != "" {
		args["kind"] = v.ui.T("kind." + kind)
		return v.ui.F("ui.group-kind", args)
	}
	return v.ui.F("ui.group", args)
}

// drawRow is what package draw needs of a row: its blocks and label.
func (b *Builder) drawRow(v *frameView, r row, rv views.RowView) draw.Row {
	dr := draw.Row{Label: draw.Label{Role: rv.RoleLabel, Name: rv.Label, Size: rv.Size}}
	for _, b := range []*sim.Block{r.call, r.main} {
		if b != nil {
			dr.Blocks = append(dr.Blocks, draw.Block{ID: b.ID, Tokens: b.Tokens})
			dr.Focus = dr.Focus || b.New || b.Selected || b.Spotlight || b.FirstChanged || (v.f.Decisive && b.Touched)
		}
	}
	for _, bd := range rv.Badges {
		dr.Label.Badges = append(dr.Label.Badges, draw.Badge{Text: bd.Text, Tone: bd.Tone, Minor: bd.Minor})
	}
	dr.Excerpt = excerptOf(r.main.Content) // a result's text, under its call
	return dr
}

// excerptOf is the first lines of a text worth showing on a tall block.
func excerptOf(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if line = strings.TrimRight(line, " \t\r\n"); strings.TrimSpace(line) != "" {
			out = append(out, strings.ReplaceAll(line, "\t", "  "))
		}
		if len(out) == excerptLines {
			break
		}
	}
	return out
}

// placeRow copies a row's geometry into its view.
func placeRow(rv *views.RowView, rs draw.RowShape) {
	rv.Y, rv.H, rv.Inside, rv.Excerpt = rs.Y, rs.H, rs.Inside, rs.Excerpt
	for i, b := range rs.Blocks {
		rv.Blocks[i].Y, rv.Blocks[i].H = b.Y, b.H
	}
}

// bands are the extent of the selected range and of the cached prefix.
func bands(rows []views.RowView) (selected, cached *views.Band) {
	for _, r := range rows {
		for _, b := range r.Blocks {
			if b.Selected {
				if selected == nil {
					selected = &views.Band{Top: b.Y}
				}
				selected.Bottom = b.Y + b.H
			}
			if b.Cached {
				if cached == nil {
					cached = &views.Band{Top: b.Y}
				}
				cached.Bottom = b.Y + b.H
			}
		}
	}
	return selected, cached
}

// drawsPair reports whether some kept run of l draws a second window beside
// the first (a sub-agent's): every view of such a lesson sizes its box for
// two windows side by side.
func (b *Builder) drawsPair(l *scenarios.Lesson) bool {
	if v, ok := b.pairs.Load(l); ok {
		return v.(bool)
	}
	pair := false
	for _, p := range l.PresetPolicies() {
		if r, ok := b.runs.Kept(l, p); ok && slices.ContainsFunc(r.Frames, func(f sim.Frame) bool { return f.Second != nil }) {
			pair = true
			break
		}
	}
	b.pairs.Store(l, pair)
	return pair
}
