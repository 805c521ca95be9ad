package web

// Accessibility audit in a real browser: axe-core (vendored from npm,
// testdata/axe.min.js, MPL-2.0) runs inside chromium on every kind of page
// and must report no serious or critical WCAG 2 A/AA violation. axe does
// not judge the contrast of SVG text, so the drawing's labels get their own
// pass (svgContrastJS). A few requirements axe cannot see (text
// alternative of the window, live narration, visible focus, reduced
// motion, roles not told by colour alone) are checked by hand below.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"ctxsim/sim"
	"ctxsim/web/page"
)

// a11yTimeout bounds the whole audit: two minutes, and ten seconds for
// each page it loads and scans once. A bound, not the expected time: 233
// pages took 712 s one at a time at load 15-20 on two cores (3 s a page),
// and the heaviest pages (a handout of a recorded session) took 55 s at
// load 21 with another test binary beside them.
func a11yTimeout(pages int) time.Duration { return 2*time.Minute + time.Duration(pages)*10*time.Second }

// axeViolation is what the audit keeps of one axe-core violation.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Count   int      `json:"count"`
	Targets []string `json:"targets"`
	Summary string   `json:"summary"`
}

// axeRunJS runs axe-core on the document with the WCAG 2 A and AA rules and
// resolves to the violations, each with its first three targets.
const axeRunJS = `axe.run(document, {
  runOnly: {type: "tag", values: ["wcag2a", "wcag2aa"]},
  resultTypes: ["violations"],
}).then(r => r.violations.map(v => ({
  id: v.id, impact: v.impact || "", help: v.help, count: v.nodes.length,
  targets: v.nodes.slice(0, 3).map(n => n.target.join(" ")),
  summary: ((v.nodes[0] || {}).failureSummary || "").replace(/\s+/g, " ").slice(0, 300),
})))`

// svgContrastJS checks the contrast of the drawing's labels, which axe
// does not judge (it reads HTML text): every text of a window drawing
// against what is drawn behind it: its row's block (a hatched fill counts
// as its darker stripe) for a label on a row, the page for a label in the
// lane. It returns the labels under 4.5:1 (all are under 18 px).
const svgContrastJS = `(() => {
  const parse = s => { const m = (s.match(/[\d.]+/g) || [255, 255, 255]).map(Number); return {r: m[0], g: m[1], b: m[2], a: m.length > 3 ? m[3] : 1}; };
  const over = (f, b) => ({r: f.r*f.a + b.r*(1-f.a), g: f.g*f.a + b.g*(1-f.a), b: f.b*f.a + b.b*(1-f.a), a: 1});
  const lum = c => { const l = v => { v /= 255; return v <= 0.03928 ? v/12.92 : Math.pow((v+0.055)/1.055, 2.4); }; return 0.2126*l(c.r) + 0.7152*l(c.g) + 0.0722*l(c.b); };
  const ratio = (x, y) => { const a = lum(x), b = lum(y); return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05); };
  const page = el => { for (let e = el; e; e = e.parentElement) { const c = parse(getComputedStyle(e).backgroundColor); if (c.a > 0 && !(e instanceof SVGElement)) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const hatchLn = document.querySelector(".hatch-ln"); // absent where no block is hatched
  const hatch = hatchLn ? getComputedStyle(hatchLn).stroke : "rgb(0, 0, 0)";
  const bad = [];
  for (const t of document.querySelectorAll("svg.win text")) {
    if (!t.textContent.trim()) continue;
    const bg0 = page(t.closest("svg"));
    let bg = bg0;
    const row = t.closest(".row");
    if (row) {
      const rect = [...row.querySelectorAll("[data-testid=block]")].find(r => { const b = r.getBoundingClientRect(), x = t.getBoundingClientRect(); return b.top <= x.top + x.height / 2 && b.bottom >= x.top + x.height / 2; }) || row.querySelector("[data-testid=block]");
      // A row may draw its fill with no block hook (what the file does not
      // hold); a row of a group may draw none: its label is on the page.
      const fill = rect || row.querySelector("rect");
      if (fill) {
        const f = getComputedStyle(fill).fill;
        bg = f.startsWith("url") ? over(parse(hatch), bg0) : over(parse(f), bg0);
      }
    }
    const r = ratio(over(parse(getComputedStyle(t).fill), bg), bg);
    if (r < 4.5) bad.push({id: "svg-text-contrast", impact: "serious", help: "labels of the drawing have 4.5:1 contrast", count: 1,
      targets: [t.textContent.trim().slice(0, 40)], summary: "ratio " + r.toFixed(2) + " (" + getComputedStyle(t).fill + " on rgb(" + [bg.r, bg.g, bg.b].map(Math.round) + "))"});
  }
  return bad;
})()`

// readAxe loads the vendored axe-core.
func readAxe(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile("testdata/axe.min.js")
	if err != nil {
		t.Fatalf("axe-core is vendored at web/testdata/axe.min.js (npm pack axe-core@4): %v", err)
	}
	if !strings.Contains(string(src[:min(len(src), 200)]), "axe v4") {
		t.Fatalf("web/testdata/axe.min.js does not start with the axe v4 header")
	}
	return string(src)
}

// longTab is b with a longer deadline for the whole audit (the browser's
// own life is bound to the context browser() started it with).
func longTab(b *chromeTab, d time.Duration) *chromeTab {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(b.ctx), d)
	b.t.Cleanup(cancel)
	return &chromeTab{t: b.t, ctx: ctx, base: b.base}
}

// axe injects axe-core into the current document (DevTools evaluation is
// not subject to the page's CSP) and runs it.
func (b *chromeTab) axe(src string) []axeViolation {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, a11yLoad)
	defer cancel()
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe === "object"`))
	if err != nil {
		b.t.Fatalf("look for axe-core on %s: %v", b.path(), err)
	}
	if !loaded {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](src)); err != nil {
			b.t.Fatalf("inject axe-core: %v", err)
		}
	}
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](axeRunJS, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe.run on %s: %v", b.path(), err)
	}
	// The drawing's labels, which axe does not judge (see svgContrastJS).
	w, err := chromedp.Run(ctx, chromedp.Evaluate[[]axeViolation](svgContrastJS))
	if err != nil {
		b.t.Fatalf("contrast of the drawing on %s: %v", b.path(), err)
	}
	return append(v, w...)
}

// a11yPage is one page of the audit: a path, and optionally a script that
// puts the page into a state worth checking (a dialog open, say).
type a11yPage struct {
	name  string
	path  string
	setup string // a script run after the load
	wait  string // a selector that shows the page is ready (rooms: filled in by room.js)
}

// a11yPolicies are the modes of a lesson the audit visits: every
// combination of the offered values of its switches, fine parameters (a
// summary version, a price) left at their default.
func a11yPolicies(l *sim.Lesson) []sim.Policy {
	def := l.DefaultPolicy()
	var out []sim.Policy
	for _, p := range l.PresetPolicies() {
		same := true
		for _, pr := range l.Params() {
			same = same && (!pr.Fine || p.Get(pr.Name) == def.Get(pr.Name))
		}
		if same {
			out = append(out, p)
		}
	}
	return out
}

// a11yFrameFeatures are what a frame puts on a page that an audit should
// see at least once: its kind, a refusal, a pending summary, a later
// session, each typed payload (cache, memory, spend, second window, the
// provider's count, categories by name), a line, an alert, panels and
// counters, and each block role, kind and state (each has its own fill,
// against which the drawing's labels are checked).
func a11yFrameFeatures(f sim.Frame) []string {
	out := []string{"kind:" + string(f.Kind)}
	add := func(ok bool, name string) {
		if ok {
			out = append(out, name)
		}
	}
	add(f.Error != "", "error")
	add(f.Pending != nil, "pending")
	add(f.Session > 1, "later-session")
	add(f.Cache != nil, "cache")
	add(f.Memory != nil, "memory")
	add(f.Spend != nil, "spend")
	add(f.Second != nil, "second-window")
	add(f.Provider != nil, "provider")
	add(f.Line.Key != "", "line")
	add(f.Alert, "alert")
	add(len(f.Panels) > 0, "panels")
	add(len(f.Counters) > 0, "counters")
	for _, c := range f.Categories {
		out = append(out, "category:"+c.Name)
	}
	blocks := f.Blocks()
	if f.Second != nil {
		blocks = append(blocks[:len(blocks):len(blocks)], f.Second.Blocks...)
	}
	for _, bl := range blocks {
		out = append(out, "role:"+string(bl.Role), "block:"+string(bl.Kind))
		add(bl.New, "state:new")
		add(bl.Selected, "state:selected")
		add(bl.Touched, "state:touched")
		add(bl.Spotlight, "state:spotlight")
		add(bl.Cached, "state:cached")
		add(bl.FirstChanged, "state:first-changed")
		add(len(bl.Badges) > 0, "state:badges")
	}
	return out
}

// a11yPayloadFeatures are the features of a11yFrameFeatures that put a
// box, panel or line of its own on a page (a kind, a refusal, a typed
// payload), leaving out the fills of blocks and categories: what a
// language or a handout changes is the text in those boxes, not their
// colours.
func a11yPayloadFeatures(feats []string) []string {
	var out []string
	for _, f := range feats {
		if !strings.HasPrefix(f, "category:") && !strings.HasPrefix(f, "role:") && !strings.HasPrefix(f, "block:") && !strings.HasPrefix(f, "state:") {
			out = append(out, f)
		}
	}
	return out
}

// payloadOnly is cands with their features cut to a11yPayloadFeatures.
func payloadOnly(cands []a11yCandidate) []a11yCandidate {
	out := make([]a11yCandidate, len(cands))
	for i, c := range cands {
		out[i] = a11yCandidate{c.st, a11yPayloadFeatures(c.feats)}
	}
	return out
}

// a11yCandidate is a page the audit may visit, with the features it shows.
type a11yCandidate struct {
	st    page.State
	feats []string
}

// a11yCover picks candidates greedily, each covering the most features no
// pick before it covered (the first such in order on a tie), until every
// feature some candidate shows is covered: a page of each state family,
// not every state.
func a11yCover(cands []a11yCandidate) []a11yCandidate {
	covered := map[string]bool{}
	var out []a11yCandidate
	for {
		best, gain := -1, 0
		for i, c := range cands {
			n, seen := 0, map[string]bool{}
			for _, f := range c.feats {
				if !covered[f] && !seen[f] {
					seen[f] = true
					n++
				}
			}
			if n > gain {
				best, gain = i, n
			}
		}
		if best < 0 {
			return out
		}
		for _, f := range cands[best].feats {
			covered[f] = true
		}
		out = append(out, cands[best])
	}
}

// lessonIDs reads the lesson ids from the API, as a client would.
func lessonIDs(t *testing.T, base string) []string {
	t.Helper()
	var ls []lessonJSON
	getJSON(t, base+"/api/lessons", &ls)
	if len(ls) < 2 {
		t.Fatalf("/api/lessons lists %d lessons, want at least context-memory and status-bar", len(ls))
	}
	ids := make([]string, len(ls))
	for i, l := range ls {
		ids[i] = l.ID
	}
	return ids
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	res, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s: %s", u, res.Status, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
}

// a11yPages lists every page of the audit. Every lesson is audited at
// least once; beyond that, lesson pages, presenter views, Japanese pages,
// handouts and comparisons are each chosen to cover what frames show (see
// a11yFrameFeatures) over every lesson, every combination of its switches
// and every step, with as few pages as a greedy cover finds; the fixed
// pages after them are states no frame tells (dialogs open, a room).
func a11yPages(t *testing.T, s *Server, base string) []a11yPage {
	t.Helper()
	pages := []a11yPage{
		{name: "index", path: "/"},
		{name: "index ja", path: "/ja/"},
		{name: "404", path: "/en/no-such-lesson/x/1", wait: `[data-testid=error][data-status="404"]`},
		{name: "400", path: cmURL("en", cmPolicy, 99), wait: `[data-testid=error][data-status="400"]`},
	}
	var steps, runs, compares []a11yCandidate
	for _, id := range lessonIDs(t, base) {
		l, ok := s.lib().byID[id]
		if !ok {
			t.Fatalf("/api/lessons lists %q, unknown to the server", id)
		}
		def := l.DefaultPolicy()
		var union []string
		for _, p := range a11yPolicies(l.Lesson) {
			r, err := s.runs.Run(l, p)
			if err != nil {
				t.Fatalf("%s: run %s: %v", id, p.String(), err)
			}
			for i, f := range r.Frames {
				feats := a11yFrameFeatures(f)
				steps = append(steps, a11yCandidate{page.State{Lesson: id, Policy: p, Step: i + 1}, feats})
				if p == def {
					union = append(union, feats...)
				}
			}
		}
		runs = append(runs, a11yCandidate{page.State{Lesson: id, Policy: def}, union})
		// The comparison against the second quick mode (the first switch
		// flipped), at its middle.
		if q := page.QuickPolicies(l.Lesson); len(q) > 1 {
			n, err := s.pages.Positions(l, page.State{Policy: def, Compare: &q[1]})
			if err != nil {
				t.Fatalf("%s: compare %s: %v", id, q[1], err)
			}
			compares = append(compares, a11yCandidate{page.State{Lesson: id, Policy: def, Compare: &q[1], Step: (n + 1) / 2}, union})
		}
	}
	// Lesson pages: each lesson at least once, and every feature.
	lessonSteps := make([]a11yCandidate, len(steps))
	for i, c := range steps {
		lessonSteps[i] = a11yCandidate{c.st, append([]string{"lesson:" + c.st.Lesson}, c.feats...)}
	}
	for _, c := range a11yCover(lessonSteps) {
		c.st.Lang = "en"
		pages = append(pages, a11yPage{name: c.st.Lesson + " lesson", path: page.LessonURL(c.st)})
	}
	for _, c := range a11yCover(steps) {
		c.st.Lang, c.st.View = "en", page.ViewPresent
		pages = append(pages, a11yPage{name: c.st.Lesson + " presenter", path: page.LessonURL(c.st)})
	}
	// Japanese: longer and other words in the same frames; a page per
	// frame kind and typed payload is enough to meet each of its texts'
	// boxes (the words themselves are checked in web/page words_test).
	for _, c := range a11yCover(payloadOnly(steps)) {
		c.st.Lang = "ja"
		pages = append(pages, a11yPage{name: c.st.Lesson + " lesson ja", path: page.LessonURL(c.st)})
	}
	// Handouts (every step of a run on one page, the heaviest pages) and
	// comparisons: a page per kind and typed payload.
	for _, c := range a11yCover(payloadOnly(runs)) {
		c.st.Lang = "en"
		pages = append(pages, a11yPage{name: c.st.Lesson + " handout", path: page.HandoutURL(c.st)})
	}
	for _, c := range a11yCover(payloadOnly(compares)) {
		c.st.Lang = "en"
		pages = append(pages, a11yPage{name: c.st.Lesson + " compare", path: page.LessonURL(c.st)})
	}
	cmCompare := "/en/context-memory/" + cmPolicy + "/vs/" + cmOverflow
	pages = append(pages,
		// the compaction frame and the refusal in a comparison, on screen and projected
		a11yPage{name: "compare compaction", path: cmCompare + "/8"},
		a11yPage{name: "compare refusal", path: cmCompare + "/12"},
		a11yPage{name: "compare presenter", path: cmCompare + "/12/present"},
		a11yPage{name: "compare ja", path: "/ja/context-memory/" + cmPolicy + "/vs/" + cmOverflow + "/8"},
		a11yPage{name: "presenter overflow", path: cmURL("en", cmOverflow, 8) + "/present"},
		a11yPage{name: "notes", path: cmURL("en", cmPolicy, 5) + "/notes"},
		a11yPage{name: "notes ja", path: cmURL("ja", cmPolicy, 5) + "/notes"},
		a11yPage{name: "handout ja", path: "/ja/context-memory/" + cmPolicy + "/handout"},
		// dialogs and disclosures open: keys help, blocks table, about, a block's sheet
		a11yPage{name: "lesson, keys help and tables open", path: cmURL("en", cmPolicy, 8), setup: `
			document.getElementById("keys-help").hidden = false;
			document.querySelectorAll("details").forEach(d => d.open = true);
			true`},
		a11yPage{name: "lesson, block sheet open", path: cmURL("en", cmPolicy, 4) + "#sheet-m-file"},
		a11yPage{name: "presenter, keys help open", path: cmURL("en", cmPolicy, 8) + "/present", setup: `
			document.getElementById("keys-help").hidden = false; true`},
		a11yPage{name: "compare, policies open", path: cmCompare + "/8", setup: `
			document.querySelectorAll("details").forEach(d => d.open = true); true`},
		// the presenter's room: the code and the join address in the top bar
		a11yPage{name: "presenter, room open", path: cmURL("en", cmPolicy, 8) + "/present", setup: `
			document.querySelector("[data-testid=room-open]")?.click(); true`, wait: tid("room-code")},
	)
	return pages
}

// joinPage creates a room showing a lesson state (POST /rooms, JSON
// {"state": …} → {"code", "key", "join_url", "state"}) and returns the path
// of its join view.
func joinPage(t *testing.T, base string) string {
	t.Helper()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	body, _ := json.Marshal(map[string]string{"state": cmURL("en", cmPolicy, 8) + "/present"})
	req, _ := http.NewRequest(http.MethodPost, base+"/rooms", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", base)
	res, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST /rooms: %v", err)
	}
	defer res.Body.Close()
	got, _ := io.ReadAll(res.Body)
	if res.StatusCode >= 400 {
		t.Fatalf("POST /rooms: %s: %.300s", res.Status, got)
	}
	var room struct {
		Code    string `json:"code"`
		JoinURL string `json:"join_url"`
	}
	if err := json.Unmarshal(got, &room); err != nil || !regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(room.Code) {
		t.Fatalf("POST /rooms: %s, no room code in %.300s (%v)", res.Status, got, err)
	}
	if room.JoinURL != "" && !strings.HasSuffix(room.JoinURL, "/join/"+room.Code) {
		t.Errorf("POST /rooms: join_url %q does not end in /join/%s", room.JoinURL, room.Code)
	}
	return "/join/" + room.Code
}

// a11yTabs is how many tabs of the one browser audit pages at once (each
// page's subtest runs in parallel, up to go test's -parallel, GOMAXPROCS
// by default): axe keeps a renderer busy, so more tabs than cores only
// queue.
const a11yTabs = 2

// a11yLoad bounds one page's load and one axe run in the audit: longer
// than browserWait, as a loaded two-core machine (load 30-40) took 79 s to
// audit the heaviest page (a handout) with another tab auditing beside it.
const a11yLoad = 2 * time.Minute

func TestBrowserA11y(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	src := readAxe(t)
	tab := browser(t, 1440, 900, true)
	s := newTestServer(t)
	pages := dedupePages(a11yPages(t, s, tab.base))
	pages = append(pages, a11yPage{name: "join", path: joinPage(t, tab.base), wait: tid("room-status")})
	b := longTab(tab, a11yTimeout(len(pages)))
	b.t.Logf("%d pages to audit, within %s", len(pages), a11yTimeout(len(pages)))

	// The tabs: the browser's first, and more of the same browser.
	tabs := make(chan *chromeTab, a11yTabs)
	tabs <- b
	for range a11yTabs - 1 {
		tabs <- newTab(t, b, 1440, 900)
	}
	start := time.Now()
	var mu sync.Mutex
	minor := map[string]int{}
	t.Run("pages", func(t *testing.T) {
		for _, pg := range pages {
			t.Run(pg.name, func(t *testing.T) {
				t.Parallel()
				tb := <-tabs
				defer func() { tabs <- tb }()
				for _, v := range auditPage(tb.on(t), src, pg) {
					if v.Impact != "serious" && v.Impact != "critical" {
						mu.Lock()
						minor[v.ID+" ("+v.Impact+")"]++
						mu.Unlock()
						continue
					}
					t.Errorf("%s: [%s] %s: %s (%d nodes; first: %s) %s",
						pg.path, v.Impact, v.ID, v.Help, v.Count, strings.Join(v.Targets, " | "), v.Summary)
				}
			})
		}
	})
	t.Logf("axe-core on %d pages in %s, %d tabs", len(pages), time.Since(start).Round(time.Millisecond), a11yTabs)
	if len(minor) > 0 {
		t.Logf("moderate or minor violations (not failing): %v", minor)
	}

	t.Run("text alternative", func(t *testing.T) { checkBlocksTable(t, b) })
	t.Run("focus visible", func(t *testing.T) { checkFocusVisible(t, b) })
	t.Run("reduced motion", func(t *testing.T) { checkReducedMotion(t, b) })
}

// dedupePages drops a page whose path was listed before with no setup of
// its own (a greedy pick may land on a fixed page).
func dedupePages(pages []a11yPage) []a11yPage {
	seen := map[string]bool{}
	var out []a11yPage
	for _, pg := range pages {
		k := pg.path + "\x00" + pg.setup + "\x00" + pg.wait
		if !seen[k] {
			seen[k] = true
			out = append(out, pg)
		}
	}
	return out
}

// newTab opens another tab of b's browser, width×height, living as long
// as b's context.
func newTab(t *testing.T, b *chromeTab, width, height int) *chromeTab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.ctx)
	t.Cleanup(cancel)
	// The first run opens the tab and binds its life to ctx.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	nb := &chromeTab{t: t, ctx: ctx, base: b.base}
	nb.do("set viewport", chromedp.EmulateViewport(int64(width), int64(height)))
	return nb
}

// auditPage loads pg in b, puts it in its state, and returns what axe and
// the drawing's contrast pass find there.
func auditPage(b *chromeTab, src string, pg a11yPage) []axeViolation {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, a11yLoad)
	defer cancel()
	// The tab is shared with later pages: a room joined or opened here
	// (kept in sessionStorage) would make its next page follow the room.
	defer evalIn[bool](b, `(sessionStorage.clear(), true)`)
	// Through a blank page: the tab's last page (a room joined, a dialog
	// open) cannot answer for this one.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(b.base+pg.path)); err != nil {
		b.t.Fatalf("open %s: %v", pg.path, err)
	}
	if pg.setup != "" {
		mustEval[bool](b, pg.setup)
	}
	if pg.wait != "" {
		ready := fmt.Sprintf(`document.querySelector(%s) !== null`, jsQuote(pg.wait))
		for {
			if ok, err := evalIn[bool](b, ready); err == nil && ok {
				break
			}
			if ctx.Err() != nil {
				b.t.Fatalf("%s %s: no %s after %s", pg.name, pg.path, pg.wait, a11yLoad)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return b.axe(src)
}

// checkBlocksTable: the window has a table of its blocks (role, kind,
// tokens, state) reachable by keyboard and screen reader; the narration is
// a live region; roles are told by a visible label, not colour alone.
func checkBlocksTable(t *testing.T, b0 *chromeTab) {
	b := b0.on(t)
	b.open(cmURL("en", cmPolicy, 8))
	b.waitStep(8, cmSteps)
	if got := mustEval[string](b, `document.getElementById("narration")?.getAttribute("aria-live") ?? "<no #narration>"`); got != "polite" && got != "assertive" {
		t.Errorf("#narration aria-live = %q, want polite or assertive", got)
	}
	type table struct {
		Headers []string   `json:"headers"`
		Rows    [][]string `json:"rows"`
		Blocks  []string   `json:"blocks"`
		Roles   []string   `json:"roles"`
	}
	tb := mustEval[table](b, `(() => {
		const t = document.querySelector("[data-testid=blocks-table] table");
		if (!t) return {headers: [], rows: [], blocks: [], roles: []};
		return {
			headers: [...t.querySelectorAll("thead th")].map(th => th.textContent.trim()),
			rows: [...t.querySelectorAll("tbody tr")].map(tr => [...tr.cells].map(td => td.textContent.trim())),
			blocks: [...document.querySelectorAll("svg.win .row")].map(a => String([...a.querySelectorAll("[data-testid=block]")].reduce((n, r) => n + +r.dataset.tokens, 0))),
			// A row names its role where it is labelled: on the row, or
			// first in its callout. Rows named together (a group) are
			// listed in the table.
			roles: [...document.querySelectorAll("svg.win .row")].map(a => {
				const r = a.querySelector(".lbl-role");
				if (r && r.getBoundingClientRect().width > 0) return r.textContent.trim();
				const c = document.querySelector('[data-testid=callout][data-for="' + a.dataset.row + '"]');
				if (c) return c.textContent.split(" · ")[0];
				return a.querySelector(".lbl-name") ? "" : "group";
			}),
		};
	})()`)
	for _, want := range []string{"Role", "Kind", "Tokens", "State"} {
		found := false
		for _, h := range tb.Headers {
			if strings.Contains(strings.ToLower(h), strings.ToLower(want)) {
				found = true
			}
		}
		if !found {
			t.Errorf("blocks table: no %q column in %q", want, tb.Headers)
		}
	}
	if len(tb.Rows) == 0 || len(tb.Rows) != len(tb.Blocks) {
		t.Fatalf("blocks table: %d rows for %d drawn blocks", len(tb.Rows), len(tb.Blocks))
	}
	for i, r := range tb.Rows {
		if !strings.Contains(strings.ReplaceAll(strings.Join(r, " | "), ",", ""), tb.Blocks[i]) {
			t.Errorf("blocks table row %d %q does not give the block's %s tokens", i+1, r, tb.Blocks[i])
		}
		if tb.Roles[i] == "" {
			t.Errorf("block %d is told by colour alone: no visible role label", i+1)
		}
	}
	// Reachable by keyboard: Tab reaches its summary, Enter opens it.
	reached := false
	for range 80 {
		b.key(kb.Tab)
		if mustEval[bool](b, `document.activeElement?.closest("[data-testid=blocks-table]") !== null && document.activeElement.tagName === "SUMMARY"`) {
			reached = true
			break
		}
	}
	if !reached {
		t.Fatalf("the blocks table's summary is not reached by Tab")
	}
	b.key(kb.Enter)
	b.waitJS("blocks table opens", `String(document.querySelector("[data-testid=blocks-table]").open)`, "true")
	if h := mustEval[float64](b, `document.querySelector("[data-testid=blocks-table] table").getBoundingClientRect().height`); h <= 0 {
		t.Errorf("blocks table open but not rendered (height %v)", h)
	}
}

// checkFocusVisible: every element Tab reaches on a lesson page shows a
// focus outline.
func checkFocusVisible(t *testing.T, b0 *chromeTab) {
	b := b0.on(t)
	for _, path := range []string{cmURL("en", cmPolicy, 8), cmURL("en", cmPolicy, 8) + "/present"} {
		b.open(path)
		b.waitSettled()
		var bad []string
		seen := 0
		for range 40 {
			b.key(kb.Tab)
			got := mustEval[string](b, `(() => {
				const e = document.activeElement;
				if (!e || e === document.body) return "";
				const s = getComputedStyle(e);
				const ok = e.matches(":focus-visible") && s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2;
				return (ok ? "ok " : "NO ") + e.tagName.toLowerCase() + (e.className ? "." + String(e.className).trim().split(/\s+/).join(".") : "") + " outline " + s.outlineStyle + " " + s.outlineWidth + " " + s.outlineColor;
			})()`)
			if got == "" {
				continue
			}
			seen++
			if !strings.HasPrefix(got, "ok ") {
				bad = append(bad, got)
			}
		}
		if seen < 10 {
			t.Errorf("%s: Tab reached only %d elements", path, seen)
		}
		if len(bad) > 0 {
			t.Errorf("%s: focus not visible on %q", path, bad)
		}
	}
	if !mustEval[bool](b, `[...document.styleSheets].some(ss => [...ss.cssRules].some(r => r.selectorText && r.selectorText.includes(":focus-visible") && r.style.outlineStyle !== "none"))`) {
		t.Errorf("no :focus-visible rule with an outline in the stylesheets")
	}
}

// checkReducedMotion: stepping animates the window (blocks grow and move
// from where they were), and nothing moves under prefers-reduced-motion
// (the browser runs with --force-prefers-reduced-motion; emulation
// switches it back and forth). app.js counts the animations it starts on
// <html data-animated>.
func checkReducedMotion(t *testing.T, b0 *chromeTab) {
	b := b0.on(t)
	// The audit joined a room in this tab: leave it, or the page follows
	// the presenter instead of the arrow key.
	b.open(cmURL("en", cmPolicy, 1))
	mustEval[bool](b, `(sessionStorage.clear(), true)`)
	anim := func(motion string) string {
		ctx, cancel := context.WithTimeout(b.ctx, browserCall)
		defer cancel()
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: motion}},
		}); err != nil {
			t.Fatalf("emulate prefers-reduced-motion %s: %v", motion, err)
		}
		b.open(cmURL("en", cmPolicy, 3))
		b.waitStep(3, cmSteps)
		b.key(kb.ArrowRight)
		b.waitStep(4, cmSteps)
		return mustEval[string](b, `document.documentElement.dataset.animated ?? "<unset>"`)
	}
	if got := anim("no-preference"); got == "0" || strings.HasPrefix(got, "<") {
		t.Errorf("without reduced motion, a step started %s animations, want some (else this check proves nothing)", got)
	}
	if got := anim("reduce"); got != "0" {
		t.Errorf("under prefers-reduced-motion, a step started %s animations, want 0", got)
	}
	if got := mustEval[bool](b, `matchMedia("(prefers-reduced-motion: reduce)").matches`); !got {
		t.Errorf("emulated prefers-reduced-motion: reduce does not match")
	}
}
