package views

import (
	"math"
	"strconv"
	"strings"

	"ctxsim/draw"
)

func itoa(i int) string { return strconv.Itoa(i) }

func errorTitle(ui UI, status int) string {
	if k := "ui.error." + strconv.Itoa(status); ui.Has(k) {
		return ui.T(k)
	}
	return ui.T("ui.error.500")
}

// blockState lists a block's states for the text alternative.
func blockState(ui UI, b BlockView) string {
	var parts []string
	if b.New {
		parts = append(parts, ui.T("ui.state-new"))
	}
	if b.Selected {
		parts = append(parts, ui.T("ui.state-selected"))
	}
	if b.Touched {
		parts = append(parts, ui.T("ui.state-touched"))
	}
	if b.Cached {
		parts = append(parts, ui.T("ui.state-cached"))
	}
	if b.FirstChanged {
		parts = append(parts, ui.T("ui.state-first-changed"))
	}
	for _, bd := range b.Badges {
		parts = append(parts, bd.Text)
	}
	return strings.Join(parts, ", ")
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// A window's pane is named by its prefix: "" the request's window, "second-"
// a sub-agent's beside it, "a-" and "b-" the sides of a comparison. Test
// ids carry the prefix; the page script reads the pane's name.

// secondPane is the prefix of a second window's test ids.
const secondPane = "second-"

// paneName names a window's pane for the page script (data-pane on the
// drawing, data-meter on its meter): it animates each pane's blocks from
// where they were in the pane of the same name.
func paneName(prefix string) string {
	if prefix == "" {
		return "main"
	}
	return strings.TrimSuffix(prefix, "-")
}

// blockTestID is the test hook of a window's blocks: "block" (a contract)
// in the request's window and on each side of a comparison, "second-block"
// in a second window.
func blockTestID(prefix string) string {
	if prefix == secondPane {
		return "second-block"
	}
	return "block"
}

// modeSide tells the two mode bars of a comparison apart for screen readers.
func modeSide(prefix string) string {
	switch prefix {
	case "a-":
		return " (A)"
	case "b-":
		return " (B)"
	}
	return ""
}

// num writes a drawing coordinate: at most two decimals, no trailing zeros.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
}

// viewBox is the drawing's viewBox: the lane's width and the box's height.
func viewBox(w Window) string { return "0 0 " + num(w.Width) + " " + num(w.Height) }

// leaderPath joins a callout to its rows: a short run out of the column,
// then to the label; a group gets a bracket along its rows first.
func leaderPath(c draw.Callout) string {
	out := draw.ColX + draw.ColW
	mid := c.Text.Y - 3.5
	if c.Group {
		return "M" + num(out+1) + " " + num(c.Top) + "H" + num(out+5) + "V" + num(c.Bottom) + "H" + num(out+1) +
			"M" + num(out+5) + " " + num(c.Anchor) + "L" + num(draw.LaneX-3) + " " + num(mid)
	}
	return "M" + num(out) + " " + num(c.Anchor) + "H" + num(out+5) + "L" + num(draw.LaneX-3) + " " + num(mid)
}

// markPath points a lane mark at its place in the column.
func markPath(m draw.MarkShape) string {
	return "M" + num(draw.ColX) + " " + num(m.Y) + "H" + num(draw.ColX+draw.ColW+5) + "L" + num(draw.LaneX-3) + " " + num(m.Text.Y-3.5)
}

// bracketPath marks a range on the column's left.
func bracketPath(b Band) string {
	x := draw.ColX - 5
	return "M" + num(x+3) + " " + num(b.Top+1) + "H" + num(x) + "V" + num(b.Bottom-1) + "H" + num(x+3)
}

// rowClass is a row's classes: its role and kind, and its states.
func rowClass(r RowView) string {
	c := "row role-" + r.Role + " kind-" + r.Kind
	for _, s := range []struct {
		on   bool
		name string
	}{{r.New, "is-new"}, {r.Selected, "is-selected"}, {r.Touched, "is-touched"}, {r.Summary, "is-spot"}, {r.FirstChanged, "is-first-changed"}, {r.Cached, "is-cached"}, {r.Stale, "is-stale"}} {
		if s.on {
			c += " " + s.name
		}
	}
	return c
}

// Geometry of package draw, for the templates.
var (
	colX     = num(draw.ColX)
	colW     = num(draw.ColW)
	laneX    = num(draw.LaneX)
	lineFrom = num(draw.ColX - 8)
	lineTo   = num(draw.LaneX - 5)
	cacheX   = num(draw.ColX + draw.ColW + 1)
	boxMid   = num(draw.ColX + draw.ColW/2)
)

// windowName is a window's title where a page draws two, else "window".
func windowName(ui UI, w Window) string {
	if w.Title != "" {
		return w.Title
	}
	return ui.T("ui.window")
}

// tableName names a window's text alternative.
func tableName(ui UI, w Window) string {
	if w.Title != "" {
		return ui.F("ui.blocks-table-named", map[string]string{"name": w.Title})
	}
	return ui.T("ui.blocks-table")
}

// categoryText is a category bar as text: each part with its size.
func categoryText(c CategoryBar) string {
	parts := make([]string, len(c.Parts))
	for i, p := range c.Parts {
		parts[i] = p.Label + " " + p.Size
	}
	return strings.Join(parts, ", ")
}
