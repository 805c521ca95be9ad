package page

import (
	"math"
	"strings"

	"ctxsim/draw"
	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// BoxHeight is the window's height in drawing units, for every lesson: the
// page scales the drawing to the screen, so a lesson's scale is one number
// at every step and on both sides of a comparison.
const BoxHeight = 500.0

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

// ReserveFor rounds a lesson's largest overflow up to one of the room
// classes the stylesheet has (reserve-N: N% of the box below it).
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
	in := draw.Window{Tokens: l.Window, Height: BoxHeight, Reserve: b.runs.Reserve(l.ID), GroupText: func(rs []int) string {
		return groupText(v, rows, rs)
	}}
	for i := range rows {
		in.Rows = append(in.Rows, b.drawRow(v, rows[i], w.Rows[i]))
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
	d := draw.Lay(in)
	w.Width, w.Height, w.Reserve, w.Scale, w.Tokens = draw.Width, d.Height, d.Reserve, d.Scale, l.Window
	w.ReserveClass = "reserve-" + itoa(int(math.Round(d.Reserve/BoxHeight*100)))
	for i, rs := range d.Rows {
		placeRow(&w.Rows[i], rs)
	}
	w.Lines, w.Callouts, w.Marks, w.Clipped = d.Lines, d.Callouts, d.Marks, d.Clipped
	for i := range w.Callouts {
		w.Callouts[i].Text.Text = strings.TrimSpace(w.Callouts[i].Text.Text)
	}
	if top := d.Scale * float64(v.run.Window); d.Stack > top {
		w.Overflow = &views.Band{Top: top, Bottom: min(d.Stack, d.Height+d.Reserve)}
	}
	w.Bracket, w.Cached = bands(w.Rows)
	if f.Kind == sim.FrameCrossed && len(d.Lines) > 0 && d.Lines[0].Kind == "threshold" && d.Stack > d.Lines[0].Y {
		w.Crossing = true
		w.Excess = &views.Band{Top: d.Lines[0].Y, Bottom: min(d.Stack, d.Height)}
	}
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
