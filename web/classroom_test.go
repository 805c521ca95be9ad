package web

// Real-browser tests of the classroom features: the side-by-side
// comparison, the presenter's keyboard map, speaker notes in a second
// window, autoplay and the printed handout. Helpers: browser_test.go.

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// on returns a copy of b that reports to t (one browser, several subtests).
func (b *chromeTab) on(t *testing.T) *chromeTab { return &chromeTab{t: t, ctx: b.ctx, base: b.base} }

// watchExceptions records the page's uncaught JavaScript exceptions (an
// aborted View Transition included) from now on; the result returns those
// seen since its last call.
func (b *chromeTab) watchExceptions() func() []string {
	b.t.Helper()
	var mu sync.Mutex
	var seen []string
	if err := chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			seen = append(seen, e.ExceptionDetails.Text+" "+exceptionDescription(e.ExceptionDetails))
			mu.Unlock()
		}
	}); err != nil {
		b.t.Fatalf("listen for exceptions: %v", err)
	}
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
}

// pollFor is pollJS with its own deadline.
func (b *chromeTab) pollFor(d time.Duration, what, expr string, ok func(string) bool) string {
	b.t.Helper()
	deadline := time.Now().Add(d)
	var last string
	var lastErr error
	for {
		v, err := evalIn[string](b, expr)
		if err == nil {
			if ok(v) {
				return v
			}
			last, lastErr = v, nil
		} else {
			lastErr = err
		}
		if time.Now().After(deadline) || b.ctx.Err() != nil {
			b.t.Fatalf("%s: not within %s; last value %q (%v)", what, d, last, lastErr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// policyQuery turns a policy segment (compaction-on.memory-on…) into the
// frames API's query (compaction=on&memory=on…).
func policyQuery(seg string) string {
	q := url.Values{}
	for _, part := range strings.Split(seg, ".") {
		name, val, _ := strings.Cut(part, "-")
		q.Set(name, val)
	}
	return q.Encode()
}

// compareState is what one position of a comparison shows.
type compareState struct {
	Path   string `json:"path"`
	Label  string `json:"label"`
	AMeter string `json:"aMeter"`
	BMeter string `json:"bMeter"`
	AExact string `json:"aExact"`
	BExact string `json:"bExact"`
	ADiff  string `json:"aDiff"`
	BDiff  string `json:"bDiff"`
	Delta  string `json:"delta"`
}

const compareStateJS = `(() => {
  const t = id => (document.querySelector('[data-testid="' + id + '"]')?.textContent ?? "<none>").replace(/\s+/g, " ").trim();
  const title = id => document.querySelector('[data-testid="' + id + '"]')?.getAttribute("title") ?? "<none>";
  return {path: location.pathname, label: t("step-label"), aMeter: t("a-meter"), bMeter: t("b-meter"),
    aExact: title("a-meter"), bExact: title("b-meter"), aDiff: t("a-diff"), bDiff: t("b-diff"), delta: t("compare-delta")};
})()`

var (
	leadingCount = regexp.MustCompile(`^\d{1,3}(,\d{3})*`)
	deltaRe      = regexp.MustCompile(`right − left = ([+−])([\d,]+(?:\.\d)?)(k?) tokens \((\S+) vs (\S+)\)`)
	stepOfRe     = regexp.MustCompile(`^Step (\d+) of (\d+)`)
)

// exactTokens reads the exact count a meter's title starts with ("47,900 / 50,000").
func exactTokens(t *testing.T, side, title string) int {
	t.Helper()
	m := leadingCount.FindString(title)
	if m == "" {
		t.Fatalf("%s meter title %q does not start with a token count", side, title)
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m, ",", ""))
	return n
}

func TestBrowserCompareAlignment(t *testing.T) {
	cases := []struct {
		lesson, a, b string
		check        func(t *testing.T, seen []compareState)
	}{
		{
			lesson: "context-memory", a: cmPolicy, b: cmOverflow,
			check: func(t *testing.T, seen []compareState) {
				compacted, refused := false, false
				for _, s := range seen {
					if s.ADiff == "compacted here: 47.9k → 27.2k" {
						compacted = true
						if s.BDiff != "no change here: still 47.9k" {
							t.Errorf("%s: left compacts, right reads %q, want \"no change here: still 47.9k\"", s.Path, s.BDiff)
						}
					}
					if strings.HasPrefix(s.BDiff, "refused: context_length_exceeded") {
						refused = true
					}
				}
				if !compacted {
					t.Errorf("no position where the left side reads \"compacted here: 47.9k → 27.2k\"")
				}
				if !refused {
					t.Errorf("no position where the right side reads \"refused: context_length_exceeded\"")
				}
			},
		},
		{
			lesson: "status-bar", a: "status-off.counter-off.clock-off.alpha-10", b: "status-append.counter-off.clock-off.alpha-10",
			check: func(t *testing.T, seen []compareState) {
				// Appending a status line every call grows the right side
				// faster: the difference widens at every position.
				prev := -1
				for _, s := range seen {
					d := exactTokens(t, "right", s.BExact) - exactTokens(t, "left", s.AExact)
					if d <= prev {
						t.Errorf("%s: right − left = %d, not more than %d before", s.Path, d, prev)
					}
					prev = d
				}
			},
		},
	}
	b0 := browser(t, 1440, 900, true)
	exceptions := b0.watchExceptions()
	for _, c := range cases {
		t.Run(c.lesson, func(t *testing.T) {
			b := b0.on(t)
			var fa, fb apiDoc
			getJSON(t, b.base+"/api/lessons/"+c.lesson+"/frames?"+policyQuery(c.a), &fa)
			getJSON(t, b.base+"/api/lessons/"+c.lesson+"/frames?"+policyQuery(c.b), &fb)
			if len(fa.Frames) == len(fb.Frames) && c.lesson == "context-memory" {
				t.Fatalf("the two runs have %d frames each: nothing to align", len(fa.Frames))
			}
			base := fmt.Sprintf("/en/%s/%s/vs/%s/", c.lesson, c.a, c.b)
			b.open(base + "1")
			total := atoiOrFatal(t, readStepTotal(b))
			if total < max(len(fa.Frames), len(fb.Frames)) {
				t.Fatalf("%d positions for runs of %d and %d frames", total, len(fa.Frames), len(fb.Frames))
			}
			ia, ib := 0, 0 // the frame each side shows, inferred from its diff line
			var seen []compareState
			for pos := 1; pos <= total; pos++ {
				if pos > 1 {
					b.key(kb.ArrowRight) // one key moves both sides
					b.waitStep(pos, total)
				}
				s := mustEval[compareState](b, compareStateJS)
				seen = append(seen, s)
				if want := base + strconv.Itoa(pos); s.Path != want {
					t.Fatalf("position %d: path %s, want %s", pos, s.Path, want)
				}
				if m := stepOfRe.FindStringSubmatch(s.Label); m == nil || m[1] != strconv.Itoa(pos) {
					t.Fatalf("position %d: step label %q", pos, s.Label)
				}
				// Each side holds its frame ("no change here") or shows its
				// next one: never a skip, never a step back.
				if pos > 1 {
					if !strings.HasPrefix(s.ADiff, "no change here") {
						ia++
					}
					if !strings.HasPrefix(s.BDiff, "no change here") {
						ib++
					}
				}
				for _, side := range []struct {
					name        string
					frames      []apiFrame
					i           int
					exact, diff string
				}{{"left", fa.Frames, ia, s.AExact, s.ADiff}, {"right", fb.Frames, ib, s.BExact, s.BDiff}} {
					if side.i >= len(side.frames) {
						t.Fatalf("position %d: the %s side is past its last frame (%d frames): %+v", pos, side.name, len(side.frames), s)
					}
					f := side.frames[side.i]
					if got := exactTokens(t, side.name, side.exact); got != f.TotalTokens {
						t.Errorf("position %d: %s meter %q, want frame %d's %d tokens (the %s run, in order, without skipping)",
							pos, side.name, side.exact, side.i+1, f.TotalTokens, side.name)
					}
					if strings.HasPrefix(side.diff, "no change here") {
						continue
					}
					switch {
					case f.Kind == "replaced" && !strings.HasPrefix(side.diff, "compacted here: "):
						t.Errorf("position %d: %s shows a compaction frame, diff %q", pos, side.name, side.diff)
					case f.Error != nil && !strings.HasPrefix(side.diff, "refused: "+*f.Error):
						t.Errorf("position %d: %s shows a refusal, diff %q", pos, side.name, side.diff)
					}
				}
				// The delta is right minus left.
				m := deltaRe.FindStringSubmatch(s.Delta)
				if m == nil {
					t.Fatalf("position %d: compare-delta %q does not read \"right − left = ±N tokens (B vs A)\"", pos, s.Delta)
				}
				n, err := strconv.ParseFloat(strings.ReplaceAll(m[2], ",", ""), 64)
				if err != nil {
					t.Fatalf("position %d: delta number %q: %v", pos, m[2], err)
				}
				tol := 0.0
				if m[3] == "k" {
					n, tol = n*1000, 50
				}
				if m[1] == "−" {
					n = -n
				}
				ta, tb := exactTokens(t, "left", s.AExact), exactTokens(t, "right", s.BExact)
				if d := float64(tb - ta); n < d-tol || n > d+tol {
					t.Errorf("position %d: delta %q = %v, but right − left = %d − %d = %v", pos, s.Delta, n, tb, ta, d)
				}
				aShown, _, _ := strings.Cut(s.AMeter, " / ")
				bShown, _, _ := strings.Cut(s.BMeter, " / ")
				if m[4] != bShown || m[5] != aShown {
					t.Errorf("position %d: delta %q names (%s vs %s), the meters read %s (right) and %s (left)", pos, s.Delta, m[4], m[5], bShown, aShown)
				}
			}
			if ia != len(fa.Frames)-1 || ib != len(fb.Frames)-1 {
				t.Errorf("after the last position the sides show frames %d and %d, want the last ones (%d and %d)", ia+1, ib+1, len(fa.Frames), len(fb.Frames))
			}
			if b.exists(`a[data-testid=step-next]`) {
				t.Errorf("the last position still has a step-next link")
			}
			c.check(t, seen)
			if ex := exceptions(); len(ex) > 0 {
				t.Errorf("JavaScript exceptions while stepping the comparison: %q", ex)
			}
		})
	}
}

func TestBrowserPresenterKeys(t *testing.T) {
	b := browser(t, 1280, 720, true)
	var mu sync.Mutex
	var exceptions []string
	phase := "load"
	setPhase := func(p string) { mu.Lock(); phase = p; mu.Unlock() }
	if err := chromedp.Listen(b.ctx, func(ev any) {
		if e, ok := ev.(*runtime.EventExceptionThrown); ok {
			mu.Lock()
			exceptions = append(exceptions, phase+": "+e.ExceptionDetails.Text+" "+exceptionDescription(e.ExceptionDetails))
			mu.Unlock()
		}
	}); err != nil {
		t.Fatalf("listen: %v", err)
	}
	present := func(policy string, step int) string { return cmURL("en", policy, step) + "/present" }
	b.open(present(cmPolicy, 1))
	b.waitStep(1, cmSteps)
	if got := mustEval[string](b, `document.getElementById("app").dataset.view`); got != "present" {
		t.Fatalf("presenter view: #app data-view = %q", got)
	}

	steps := []struct {
		key  string
		name string
		step int
	}{{" ", "space", 2}, {kb.ArrowRight, "ArrowRight", 3}, {kb.ArrowLeft, "ArrowLeft", 2}, {kb.End, "End", cmSteps}, {kb.Home, "Home", 1}, {kb.ArrowRight, "ArrowRight", 2}}
	for _, s := range steps {
		setPhase(s.name)
		b.key(s.key)
		b.waitStep(s.step, cmSteps)
		b.waitPath(present(cmPolicy, s.step))
	}

	// A digit switches the mode and stays in the presenter view.
	setPhase("digit 2")
	b.key("2")
	p := b.pollFor(browserWait, "digit 2 switches to compaction off", `location.pathname`, func(s string) bool { return strings.Contains(s, "compaction-off") })
	if !strings.HasSuffix(p, "/present") || strings.Contains(p, "/vs/") {
		t.Fatalf("digit 2: path %s, want compaction off in the presenter view", p)
	}
	b.waitSettled()
	if got := mustEval[string](b, `document.querySelector('a[data-key="2"]')?.getAttribute("aria-current") ?? ""`); got != "true" {
		t.Errorf("digit 2: quick mode 2 is not marked current (aria-current %q)", got)
	}

	// c: the comparison, projected; c again: back.
	setPhase("c")
	b.key("c")
	p = b.pollFor(browserWait, "c opens the comparison", `location.pathname`, func(s string) bool { return strings.Contains(s, "/vs/") })
	if !strings.HasSuffix(p, "/present") {
		t.Errorf("c: path %s does not end with /present", p)
	}
	b.waitSettled()
	if !b.exists(tid("a-pane")) || !b.exists(tid("b-pane")) {
		t.Errorf("c: %s shows no two panes", p)
	}
	b.key("c")
	p = b.pollFor(browserWait, "c again closes the comparison", `location.pathname`, func(s string) bool { return !strings.Contains(s, "/vs/") })
	if !strings.HasSuffix(p, "/present") || !strings.Contains(p, "compaction-off") {
		t.Errorf("c again: path %s, want compaction off in the presenter view", p)
	}
	b.waitSettled()

	// ?: the keys, shown and hidden.
	const helpShown = `(() => { const h = document.getElementById("keys-help"); if (!h) return "<none>"; const r = h.getBoundingClientRect(); return String(!h.hidden && getComputedStyle(h).display !== "none" && r.width > 0 && r.height > 0); })()`
	if got := mustEval[string](b, helpShown); got != "false" {
		t.Fatalf("#keys-help before ?: shown = %s", got)
	}
	setPhase("?")
	b.key("?")
	b.waitJS("? shows #keys-help", helpShown, "true")
	if txt := b.text("#keys-help"); !strings.Contains(txt, "→") || !strings.Contains(strings.ToLower(txt), "compare") {
		t.Errorf("#keys-help does not list the keys: %q", txt)
	}
	b.key("?")
	b.waitJS("? again hides #keys-help", helpShown, "false")

	// a: autoplay on and off.
	setPhase("a")
	b.key("a")
	b.waitJS("a starts autoplay", `document.querySelector('[data-testid=autoplay]')?.getAttribute("aria-pressed") ?? "<none>"`, "true")
	b.key("a")
	b.waitJS("a again stops autoplay", `document.querySelector('[data-testid=autoplay]')?.getAttribute("aria-pressed") ?? "<none>"`, "false")

	// f: full screen. Headless chromium may grant or refuse it; either way
	// no exception. Then, with requestFullscreen recorded, f must call it.
	setPhase("f")
	b.key("f")
	b.do("let fullscreen settle", chromedp.Sleep(300*time.Millisecond))
	if mustEval[bool](b, `document.fullscreenElement !== null`) {
		t.Logf("f: the page went full screen")
		b.key("f")
		b.waitJS("f again leaves full screen", `String(document.fullscreenElement === null)`, "true")
	} else {
		t.Logf("f: headless chromium did not go full screen")
	}
	mustEval[bool](b, `(() => { window.__fullscreenCalls = 0; document.documentElement.requestFullscreen = function () { window.__fullscreenCalls++; return Promise.resolve(); }; return true; })()`)
	b.key("f")
	b.waitJS("f calls requestFullscreen", `String(window.__fullscreenCalls)`, "1")

	// p: out of the presenter view, same state.
	before := b.path()
	setPhase("p")
	b.key("p")
	p = b.pollFor(browserWait, "p leaves the presenter view", `location.pathname`, func(s string) bool { return !strings.HasSuffix(s, "/present") })
	if want := strings.TrimSuffix(before, "/present"); p != want {
		t.Errorf("p: path %s, want %s", p, want)
	}
	b.waitSettled()
	if got := mustEval[string](b, `document.getElementById("app").dataset.view`); got != "lesson" {
		t.Errorf("p: #app data-view = %q, want lesson", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(exceptions) > 0 {
		t.Errorf("JavaScript exceptions: %q", exceptions)
	}
}

func TestBrowserSpeakerNotesFollow(t *testing.T) {
	presenter := browser(t, 1280, 720, true)
	presenter.open(cmURL("en", cmPolicy, 1) + "/present")
	presenter.waitStep(1, cmSteps)

	// A second tab of the same browser: BroadcastChannel reaches it.
	nctx, cancel := chromedp.NewContext(presenter.ctx)
	t.Cleanup(cancel)
	// The first run opens the tab and binds its life to the context it is
	// given: give it the tab's own context, not a per-call deadline.
	if err := chromedp.Do(nctx); err != nil {
		t.Fatalf("open a second tab: %v", err)
	}
	notes := &chromeTab{t: t, ctx: nctx, base: presenter.base}
	notes.open(cmURL("en", cmPolicy, 1) + "/notes")
	notes.waitStep(1, cmSteps)
	if got := mustEval[string](notes, `document.getElementById("app").dataset.view`); got != "notes" {
		t.Fatalf("notes tab: #app data-view = %q", got)
	}
	if !presenter.exists(tid("notes-link")) {
		t.Fatalf("the presenter view has no notes-link")
	}

	ctx, cancel2 := context.WithTimeout(presenter.ctx, browserCall)
	defer cancel2()
	if _, err := chromedp.Call(ctx, page.BringToFront, cdp.Empty{}); err != nil {
		t.Fatalf("bring the presenter tab to front: %v", err)
	}
	for n := 2; n <= 3; n++ {
		presenter.key(kb.ArrowRight)
		presenter.waitStep(n, cmSteps)
	}
	notes.waitPath(cmURL("en", cmPolicy, 3) + "/notes")
	notes.waitStep(3, cmSteps)
	next := mustEval[string](notes, `(() => {
		const n = document.querySelector("[data-testid=next-headline]");
		if (!n) return "<none>";
		const c = n.cloneNode(true);
		c.querySelector("strong")?.remove();
		return c.textContent.replace(/\s+/g, " ").trim();
	})()`)

	// The presenter's next step is the headline the notes announced.
	presenter.key(kb.ArrowRight)
	presenter.waitStep(4, cmSteps)
	headline := strings.Join(strings.Fields(presenter.text(tid("narration-headline"))), " ")
	if headline == "" || next != headline {
		t.Errorf("notes at step 3: next-headline %q, the presenter's step 4 headline %q", next, headline)
	}
	notes.waitPath(cmURL("en", cmPolicy, 4) + "/notes")
	if body := notes.text(tid("narration")); len(body) < 40 {
		t.Errorf("notes at step 4: narration %q is not the full text", body)
	}
}

func TestBrowserAutoplayPauses(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	b := browser(t, 1440, 900, true)
	// Where autoplay must pause: the first decisive step of each run of
	// decisive steps, not every one of them.
	s := newTestServer(t)
	l := s.lib().byID["context-memory"]
	r, err := s.runs.Run(l, l.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	var pauses []int
	for i, f := range r.Frames {
		if i >= 3 && f.Decisive && !r.Frames[i-1].Decisive {
			pauses = append(pauses, i+1)
		}
	}
	if len(pauses) < 2 || !r.Frames[pauses[0]].Decisive {
		t.Fatalf("pauses %v: the test needs two decisive runs, the first longer than one step", pauses)
	}
	b.open(cmURL("en", cmPolicy, 3))
	b.waitStep(3, cmSteps)
	if got := mustEval[string](b, `document.getElementById("app").dataset.decisive`); got != "false" {
		t.Fatalf("step 3 is decisive (%q): pick a start before the threshold is crossed", got)
	}
	// Record every step autoplay shows (the document survives the swaps).
	mustEval[bool](b, `(() => { window.__steps = []; document.addEventListener("ctxsim:swapped", () => window.__steps.push(document.getElementById("app").dataset.step)); return true; })()`)
	b.click(`[data-speed="1500"]`)
	b.clickID("autoplay")
	if got := mustEval[string](b, `document.querySelector("[data-testid=autoplay]").getAttribute("aria-pressed")`); got != "true" {
		t.Errorf("after clicking autoplay: aria-pressed = %q, want true", got)
	}

	const state = `(() => {
		const a = document.getElementById("app"), btn = document.querySelector("[data-testid=autoplay]");
		const note = (document.querySelector("[data-testid=autoplay-note]")?.textContent ?? "").trim();
		return [a.dataset.step, a.dataset.decisive, btn?.getAttribute("aria-pressed"), note ? "note" : "no note"].join(" ");
	})()`
	paused := func(step int) string { return fmt.Sprintf("%d true false note", step) }
	start := time.Now()
	b.pollFor(20*time.Second, fmt.Sprintf("autoplay pauses at step %d", pauses[0]), state, func(s string) bool { return s == paused(pauses[0]) })
	t.Logf("autoplay reached step %d and paused after %s", pauses[0], time.Since(start).Round(100*time.Millisecond))
	if got := b.path(); got != cmURL("en", cmPolicy, pauses[0]) {
		t.Errorf("paused at path %s", got)
	}
	b.do("stay paused", chromedp.Sleep(3*time.Second))
	if got := mustEval[string](b, state); got != paused(pauses[0]) {
		t.Fatalf("3 s after pausing: %q, want %q", got, paused(pauses[0]))
	}

	// Space resumes: the rest of the decisive run plays, and autoplay
	// pauses again at the start of the next one.
	b.key(" ")
	b.pollFor(40*time.Second, fmt.Sprintf("space resumes, and autoplay pauses again at step %d", pauses[1]), state, func(s string) bool { return s == paused(pauses[1]) })
	var want []string
	for n := 4; n <= pauses[1]; n++ {
		want = append(want, fmt.Sprint(n))
	}
	if got := mustEval[[]string](b, `window.__steps`); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("autoplay showed steps %q, want %q", got, want)
	}
}

func TestPrintHandout(t *testing.T) {
	b := browser(t, 1280, 900, true)

	// The handout prints to several pages.
	handout := "/en/context-memory/" + cmPolicy + "/handout"
	b.open(handout)
	frames := mustEval[int](b, `document.querySelectorAll("[data-testid=handout-frame]").length`)
	if frames < 3 {
		t.Fatalf("handout: %d key frames", frames)
	}
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	pdf, err := chromedp.Run(ctx, chromedp.PrintToPDF())
	if err != nil {
		t.Fatalf("print %s to PDF: %v", handout, err)
	}
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("print %s: not a PDF (%d bytes: %.20q)", handout, len(pdf), pdf)
	}
	pages := len(regexp.MustCompile(`/Type\s*/Page\b[^s]`).FindAll(pdf, -1))
	t.Logf("handout: %d key frames, %d PDF pages, %d bytes", frames, pages, len(pdf))
	// Every step is in it, and pages are filled: more than one step to a
	// page on average (a frame never gets a page of its own with half of
	// it empty).
	if frames != cmSteps {
		t.Errorf("the handout has %d frames, want every one of the %d steps", frames, cmSteps)
	}
	if pages < 2 || float64(frames)/float64(pages) < 1.3 {
		t.Errorf("the printed handout has %d pages for %d steps, want at least 1.3 steps a page", pages, frames)
	}
	for _, sel := range []string{"[data-testid=memory-file]", "[data-testid=summary-text]", "[data-testid=summary-provenance]"} {
		if !b.exists("[data-testid=handout-frame] " + sel) {
			t.Errorf("the handout has no %s", sel)
		}
	}

	// Printed, the handout and a lesson page show no controls.
	media := func(m string) {
		ctx, cancel := context.WithTimeout(b.ctx, browserCall)
		defer cancel()
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Media: m}); err != nil {
			t.Fatalf("emulate media %q: %v", m, err)
		}
	}
	const shownJS = `(sel => [...document.querySelectorAll(sel)].filter(e => getComputedStyle(e).display !== "none" && e.getClientRects().length > 0).map(e => e.className || e.tagName))`
	media("print")
	if got := mustEval[[]string](b, shownJS+`("button, .stepbar, .col-modes, .viewnav, .handout-actions")`); len(got) > 0 {
		t.Errorf("printed handout shows controls: %q", got)
	}
	for _, sel := range []string{".headline", ".prose"} {
		if n := mustEval[int](b, fmt.Sprintf(`[...document.querySelectorAll("[data-testid=handout-frame] %s")].filter(e => e.textContent.trim() !== "").length`, sel)); n < frames {
			t.Errorf("printed handout: %d of %d key frames have a %s", n, frames, sel)
		}
	}

	b.open(cmURL("en", cmPolicy, 8))
	for _, sel := range []string{".stepbar", ".col-modes", ".viewnav"} {
		if got := mustEval[string](b, fmt.Sprintf(`(() => { const e = document.querySelector(%s); return e ? getComputedStyle(e).display : "<none>"; })()`, jsQuote(sel))); got != "none" {
			t.Errorf("printed lesson: %s display = %q, want none", sel, got)
		}
	}
	media("screen")
	if got := mustEval[string](b, `getComputedStyle(document.querySelector(".stepbar")).display`); got == "none" {
		t.Errorf("on screen the step bar is hidden: the print check proves nothing")
	}
}
