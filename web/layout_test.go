package web

import (
	"html"
	"io"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"ctxsim/scenarios"
	"ctxsim/web/internal/testlessons"
	"ctxsim/web/page"
)

// The layout of every lesson's decisive steps and its last, at a laptop
// (1440×900, the lesson view), a projector (1280×720, the presenter view
// and the presenter's comparison) and a phone (390×844), measured in the
// test binary's one Chromium: the window is the largest thing on the
// screen and readable there, the step's headline and the blocks it names
// can be found, and nothing hides under a bar or runs off its box.

// viewport is a screen the layout is measured at, with what must hold
// there.
type viewport struct {
	name         string
	w, h         int
	views        []string // "" the lesson view, "/present", compare, "cmp/present"
	minText      float64  // px: the smallest text of the window
	minBoxShare  float64  // of the screen's width: the window (per side of a comparison)
	firstScreen  bool     // headline, what changed and the window on screen without scrolling
	touch        bool     // every control at least 44×44 px
	windowOnFold bool     // the whole window above the step bar
}

var layoutViewports = []viewport{
	{name: "laptop", w: 1440, h: 900, views: []string{"", "cmp"}, minText: 12, firstScreen: true, windowOnFold: true},
	{name: "projector", w: 1280, h: 720, views: []string{"/present", "cmp/present"}, minText: 14, minBoxShare: 0.4, windowOnFold: true},
	{name: "phone", w: 390, h: 844, views: []string{"", "cmp"}, minText: 11, touch: true},
}

// layout is what one page shows, measured in CSS pixels.
type layout struct {
	drawing
	ScrollH     float64    `json:"scrollH"`
	StageBottom float64    `json:"stageBottom"`
	Headline    box        `json:"headline"`
	Changes     *box       `json:"changes"`
	Meter       box        `json:"meter"`
	Next        *box       `json:"next"`
	MinText     float64    `json:"minText"`
	MinTextOf   string     `json:"minTextOf"`
	Boxes       []box      `json:"boxes"` // the .box of each drawing
	Named       []namedRow `json:"named"`
	Overflows   []string   `json:"overflows"`
	Small       []string   `json:"small"`
	Flush       []string   `json:"flush"`
}

// namedRow is a row the headline or what changed names, and what the
// drawing calls it.
type namedRow struct {
	Row   string `json:"row"`
	Name  string `json:"name"`
	Drawn string `json:"drawn"`
	Group bool   `json:"group"`
}

// layoutJS measures a page: the drawings (drawingJS), the smallest text of
// the windows, the rows the narration names and their labels, text that
// runs out of its box or the screen, controls smaller than a finger, and
// controls whose focus ring the screen's edge would cut.
const layoutJS = `(() => {
  const r = el => { const b = el.getBoundingClientRect(); return {Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom}; };
  const d = ` + drawingJS + `;
  const out = Object.assign({}, d);
  out.scrollH = document.documentElement.scrollHeight;
  const stage = document.querySelector(".stage, .compare-stage, .present-stage");
  out.stageBottom = stage ? stage.getBoundingClientRect().bottom : 0;
  const hl = document.querySelector("[data-testid=narration-headline]") || document.querySelector("[data-testid=compare-delta]");
  out.headline = hl ? r(hl) : {Left: 0, Top: 0, Right: 0, Bottom: 0};
  const ch = document.querySelector("[data-testid=changes]");
  out.changes = ch ? r(ch) : null;
  const m = document.querySelector("[data-meter]");
  out.meter = m ? r(m) : {Left: 0, Top: 0, Right: 0, Bottom: 0};
  const nx = document.querySelector("[data-testid=step-next]");
  out.next = nx ? r(nx) : null;
  out.boxes = [...document.querySelectorAll("svg.win")].map(s => r(s.querySelector(".box")));
  // the smallest text of the windows, in screen pixels
  out.minText = 1e9; out.minTextOf = "";
  for (const t of document.querySelectorAll("svg.win text")) {
    if (!t.textContent.trim() || !t.getClientRects().length) continue;
    const px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
    if (px < out.minText) { out.minText = px; out.minTextOf = t.textContent.trim().slice(0, 40); }
  }
  // rows the headline or what changed names: by the row's label, the file
  // its label names, or a block's id; each must carry its own label, whole
  // what the narration says: in a comparison, each side's headline; else
  // the headline and the lines of what changed shown
  const saidIn = svg => {
    const pane = svg.closest("[data-testid$=pane]");
    const sel = pane && pane.querySelector(".compare-headline") ? ".compare-headline" : "[data-testid=narration-headline], [data-testid=changes] li";
    return [...(pane && pane.querySelector(".compare-headline") ? pane : document).querySelectorAll(sel)]
      .filter(e => e.checkVisibility() && !e.classList.contains("changes-more")).map(e => e.textContent);
  };
  const word = c => /[\p{L}\p{N}_]/u.test(c || "");
  const mentions = (text, name) => {
    if ([...name].length < 3) return false;
    for (let i = text.indexOf(name); i >= 0; i = text.indexOf(name, i + 1)) {
      if (!word(text[i - 1]) && !word(text[i + name.length])) return true;
    }
    return false;
  };
  const fileOf = l => { const i = l.indexOf(" "); if (i < 0) return ""; const a = l.slice(i + 1);
    return (a.includes(" ") || !/[./]/.test(a)) ? "" : a.slice(a.lastIndexOf("/") + 1); };
  // A name several rows share names those the step is about (new,
  // selected, the summary, the first the cache recomputes, or rewritten at
  // a decisive step).
  const decisive = document.getElementById("app").dataset.decisive === "true";
  const about = row => ["is-new", "is-selected", "is-spot", "is-first-changed"].some(c => row.classList.contains(c)) ||
    decisive && row.classList.contains("is-touched");
  out.named = [];
  for (const svg of document.querySelectorAll("svg.win")) {
    const said = saidIn(svg);
    const rows = [...svg.querySelectorAll("a.row")];
    const count = n => rows.filter(r => r.dataset.name === n).length;
    for (const row of rows) {
      const name = row.dataset.name || "";
      const ids = [...row.querySelectorAll("[data-block]")].map(b => b.dataset.id);
      const names = [name, fileOf(name), ...ids];
      if (!names.some(n => n && said.some(s => mentions(s, n)))) continue;
      if (count(name) > 1 && !about(row)) continue;
      const own = svg.querySelector('text[data-for="' + CSS.escape(row.dataset.row) + '"]');
      const grouped = [...svg.querySelectorAll(".co-group")].length > 0 && !own;
      out.named.push({row: row.dataset.row, name: name, drawn: own ? own.textContent : "", group: grouped});
    }
  }
  // text that runs out of its element or off the screen's sides
  out.overflows = [];
  const walker = document.createTreeWalker(document.getElementById("app"), NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.textContent.trim()) continue;
    const el = n.parentElement;
    if (!el || !el.checkVisibility() || el.closest(".sheet, .sr, [hidden], .keys-help, .skip")) continue;
    range.selectNodeContents(n);
    const rects = [...range.getClientRects()].filter(x => x.width > 0 && x.height > 0);
    if (!rects.length) continue;
    const inSVG = el.closest("svg");
    const host = inSVG ? inSVG : el;
    const hb = host.getBoundingClientRect();
    for (const x of rects) {
      if (x.left < -0.5 || x.right > innerWidth + 0.5) { out.overflows.push("off the screen: " + n.textContent.trim().slice(0, 50)); break; }
      if (!inSVG && getComputedStyle(el).display !== "inline" && (x.left < hb.left - 1 || x.right > hb.right + 1)) {
        out.overflows.push("out of <" + el.tagName.toLowerCase() + " class=" + el.className + ">: " + n.textContent.trim().slice(0, 50)); break;
      }
      if (inSVG && (x.left < hb.left - 1 || x.right > hb.right + 1)) { out.overflows.push("out of the drawing: " + n.textContent.trim().slice(0, 50)); break; }
    }
  }
  // controls: at least 44×44 px (phone), and their focus ring (3 px, 2 px
  // away) inside the screen
  out.small = []; out.flush = [];
  for (const c of document.querySelectorAll("#app a[href], #app button, #app summary, #app input, #app select")) {
    if (!c.checkVisibility() || c.closest("svg, .sheet, [hidden], .prose, .sr, .skip, .keys-help, .panel-body, .about-sec")) continue;
    const b = c.getBoundingClientRect();
    if (!b.width || !b.height || getComputedStyle(c).visibility === "hidden") continue;
    const what = (c.dataset.testid || c.dataset.control || c.dataset.action || c.tagName) + " " + c.textContent.trim().slice(0, 20);
    if (b.width < 43.5 || b.height < 43.5) out.small.push(what + " " + Math.round(b.width) + "×" + Math.round(b.height));
    if (b.left < 5 - 0.5 || b.right > innerWidth - 5 + 0.5) out.flush.push(what + " at " + Math.round(b.left) + "–" + Math.round(b.right));
  }
  return out;
})()`

// layoutPage is one page the layout test measures.
type layoutPage struct {
	lesson, path, view string
	step               int
}

// TestBrowserLayout: every lesson's decisive steps and its last, at each
// viewport in each of its views, in one Chromium. Viewports that show the
// same views (the laptop and the phone) share a tab: each page is loaded
// once and measured at one size, then the other (only the CSS reads the
// width: app.js reads no size), which halves their loads.
func TestBrowserLayout(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	s := newTestServer(t)
	ts := startHTTP(t, s)
	b0, err := testlessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, vps := range viewportsByViews(layoutViewports) {
		tab := openTab(t, ts.URL, vps[0].w, vps[0].h, true, 20*time.Minute)
		pages := layoutPages(t, s, ts.URL, b0.Lessons, vps[0])
		wg.Add(1)
		go func() {
			defer wg.Done()
			checkLayouts(t, tab, vps, pages)
		}()
	}
	wg.Wait()
	t.Logf("layout of every lesson at %d viewports in %s", len(layoutViewports), time.Since(start).Round(time.Millisecond))
}

// viewportsByViews groups the viewports that show the same views, in
// order.
func viewportsByViews(vps []viewport) [][]viewport {
	var out [][]viewport
	for _, vp := range vps {
		i := slices.IndexFunc(out, func(g []viewport) bool { return slices.Equal(g[0].views, vp.views) })
		if i < 0 {
			out = append(out, []viewport{vp})
		} else {
			out[i] = append(out[i], vp)
		}
	}
	return out
}

// layoutPages are the pages measured at vp: each lesson's decisive steps and
// its last, under its default policy, in vp's views; a comparison sets the
// default against the first other quick mode at the same step.
func layoutPages(t *testing.T, s *Server, base string, lessons []*scenarios.Lesson, vp viewport) []layoutPage {
	t.Helper()
	var out []layoutPage
	for _, l := range lessons {
		def := l.DefaultPolicy()
		r, err := s.runs.Run(l, def)
		if err != nil {
			t.Fatal(err)
		}
		quick := page.QuickPolicies(l.Lesson)
		var steps []int
		for i, f := range r.Frames {
			if f.Decisive || i == len(r.Frames)-1 {
				steps = append(steps, i+1)
			}
		}
		for _, v := range vp.views {
			for _, n := range steps {
				st := page.State{Lang: "en", Lesson: l.ID, Policy: def, Step: n}
				path := page.LessonURL(st)
				if present, ok := strings.CutPrefix(v, "cmp"); ok {
					if len(quick) < 2 {
						continue
					}
					// the comparison the page offers at this step
					path = compareLink(t, base, path) + present
				} else {
					path += v
				}
				out = append(out, layoutPage{lesson: l.ID, path: path, view: v, step: n})
			}
		}
	}
	return out
}

// checkLayouts measures pages in tab at each of vps (which show the same
// views), resizing the tab between them, and checks what must hold at
// each. A page is measured first at the size the tab has, so each page
// costs one load and one resize.
func checkLayouts(t *testing.T, tab *chromeTab, vps []viewport, pages []layoutPage) {
	type key struct{ vp, lesson, family string }
	boxH := map[key]float64{}
	nextAt := map[key]box{}
	at := 0 // the viewport the tab is at
	for _, pg := range pages {
		tab.open(pg.path)
		family := "lesson"
		if strings.HasSuffix(pg.view, "present") {
			family = "present"
		}
		for k := range vps {
			if k > 0 {
				at = (at + 1) % len(vps)
				tab.do("set viewport", chromedp.EmulateViewport(int64(vps[at].w), int64(vps[at].h)))
			}
			vp := vps[at]
			l, err := evalIn[layout](tab, layoutJS)
			if err != nil {
				t.Errorf("%s %s: measure: %v", vp.name, pg.path, err)
				continue
			}
			where := vp.name + " " + pg.path
			checkLayout(t, where, vp, pg, l)
			k := key{vp.name, pg.lesson, family}
			for _, b := range l.Boxes {
				h := b.Bottom - b.Top
				if h0, ok := boxH[k]; !ok {
					boxH[k] = h
				} else if math.Abs(h-h0) > 0.5 {
					t.Errorf("%s: the box is %.1f px tall; elsewhere in %s's %s views %.1f px", where, h, pg.lesson, family, h0)
				}
			}
			if l.Next != nil {
				nk := key{vp.name, pg.lesson, pg.view}
				if n0, ok := nextAt[nk]; !ok {
					nextAt[nk] = *l.Next
				} else if math.Abs(n0.Left-l.Next.Left) > 0.5 || math.Abs(n0.Top-l.Next.Top) > 0.5 {
					t.Errorf("%s: the Next button is at %.1f,%.1f; on another step of this view at %.1f,%.1f", where, l.Next.Left, l.Next.Top, n0.Left, n0.Top)
				}
			}
		}
	}
}

// checkLayout checks one page.
func checkLayout(t *testing.T, where string, vp viewport, pg layoutPage, l layout) {
	t.Helper()
	if len(l.Panes) == 0 {
		t.Errorf("%s: no window", where)
		return
	}
	for _, p := range l.Panes {
		bar := l.BarTop
		if !vp.windowOnFold {
			bar = math.Inf(1) // a phone stacks what does not fit, in a stage that scrolls
		}
		checkPane(t, where, p, bar)
	}
	if l.MinText < vp.minText-0.05 {
		t.Errorf("%s: window text %.1f px (%q); want at least %.0f px", where, l.MinText, l.MinTextOf, vp.minText)
	}
	if vp.minBoxShare > 0 {
		for _, p := range l.Panes {
			if w := p.SVG.Right - p.SVG.Left; w < vp.minBoxShare*l.InnerW {
				t.Errorf("%s: the window %s is %.0f px wide, %.0f%% of the screen; want at least %.0f%%", where, p.ID, w, 100*w/l.InnerW, 100*vp.minBoxShare)
			}
		}
	}
	if len(l.Boxes) == 2 && strings.Contains(pg.path, "/vs/") && math.Abs(l.Boxes[0].Top-l.Boxes[1].Top) > 0.5 && vp.windowOnFold {
		t.Errorf("%s: the sides' boxes start at %.1f and %.1f px", where, l.Boxes[0].Top, l.Boxes[1].Top)
	}
	for _, p := range l.Panes {
		if vp.windowOnFold && (p.SVG.Bottom > l.BarTop+0.5 || p.SVG.Top < 0) {
			t.Errorf("%s: the window %s spans %.0f–%.0f px, not all above the step bar at %.0f px", where, p.ID, p.SVG.Top, p.SVG.Bottom, l.BarTop)
		}
	}
	// The page never scrolls as a whole: its stage scrolls between the bars,
	// so nothing is ever under the step bar.
	if l.ScrollH > l.InnerH+0.5 || l.StageBottom > l.BarTop+0.5 {
		t.Errorf("%s: the page is %.0f px tall in %.0f, its stage ends at %.0f, the step bar starts at %.0f", where, l.ScrollH, l.InnerH, l.StageBottom, l.BarTop)
	}
	if l.ScrollW > l.InnerW+0.5 {
		t.Errorf("%s: the page scrolls sideways (%.0f px wide in %.0f)", where, l.ScrollW, l.InnerW)
	}
	if vp.firstScreen && pg.view == "" {
		if l.Headline.Top < 0 || l.Headline.Bottom > l.BarTop {
			t.Errorf("%s: the headline (%.0f–%.0f) is not on the first screen (step bar at %.0f)", where, l.Headline.Top, l.Headline.Bottom, l.BarTop)
		}
		if l.Changes != nil && (l.Changes.Top < 0 || l.Changes.Bottom > l.BarTop) {
			t.Errorf("%s: what changed (%.0f–%.0f) is not on the first screen (step bar at %.0f)", where, l.Changes.Top, l.Changes.Bottom, l.BarTop)
		}
	}
	if vp.touch && pg.view == "" {
		p := l.Panes[0]
		if l.Headline.Top < 0 || l.Headline.Bottom > l.BarTop || l.Meter.Bottom > l.BarTop || p.SVG.Top > l.BarTop-100 {
			t.Errorf("%s: the headline (%.0f–%.0f), the meter (to %.0f) and the window (from %.0f) are not on the first screen (step bar at %.0f)",
				where, l.Headline.Top, l.Headline.Bottom, l.Meter.Bottom, p.SVG.Top, l.BarTop)
		}
	}
	for _, n := range l.Named {
		if n.Drawn == "" || !strings.Contains(n.Drawn, n.Name) {
			t.Errorf("%s: the narration names row %s %q, drawn as %q (grouped: %v)", where, n.Row, n.Name, n.Drawn, n.Group)
		}
	}
	if len(l.Overflows) > 0 {
		t.Errorf("%s: text out of its box: %q", where, l.Overflows)
	}
	if len(l.Clipped) > 0 {
		t.Errorf("%s: text clipped in %q", where, l.Clipped)
	}
	if vp.touch && len(l.Small) > 0 {
		t.Errorf("%s: controls smaller than 44×44 px: %q", where, l.Small)
	}
	if len(l.Flush) > 0 {
		t.Errorf("%s: controls whose focus ring the screen's edge cuts: %q", where, l.Flush)
	}
}

// compareLink is the comparison a lesson page offers (its compare toggle).
func compareLink(t *testing.T, base, path string) string {
	t.Helper()
	res, err := http.Get(base + path)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	m := regexp.MustCompile(`href="([^"]+)"[^>]*data-testid="compare-toggle"`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("%s offers no comparison", path)
	}
	return html.UnescapeString(string(m[1]))
}

// TestBrowserMeter: with motion on, the meter counts from the old total to
// the new one and shows nothing else on the way: every value it shows lies
// between the two (never past the window's size, never negative) and moves
// one way. The steps are the compaction (47.9k → 27.2k), the session's end
// (28.6k → 0.0k) and the next session's start (0.0k → 4.1k), each taken
// with Space, which steps in the lesson view.
//
// The page's animation frames get a steady clock (meterClockJS): each
// frame is a sixtieth of a second after the one before, however late the
// browser draws it, so a busy machine sees the same count as an idle one
// (it once drew two frames of it at load 23, and the test could not tell
// a count from a jump).
func TestBrowserMeter(t *testing.T) {
	b := browser(t, 1440, 900, true)
	cdpCall(b, "motion", emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "no-preference"}}})
	for _, step := range []int{8, 12, 13} {
		b.open(cmURL("en", cmPolicy, step-1))
		b.waitStep(step-1, cmSteps)
		mustEval[bool](b, meterClockJS)
		b.key(" ")
		b.waitStep(step, cmSteps)
		b.waitMeter(cmMeters[step-1])
		seen := mustEval[[]string](b, `window.__meter`)
		from, to := parseMeter(t, cmMeters[step-2]), parseMeter(t, cmMeters[step-1])
		lo, hi := min(from, to), max(from, to)
		prev := from
		for _, s := range seen {
			v := parseMeter(t, s)
			if strings.HasPrefix(s, "-") || v < lo-1e-9 || v > hi+1e-9 || v > cmWindow {
				t.Errorf("step %d: the meter showed %q, outside %s … %s", step, s, cmMeters[step-2], cmMeters[step-1])
			}
			if (to-from)*(v-prev) < 0 {
				t.Errorf("step %d: the meter went back, from %.0f to %q (%s → %s)", step, prev, s, cmMeters[step-2], cmMeters[step-1])
			}
			prev = v
		}
		// window.__meter holds each text once, as it changed.
		if len(seen) == 0 || seen[len(seen)-1] != cmMeters[step-1] {
			t.Errorf("step %d: the meter showed %q; want a count ending at %q", step, seen, cmMeters[step-1])
		}
		if len(seen) < 5 {
			t.Errorf("step %d: the meter did not count (%q): motion is off, so this test proves nothing", step, seen)
		}
	}
}

// meterClockJS gives the page's animation frames a steady clock, a
// sixtieth of a second a frame drawn, and records in window.__meter every
// text the meter shows, each time it changes (the meter is a new element
// after each swap).
const meterClockJS = `(() => {
  const raf = window.requestAnimationFrame.bind(window);
  let real = -1, steady = 0;
  window.requestAnimationFrame = cb => raf(now => {
    if (now !== real) { steady = real < 0 ? now : steady + 1000 / 60; real = now; }
    cb(steady);
  });
  window.__meter = [];
  let last = "";
  new MutationObserver(() => {
    const m = document.querySelector("[data-testid=meter]");
    if (m && m.textContent !== last) { last = m.textContent; window.__meter.push(last); }
  }).observe(document.body, {subtree: true, childList: true, characterData: true});
  return true;
})()`

// parseMeter reads a meter's text ("47.9k / 50k") as tokens.
func parseMeter(t *testing.T, s string) float64 {
	t.Helper()
	v, _, ok := strings.Cut(s, "k / ")
	f, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil {
		t.Fatalf("meter %q is not \"N.Nk / Wk\"", s)
	}
	return f * 1000
}
