package web

import (
	"fmt"
	"math"
	"testing"
)

// drawing is what the geometry tests measure of one page, in CSS pixels.
type drawing struct {
	InnerW, InnerH float64
	ScrollW        float64 `json:"scrollW"`
	BarTop         float64 `json:"barTop"`
	Panes          []pane  `json:"panes"`
	Clipped        []string
}

// pane is one window drawing: its box, blocks, lines and texts.
type pane struct {
	ID         string      `json:"id"`
	Window     int         `json:"window"`
	Box        box         `json:"box"`
	SVG        box         `json:"svg"`
	Blocks     []drawnRow  `json:"blocks"`
	Lines      []drawnLine `json:"lines"`
	Texts      []drawnTxt  `json:"texts"`
	StackBotom float64     `json:"stackBottom"`
}

type box struct{ Left, Top, Right, Bottom float64 }

type drawnRow struct {
	ID     string  `json:"id"`
	Tokens int     `json:"tokens"`
	Top    float64 `json:"top"`
	Height float64 `json:"height"`
}

type drawnLine struct{ Y, Left, Right float64 }

type drawnTxt struct {
	Text   string `json:"text"`
	Inside bool   `json:"inside"` // drawn on a block (must stay inside the column)
	box
}

// drawingJS measures every window drawing of the page, and every element
// that clips its text.
const drawingJS = `(() => {
  const r = el => { const b = el.getBoundingClientRect(); return {Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom}; };
  const panes = [...document.querySelectorAll("svg.win")].map(svg => {
    const blocks = [...svg.querySelectorAll("[data-testid=block]")].map(b => {
      const x = b.getBoundingClientRect();
      return {id: b.dataset.id, tokens: +b.dataset.tokens, top: x.top, height: x.height};
    });
    const last = blocks.length ? blocks[blocks.length - 1] : null;
    return {
      id: svg.dataset.testid, window: +svg.dataset.window, box: r(svg.querySelector(".box")), svg: r(svg),
      blocks: blocks,
      lines: [...svg.querySelectorAll("line.ln")].map(l => { const b = l.getBoundingClientRect(); return {Y: b.top + b.height / 2, Left: b.left, Right: b.right}; }),
      texts: [...svg.querySelectorAll("text")].filter(t => t.textContent.trim() !== "").map(t => Object.assign(
        {text: t.textContent.trim(), inside: !!t.closest(".row")}, r(t))),
      stackBottom: last ? last.top + last.height : 0,
    };
  });
  const clipped = [...document.querySelectorAll("#app *")].filter(el => {
    if (el.closest("svg") || el.closest(".sheet") || el.closest("[hidden]") || el.closest(".sr")) return false;
    const s = getComputedStyle(el);
    if (s.display === "none" || s.visibility === "hidden") return false;
    const clips = ["hidden", "clip"].includes(s.overflowX) || s.textOverflow === "ellipsis";
    return clips && el.scrollWidth > el.clientWidth + 1;
  }).map(el => el.className + ": " + el.textContent.trim().slice(0, 40));
  const bar = document.querySelector(".stepbar");
  return {InnerW: innerWidth, InnerH: innerHeight, scrollW: document.documentElement.scrollWidth,
    barTop: bar ? bar.getBoundingClientRect().top : innerHeight, panes: panes, Clipped: clipped};
})()`

func (b *chromeTab) drawing() drawing {
	b.t.Helper()
	return mustEval[drawing](b, drawingJS)
}

// checkPane asserts what every drawing keeps: blocks exactly tokens ×
// scale tall and stacked without gaps, inside labels inside the column,
// no label crossed by a line, no two labels overlapping, and the stack
// above the step bar.
func checkPane(t *testing.T, where string, p pane, barTop float64) {
	t.Helper()
	boxH := p.Box.Bottom - p.Box.Top
	if p.Window <= 0 || boxH <= 0 {
		t.Fatalf("%s %s: window %d tokens drawn %.1f px tall", where, p.ID, p.Window, boxH)
	}
	scale := boxH / float64(p.Window)
	for i, bl := range p.Blocks {
		if want := float64(bl.Tokens) * scale; math.Abs(bl.Height-want) > 1 {
			t.Errorf("%s %s: block %s (%d tokens) is %.2f px tall; want %.2f ± 1 px", where, p.ID, bl.ID, bl.Tokens, bl.Height, want)
		}
		if i == 0 && math.Abs(bl.Top-p.Box.Top) > 1 {
			t.Errorf("%s %s: the stack starts %.2f px below the box top", where, p.ID, bl.Top-p.Box.Top)
		}
		if i > 0 {
			prev := p.Blocks[i-1]
			if gap := bl.Top - (prev.Top + prev.Height); math.Abs(gap) > 1 {
				t.Errorf("%s %s: %.2f px between blocks %s and %s", where, p.ID, gap, prev.ID, bl.ID)
			}
		}
	}
	for i, tx := range p.Texts {
		if tx.Inside && (tx.Left < p.Box.Left-0.5 || tx.Right > p.Box.Right+0.5) {
			t.Errorf("%s %s: label %q (%.1f–%.1f) runs out of the column (%.1f–%.1f)", where, p.ID, tx.Text, tx.Left, tx.Right, p.Box.Left, p.Box.Right)
		}
		if tx.Right > p.SVG.Right+1 {
			t.Errorf("%s %s: label %q ends at %.1f, past the drawing (%.1f)", where, p.ID, tx.Text, tx.Right, p.SVG.Right)
		}
		for _, l := range p.Lines {
			if l.Y > tx.Top+0.5 && l.Y < tx.Bottom-0.5 && tx.Right > l.Left && tx.Left < l.Right {
				t.Errorf("%s %s: a line at %.1f px crosses label %q (%.1f–%.1f)", where, p.ID, l.Y, tx.Text, tx.Top, tx.Bottom)
			}
		}
		for _, o := range p.Texts[:i] {
			w := math.Min(tx.Right, o.Right) - math.Max(tx.Left, o.Left)
			h := math.Min(tx.Bottom, o.Bottom) - math.Max(tx.Top, o.Top)
			if w > 1 && h > 1.5 {
				t.Errorf("%s %s: labels %q and %q overlap (%.1f × %.1f px)", where, p.ID, o.Text, tx.Text, w, h)
			}
		}
	}
	if bottom := math.Max(p.Box.Bottom, p.StackBotom); bottom > barTop+1 {
		t.Errorf("%s %s: the drawing ends at %.1f px, under the step bar (%.1f px)", where, p.ID, bottom, barTop)
	}
}

// TestBrowserFold: at 1440×900 what a step points to is on screen without
// scrolling: the summary's text on the summary step, the cost panel of the
// status lesson, the memory file when it changes, and the lesson's title.
func TestBrowserFold(t *testing.T) {
	b := browser(t, 1440, 900, true)
	visible := func(sel string) string {
		return fmt.Sprintf(`(() => { const e = document.querySelector(%s); if (!e) return "missing";
			const r = e.getBoundingClientRect(), bar = document.querySelector(".stepbar").getBoundingClientRect().top;
			return r.top >= 0 && r.top + 40 <= bar && r.height > 0 ? "yes" : "at " + r.top + " (bar " + bar + ")"; })()`, jsQuote(sel))
	}
	for _, c := range []struct{ path, sel string }{
		{cmURL("en", cmPolicy, 7), tid("summary-text")},
		{cmURL("en", cmPolicy, 8), tid("summary-text")},
		{cmURL("en", cmPolicy, 3), tid("memory-new-line")},
		{"/en/status-bar/status-append.counter-off.clock-off.alpha-10/8", tid("cost-panel")},
		{cmURL("en", cmPolicy, 1), tid("lesson-title")},
		{cmURL("en", cmPolicy, 1) + "/present", tid("lesson-title")},
	} {
		b.open(c.path)
		if got := mustEval[string](b, visible(c.sel)); got != "yes" {
			t.Errorf("%s: %s is not on screen: %s", c.path, c.sel, got)
		}
	}
}
