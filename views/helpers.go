package views

import (
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/a-h/templ"

	"ctxsim/views/draw"
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

// viewBox is the drawing's viewBox: its width, and the box's height with
// the room below it.
func viewBox(w Window) string { return "0 0 " + num(w.Width) + " " + num(w.Height+w.Reserve) }

// leaderPath joins a callout to its rows: a short run out of the column,
// then to the label; a group gets a bracket along its rows first.
func leaderPath(s draw.Style, c draw.Callout) string {
	out := s.ColEnd()
	mid := c.Text.Y - s.Small*0.32
	if c.Group {
		return "M" + num(out+1) + " " + num(c.Top) + "H" + num(out+5) + "V" + num(c.Bottom) + "H" + num(out+1) +
			"M" + num(out+5) + " " + num(c.Anchor) + "L" + num(s.LaneX()-3) + " " + num(mid)
	}
	return "M" + num(out) + " " + num(c.Anchor) + "H" + num(out+5) + "L" + num(s.LaneX()-3) + " " + num(mid)
}

// markPath points a lane mark at its place in the column.
func markPath(s draw.Style, m draw.MarkShape) string {
	return "M" + num(draw.ColX) + " " + num(m.Y) + "H" + num(s.ColEnd()+5) + "L" + num(s.LaneX()-3) + " " + num(m.Text.Y-s.Small*0.32)
}

// bracketPath marks a range on the column's left.
func bracketPath(b Band) string {
	x := draw.ColX - 5
	return "M" + num(x+3) + " " + num(b.Top+1) + "H" + num(x) + "V" + num(b.Bottom-1) + "H" + num(x+3)
}

// badgeTop is the top of a badge's pill on a label whose baseline is y.
func badgeTop(s draw.Style, y float64) string { return num(y - s.Small*0.9) }

// emptyLines is a window's caption when it holds nothing, broken into
// lines that fit the box.
func emptyLines(w Window) []string {
	if w.Empty == "" {
		return nil
	}
	return draw.Wrap(w.Empty, draw.Sans, w.Style.Small, w.Style.ColW-24)
}

// emptyY is the baseline of line i of n lines centred in the box.
func emptyY(w Window, i, n int) string {
	step := w.Style.Small * 1.35
	return num(w.Height/2 + (float64(i)-float64(n-1)/2)*step + w.Style.Small*0.35)
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
var colX = num(draw.ColX)

func colW(s draw.Style) string     { return num(s.ColW) }
func laneX(s draw.Style) string    { return num(s.LaneX()) }
func lineFrom(s draw.Style) string { return num(draw.ColX - 8) }
func lineTo(s draw.Style) string   { return num(s.LaneX() - 5) }
func cacheX(s draw.Style) string   { return num(s.ColEnd() + 1) }
func boxMid(s draw.Style) string   { return num(draw.ColX + s.ColW/2) }

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

// activeModes says the modes in force: each group's label and its active
// option ("Compaction on · Memory on").
func activeModes(groups []ModeGroup) string {
	var parts []string
	for _, g := range groups {
		for _, o := range g.Options {
			if o.Active {
				parts = append(parts, g.Label+" "+o.Label)
			}
		}
	}
	return strings.Join(parts, " · ")
}

// reflow undoes the hard line breaks of a text written for a fixed width
// (a summary), so the page wraps it once: a line joins the one before it
// unless either is blank, it starts a list item, or the one before ends a
// heading (a colon). An indented line continues its list item.
func reflow(text string) string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		n := len(out)
		if n == 0 || t == "" || strings.TrimSpace(out[n-1]) == "" || listItem(t) || strings.HasSuffix(strings.TrimSpace(out[n-1]), ":") {
			out = append(out, strings.TrimRight(line, " \t"))
			continue
		}
		prev := strings.TrimRight(out[n-1], " \t")
		sep := " "
		if r, _ := utf8.DecodeLastRuneInString(prev); r > 0x2e80 {
			if f, _ := utf8.DecodeRuneInString(t); f > 0x2e80 {
				sep = ""
			}
		}
		out[n-1] = prev + sep + t
	}
	return strings.Join(out, "\n")
}

// listItem reports whether a line starts an item of a list ("- ", "* ",
// "• ", "1. ").
func listItem(t string) bool {
	for _, m := range []string{"- ", "* ", "• ", "・"} {
		if strings.HasPrefix(t, m) {
			return true
		}
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

// ChangesShown is how many lines of what changed a page shows at once; the
// others wait behind a disclosure (a pass that rewrites twenty results).
const ChangesShown = 4

func shownChanges(c []string) []string {
	if len(c) <= ChangesShown+1 {
		return c
	}
	return c[:ChangesShown]
}

func moreChanges(c []string) []string {
	if len(c) <= ChangesShown+1 {
		return nil
	}
	return c[ChangesShown:]
}

// calloutLines is a callout's text: its first line, then a tspan for each
// next one, with no space between them (templ would put one there), so
// the text reads as the name it is.
func calloutLines(c draw.Callout) templ.Component {
	var b strings.Builder
	b.WriteString(html.EscapeString(c.Text.Text))
	for _, m := range c.More {
		b.WriteString(`<tspan x="` + num(m.X) + `" y="` + num(m.Y) + `">` + html.EscapeString(m.Text) + `</tspan>`)
	}
	return templ.Raw(b.String())
}

// categoryText is a category bar as text: each part with its size.
func categoryText(c CategoryBar) string {
	parts := make([]string, len(c.Parts))
	for i, p := range c.Parts {
		parts[i] = p.Label + " " + p.Size
	}
	return strings.Join(parts, ", ")
}
