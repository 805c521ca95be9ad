package web

// Real-browser tests: Debian chromium driven by chromedp (v0.23.0, generic
// API). They fail, never skip, when chromium is missing, so CI runs them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

const (
	browserTestTimeout = 60 * time.Second // whole test, browser included
	browserWait        = 10 * time.Second // one wait for a page condition
	browserCall        = 5 * time.Second  // one protocol round trip

	cmPolicy   = "compaction-on.memory-on.threshold-92.rec-1"
	cmOverflow = "compaction-off.memory-on.threshold-92.rec-1"
	cmSteps    = 14
	cmWindow   = 50000

	// cmMinU is the specified minimum block height in thousandths of the
	// window (web/scale.go's minBlockU), spelled out so that a change to
	// the product constant shows up here.
	cmMinU = 36
)

// cmURL is the path of a state of the context-memory lesson.
func cmURL(lang, policy string, step int) string {
	return fmt.Sprintf("/%s/context-memory/%s/%d", lang, policy, step)
}

// cmMeters are the meter texts of the default mode, step 1 first.
var cmMeters = []string{
	"4.0k / 50k", "5.3k / 50k", "5.3k / 50k", "47.9k / 50k", "47.9k / 50k", "47.9k / 50k", "47.9k / 50k",
	"27.2k / 50k", "27.8k / 50k", "28.3k / 50k", "28.6k / 50k", "0.0k / 50k", "4.1k / 50k", "4.3k / 50k",
}

// chromeTab is one chromium chromeTab on a loopback ctxsim server.
type chromeTab struct {
	t    *testing.T
	ctx  context.Context
	base string
}

func chromiumPath(t *testing.T) string {
	t.Helper()
	p := os.Getenv("CTXSIM_CHROMIUM")
	if p == "" {
		p = "/usr/bin/chromium"
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("browser tests need Chromium at %s (%v): run `apt-get install chromium`, or set CTXSIM_CHROMIUM to a Chromium binary", p, err)
	}
	return p
}

// browser starts a ctxsim server and a fresh chromium (own profile, so no
// cookie or history cache is shared between tests) with a width×height
// window, scripts on or off.
func browser(t *testing.T, width, height int, js bool) *chromeTab {
	t.Helper()
	ts := startHTTP(t, newTestServer(t))
	bctx := startChromium(t, width, height)
	ctx, cancel := context.WithTimeout(bctx, browserTestTimeout)
	t.Cleanup(cancel)
	b := &chromeTab{t: t, ctx: ctx, base: ts.URL}
	// Headless chromium's --window-size includes window decorations (1440×900
	// gives a 1440×757 viewport): emulate the viewport size exactly.
	b.do("set viewport", chromedp.EmulateViewport(int64(width), int64(height)))
	if !js {
		if _, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatalf("disable scripts: %v", err)
		}
	}
	return b
}

// startChromium starts a headless Debian Chromium with the options every
// browser test uses, plus extra, and returns its browser context; the
// browser closes when the test ends. It fails (never skips) without Chromium.
func startChromium(t *testing.T, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(exe),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Headless,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("force-prefers-reduced-motion", true),
		chromedp.WindowSize(width, height),
		chromedp.UserDataDir(t.TempDir()),
	)
	actx, acancel := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(bctx, 10*time.Second)
		defer cancel()
		_ = chromedp.Cancel(cctx) // close the browser before its profile is removed
		bcancel()
		acancel()
	})
	// The first Run binds the browser's life to its context: start it with
	// no timeout; callers give tests their own deadlines.
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium %s: %v", exe, err)
	}
	return bctx
}

// do runs actions with a per-call deadline.
func (b *chromeTab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

// open loads a path of the test server and waits for the load event.
func (b *chromeTab) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path))
}

func (b *chromeTab) key(k string) { b.t.Helper(); b.do("key", chromedp.KeyEvent(k)) }
func (b *chromeTab) click(sel string) {
	b.t.Helper()
	b.do("click "+sel, chromedp.Click(chromedp.CSS(sel)))
}
func (b *chromeTab) clickID(testid string) { b.t.Helper(); b.click(tid(testid)) }

func tid(id string) string { return fmt.Sprintf("[data-testid=%q]", id) }

// jsQuote quotes s as a JavaScript string literal.
func jsQuote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// evalIn evaluates a JavaScript expression once and decodes its value.
func evalIn[T any](b *chromeTab, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, browserCall)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// mustEval evaluates a JavaScript expression and fails the test on an error.
func mustEval[T any](b *chromeTab, expr string) T {
	b.t.Helper()
	v, err := evalIn[T](b, expr)
	if err != nil {
		b.t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// pollJS evaluates a string expression every 50 ms until ok accepts its
// value. Errors (a page in the middle of a navigation) are retried.
func (b *chromeTab) pollJS(expr string, ok func(string) bool) (string, error) {
	deadline := time.Now().Add(browserWait)
	var last string
	var lastErr error
	for {
		v, err := evalIn[string](b, expr)
		if err == nil {
			last, lastErr = v, nil
			if ok(v) {
				return v, nil
			}
		} else {
			lastErr = err
		}
		if time.Now().After(deadline) || b.ctx.Err() != nil {
			if lastErr == nil {
				lastErr = errors.New("timed out")
			}
			return last, lastErr
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitJS waits until the string expression equals want.
func (b *chromeTab) waitJS(what, expr, want string) {
	b.t.Helper()
	if got, err := b.pollJS(expr, func(s string) bool { return s == want }); err != nil {
		b.t.Fatalf("%s: want %q, last value %q (%v)", what, want, got, err)
	}
}

// jsText is an expression for the trimmed text content of the first element
// matching sel, or "<none>" when there is none.
func jsText(sel string) string {
	return fmt.Sprintf(`(document.querySelector(%s)?.textContent ?? "<none>").trim()`, jsQuote(sel))
}

func (b *chromeTab) text(sel string) string {
	b.t.Helper()
	return mustEval[string](b, jsText(sel))
}

func (b *chromeTab) exists(sel string) bool {
	b.t.Helper()
	return mustEval[bool](b, fmt.Sprintf(`document.querySelector(%s) !== null`, jsQuote(sel)))
}

func (b *chromeTab) path() string {
	b.t.Helper()
	return mustEval[string](b, `location.pathname`)
}

// waitStep waits until the step label reads "Step n of total" (English).
func (b *chromeTab) waitStep(n, total int) {
	b.t.Helper()
	want := fmt.Sprintf("Step %d of %d", n, total)
	got, err := b.pollJS(jsText(tid("step-label")), func(s string) bool {
		return s == want || strings.HasPrefix(s, want+" ")
	})
	if err != nil {
		b.t.Fatalf("step label: want %q, last value %q (%v)", want, got, err)
	}
	b.waitSettled()
}

// htmxSettledJS is true when htmx has no request, swap or settle in progress
// and no View Transition is running. htmx makes the links of swapped-in
// content boosted only when it settles (a key pressed before that follows
// the link as a plain, full navigation), and while a View Transition runs
// the page gets no pointer events (a click is lost).
const htmxSettledJS = `String(document.querySelector(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added") === null && !document.activeViewTransition)`

// waitSettled waits until htmx is idle (at once when scripts are off).
func (b *chromeTab) waitSettled() {
	b.t.Helper()
	b.waitJS("htmx settled", htmxSettledJS, "true")
}

// waitPath waits until location.pathname is want.
func (b *chromeTab) waitPath(want string) {
	b.t.Helper()
	b.waitJS("location.pathname", `location.pathname`, want)
}

// waitMeter waits until the meter reads want.
func (b *chromeTab) waitMeter(want string) {
	b.t.Helper()
	b.waitJS("meter", jsText(tid("meter")), want)
}

// blockIDs lists data-id of the blocks matching sel, in document order.
func (b *chromeTab) blockIDs(sel string) []string {
	b.t.Helper()
	return mustEval[[]string](b, fmt.Sprintf(`[...document.querySelectorAll(%s)].map(a => a.dataset.id)`, jsQuote(sel)))
}

func TestBrowserKeyboardSteps(t *testing.T) {
	b := browser(t, 1440, 900, true)
	b.open(cmURL("en", cmPolicy, 1))
	b.waitStep(1, cmSteps)
	if got := b.text(tid("meter")); got != cmMeters[0] {
		t.Fatalf("step 1 meter = %q, want %q", got, cmMeters[0])
	}
	// A marker on window survives only if no step reloads the document:
	// with scripts on, htmx swaps #app and pushes the URL.
	mustEval[bool](b, `(window.__ctxsimNoReload = true)`)

	for n := 2; n <= cmSteps; n++ {
		b.key(kb.ArrowRight)
		b.waitStep(n, cmSteps)
		b.waitPath(cmURL("en", cmPolicy, n))
		if got := b.text(tid("meter")); got != cmMeters[n-1] {
			t.Errorf("step %d: meter = %q, want %q", n, got, cmMeters[n-1])
		}
		switch n {
		case 4:
			if !b.exists(`[data-testid=memory-file] [data-testid=badge-changed]`) {
				t.Errorf("step 4: the memory file has no badge-changed")
			}
			if !b.exists(`[data-testid=memory-file] [data-testid=memory-copy] [data-testid=badge-snapshot]`) {
				t.Errorf("step 4: the injected copy has no badge-snapshot")
			}
			lines := mustEval[[]string](b, `[...document.querySelectorAll('[data-testid=memory-new-line]')].map(li => li.textContent.trim() + " | " + getComputedStyle(li).backgroundColor)`)
			found := false
			for _, l := range lines {
				txt, bg, _ := strings.Cut(l, " | ")
				if strings.Contains(txt, "Always pnpm") {
					found = true
					if bg == "rgba(0, 0, 0, 0)" || bg == "transparent" {
						t.Errorf("step 4: new memory line %q is not highlighted (background %s)", txt, bg)
					}
				}
			}
			if !found {
				t.Errorf("step 4: no highlighted new memory line contains \"Always pnpm\"; new lines: %q", lines)
			}
		case 6:
			want := []string{"m-task", "m-ack", "m-read", "m-file", "m-diag"}
			if got := b.blockIDs(`li.blk.is-selected [data-testid=block]`); !slices.Equal(got, want) {
				t.Errorf("step 6: selected blocks = %q, want %q", got, want)
			}
			if h := mustEval[float64](b, `document.querySelector('[data-testid=range-bracket]')?.getBoundingClientRect().height ?? -1`); h <= 0 {
				t.Errorf("step 6: range-bracket missing or flat (height %v)", h)
			}
		case 8:
			want := []string{"system", "memory-1", "s92", "m-bash", "m-log"}
			if got := b.blockIDs(tid("block")); !slices.Equal(got, want) {
				t.Errorf("step 8: blocks = %q, want %q", got, want)
			}
		}
	}
	if b.exists(`a[data-testid=step-next]`) {
		t.Errorf("step %d: step-next is still a link", cmSteps)
	}

	b.key(kb.ArrowLeft)
	b.waitStep(cmSteps-1, cmSteps)
	b.waitPath(cmURL("en", cmPolicy, cmSteps-1))
	b.waitMeter(cmMeters[cmSteps-2])
	if !mustEval[bool](b, `window.__ctxsimNoReload === true`) {
		t.Errorf("a step reloaded the whole document: htmx boosting is not in effect")
	}
}

// windowGeometry is what TestBrowserBlockHeights measures in one frame.
type windowGeometry struct {
	InnerW   float64      `json:"innerW"`
	InnerH   float64      `json:"innerH"`
	ColH     float64      `json:"colH"`
	BoxTop   float64      `json:"boxTop"`
	BoxWidth float64      `json:"boxWidth"`
	BoxBot   float64      `json:"boxBottom"`
	BarTop   float64      `json:"barTop"`
	ThrTop   *float64     `json:"thrTop"`
	Overflow *pxRect      `json:"overflow"`
	Blocks   []drawnBlock `json:"blocks"`
}

type pxRect struct {
	Top    float64 `json:"top"`
	Height float64 `json:"height"`
}

type drawnBlock struct {
	ID     string  `json:"id"`
	Tokens string  `json:"tokens"`
	U      string  `json:"u"`
	Top    float64 `json:"top"`
	Height float64 `json:"height"`
}

// windowGeometryJS measures the window. --col-h is an unresolved clamp()
// expression to getComputedStyle, so a hidden probe of class h-1000 (1000 u,
// the whole window) inside #app gives it in pixels.
const windowGeometryJS = `(() => {
  const app = document.getElementById("app");
  const probe = document.createElement("div");
  probe.className = "h-1000";
  probe.style.position = "absolute";
  probe.style.visibility = "hidden";
  app.appendChild(probe);
  const colH = probe.getBoundingClientRect().height;
  probe.remove();
  const rect = el => { if (!el) return null; const r = el.getBoundingClientRect(); return {top: r.top, height: r.height}; };
  const box = document.querySelector("[data-testid=window]").getBoundingClientRect();
  const thr = document.querySelector("[data-testid=threshold-line]");
  return {
    innerW: innerWidth, innerH: innerHeight, colH: colH,
    boxTop: box.top, boxWidth: box.width, boxBottom: box.bottom,
    barTop: document.querySelector(".stepbar").getBoundingClientRect().top,
    thrTop: thr ? thr.getBoundingClientRect().top : null,
    overflow: rect(document.querySelector("[data-testid=overflow]")),
    blocks: [...document.querySelectorAll("[data-testid=block]")].map(a => {
      const r = a.getBoundingClientRect();
      return {id: a.dataset.id, tokens: a.dataset.tokens, u: a.dataset.u, top: r.top, height: r.height};
    }),
  };
})()`

// tokenUnits is the drawn height of a block of n tokens in thousandths of the
// window, before the minimum: round(n*1000/window).
func tokenUnits(n int) int { return int(math.Floor(float64(n)*1000/cmWindow + 0.5)) }

func parseDataTokens(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil || !regexp.MustCompile(`^(0|[1-9]\d*)$`).MatchString(s) {
		t.Fatalf("data-tokens %q is not an integer (no separators)", s)
	}
	return n
}

// checkDrawnHeights asserts that every block is drawn to scale, no block under
// the minimum, and returns the token counts of the blocks.
func checkDrawnHeights(t *testing.T, name string, g windowGeometry) []int {
	t.Helper()
	if g.ColH < 240-0.5 || g.ColH > 720+0.5 {
		t.Errorf("%s: --col-h = %.2f px, outside the stylesheet's clamp(240px, …, 720px)", name, g.ColH)
	}
	if len(g.Blocks) == 0 {
		t.Fatalf("%s: no blocks drawn", name)
	}
	perU := g.ColH / 1000
	minH := perU*cmMinU - 1
	tokens := make([]int, len(g.Blocks))
	big := map[int]float64{}
	for i, bl := range g.Blocks {
		n := parseDataTokens(t, bl.Tokens)
		tokens[i] = n
		u := tokenUnits(n)
		if du, err := strconv.Atoi(bl.U); err != nil || du != max(cmMinU, u) {
			t.Errorf("%s: block %s (%d tokens): data-u = %q, want %d", name, bl.ID, n, bl.U, max(cmMinU, u))
		}
		if u >= cmMinU {
			if want := perU * float64(u); math.Abs(bl.Height-want) > 1 {
				t.Errorf("%s: block %s (%d tokens, %d u): height %.2f px, want %.2f ± 1 px", name, bl.ID, n, u, bl.Height, want)
			}
		}
		if bl.Height < minH {
			t.Errorf("%s: block %s (%d tokens): height %.2f px, under the minimum %.2f px", name, bl.ID, n, bl.Height, minH+1)
		}
		if n == 19000 || n == 22100 {
			big[n] = bl.Height
		}
	}
	h19, ok1 := big[19000]
	h22, ok2 := big[22100]
	if !ok1 || !ok2 {
		t.Errorf("%s: want blocks of 19,000 and 22,100 tokens, have %v", name, tokens)
	} else if want := h19 * float64(tokenUnits(22100)) / float64(tokenUnits(19000)); math.Abs(h22-want) > 1 {
		t.Errorf("%s: 22,100-token block %.2f px vs 19,000-token block %.2f px: ratio %.4f, want %d/%d (%.2f ± 1 px)",
			name, h22, h19, h22/h19, tokenUnits(22100), tokenUnits(19000), want)
	}
	// The blocks are stacked with no gap.
	for i := 1; i < len(g.Blocks); i++ {
		if gap := g.Blocks[i].Top - (g.Blocks[i-1].Top + g.Blocks[i-1].Height); math.Abs(gap) > 1 {
			t.Errorf("%s: %.2f px between blocks %s and %s", name, gap, g.Blocks[i-1].ID, g.Blocks[i].ID)
		}
	}
	return tokens
}

// blockHolding returns the index of the block that holds the n-th token, and how
// many tokens come before that block.
func blockHolding(tokens []int, n int) (int, int) {
	seen := 0
	for i, k := range tokens {
		if n <= seen+k {
			return i, seen
		}
		seen += k
	}
	return -1, seen
}

func (b *chromeTab) measure() windowGeometry {
	b.t.Helper()
	return mustEval[windowGeometry](b, windowGeometryJS)
}

func TestBrowserBlockHeights(t *testing.T) {
	for _, size := range []struct{ w, h int }{{1440, 900}, {1280, 720}} {
		t.Run(fmt.Sprintf("%dx%d", size.w, size.h), func(t *testing.T) {
			b := browser(t, size.w, size.h, true)

			// Step 4: 47.9k in a 50k window, past the 92% threshold.
			b.open(cmURL("en", cmPolicy, 4))
			b.waitStep(4, cmSteps)
			g := b.measure()
			if int(g.InnerW) != size.w || int(g.InnerH) != size.h {
				t.Fatalf("viewport %vx%v, want %dx%d", g.InnerW, g.InnerH, size.w, size.h)
			}
			if g.BoxWidth <= 0 {
				t.Fatalf("step 4: window box has width %v", g.BoxWidth)
			}
			tokens := checkDrawnHeights(t, "step 4", g)
			if g.ThrTop == nil {
				t.Fatalf("step 4: no threshold line")
			}
			threshold := cmWindow * 92 / 100
			i, before := blockHolding(tokens, threshold)
			if i < 0 {
				t.Fatalf("step 4: the stack (%v tokens) does not reach the threshold %d", tokens, threshold)
			}
			bl := g.Blocks[i]
			thr := *g.ThrTop
			t.Logf("viewport %vx%v: --col-h %.2f px, box width %.1f px; threshold line %.2f px below the box top, in block %s [%.2f, %.2f]",
				g.InnerW, g.InnerH, g.ColH, g.BoxWidth, thr-g.BoxTop, bl.ID, bl.Top-g.BoxTop, bl.Top+bl.Height-g.BoxTop)
			if thr < bl.Top || thr > bl.Top+bl.Height {
				t.Errorf("step 4: threshold line at %.2f px (box top %.2f) is not inside block %s [%.2f, %.2f] that holds token %d",
					thr, g.BoxTop, bl.ID, bl.Top, bl.Top+bl.Height, threshold)
			}
			if want := bl.Top + bl.Height*float64(threshold-before)/float64(tokens[i]); math.Abs(thr-want) > 1.5 {
				t.Errorf("step 4: threshold line at %.2f px, want %.2f ± 1.5 px (token %d of block %s)", thr, want, threshold, bl.ID)
			}
			if thr-g.BoxTop <= 0 {
				t.Errorf("step 4: threshold line %.2f px is above the box top %.2f px", thr, g.BoxTop)
			}

			// Compaction off, step 8: 53.5k overflows the 50k window.
			b.open(cmURL("en", cmOverflow, 8))
			b.waitStep(8, atoiOrFatal(t, readStepTotal(b)))
			if got := b.text(tid("meter")); got != "53.5k / 50k" {
				t.Errorf("overflow frame: meter = %q, want %q", got, "53.5k / 50k")
			}
			if got := b.text(tid("error-code")); got != "context_length_exceeded" {
				t.Errorf("overflow frame: error-code = %q, want %q", got, "context_length_exceeded")
			}
			g = b.measure()
			tokens = checkDrawnHeights(t, "overflow frame", g)
			if g.Overflow == nil || g.Overflow.Height <= 0 {
				t.Fatalf("overflow frame: [data-testid=overflow] missing or flat: %+v", g.Overflow)
			}
			// The spill marks the part of the stack past the limit: it ends
			// where the stack ends and starts inside the block holding
			// token 50,000.
			last := g.Blocks[len(g.Blocks)-1]
			if end := g.Overflow.Top + g.Overflow.Height; math.Abs(end-(last.Top+last.Height)) > 1.5 {
				t.Errorf("overflow frame: overflow ends at %.2f px, the stack at %.2f px", end, last.Top+last.Height)
			}
			// The drawing scale fits the lesson's tallest box (this one) into
			// the viewport: nothing of it hides behind the sticky step bar.
			if g.BoxBot > g.BarTop+1 || g.BoxBot > g.InnerH {
				t.Errorf("overflow frame: window box ends at %.2f px, below the step bar (%.2f px) or the viewport (%v px)", g.BoxBot, g.BarTop, g.InnerH)
			}
			if i, _ := blockHolding(tokens, cmWindow); i < 0 {
				t.Errorf("overflow frame: the stack (%v tokens) does not pass the limit", tokens)
			} else if e := g.Overflow.Top; e < g.Blocks[i].Top-1 || e > g.Blocks[i].Top+g.Blocks[i].Height+1 {
				t.Errorf("overflow frame: overflow starts at %.2f px, not inside block %s that holds token %d", e, g.Blocks[i].ID, cmWindow)
			}
		})
	}
}

// readStepTotal reads the total from the step label ("Step 8 of 10").
func readStepTotal(b *chromeTab) string {
	b.t.Helper()
	got, err := b.pollJS(jsText(tid("step-label")), func(s string) bool {
		return regexp.MustCompile(`^Step \d+ of \d+`).MatchString(s)
	})
	if err != nil {
		b.t.Fatalf("step label: %q (%v)", got, err)
	}
	return regexp.MustCompile(`of (\d+)`).FindStringSubmatch(got)[1]
}

func atoiOrFatal(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("not a number: %q", s)
	}
	return n
}

func TestBrowserBackButton(t *testing.T) {
	b := browser(t, 1440, 900, true)
	b.open(cmURL("en", cmPolicy, 3))
	b.waitStep(3, cmSteps)
	for n := 4; n <= 5; n++ {
		b.clickID("step-next")
		b.waitStep(n, cmSteps)
		b.waitPath(cmURL("en", cmPolicy, n))
	}
	b.back()
	b.waitStep(4, cmSteps)
	b.waitPath(cmURL("en", cmPolicy, 4))
	b.waitMeter("47.9k / 50k")
	b.back()
	b.waitStep(3, cmSteps)
	b.waitPath(cmURL("en", cmPolicy, 3))
	b.waitMeter("5.3k / 50k")
}

// back runs chromedp.NavigateBack. Its wait for a load event is bounded:
// an entry that htmx restores from its history cache is a same-document
// navigation, and a page from the back/forward cache fires no load event,
// so the caller polls the state the page shows instead.
func (b *chromeTab) back() {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 3*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.NavigateBack()); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		b.t.Fatalf("back: %v", err)
	}
}

func TestBrowserNoJavaScript(t *testing.T) {
	b := browser(t, 1440, 900, false)
	b.open(cmURL("en", cmPolicy, 1))
	b.waitStep(1, cmSteps)
	if got := mustEval[string](b, `typeof htmx`); got != "undefined" {
		t.Fatalf("scripts are not off: typeof htmx = %q", got)
	}

	// No script, no keyboard map: the arrow key leaves the page alone.
	b.key(kb.ArrowRight)
	b.do("settle", chromedp.Sleep(300*time.Millisecond))
	if got := b.path(); got != cmURL("en", cmPolicy, 1) {
		t.Errorf("ArrowRight with scripts off moved to %s", got)
	}
	b.waitStep(1, cmSteps)

	// The step link is a plain link: a full navigation to step 2.
	b.clickID("step-next")
	b.waitPath(cmURL("en", cmPolicy, 2))
	b.waitStep(2, cmSteps)
	b.waitMeter(cmMeters[1])

	// A mode link is a plain link too.
	b.clickID("mode-compaction-off")
	got, err := b.pollJS(`location.pathname`, func(s string) bool { return strings.Contains(s, "compaction-off") })
	if err != nil {
		t.Fatalf("mode-compaction-off: path %q (%v)", got, err)
	}
	if !regexp.MustCompile(`^/en/context-memory/compaction-off\.memory-on\.threshold-92\.rec-1/\d+$`).MatchString(got) {
		t.Errorf("mode-compaction-off: path %q", got)
	}
	readStepTotal(b) // the page renders a step label
	if got := mustEval[string](b, `document.querySelector('[data-testid="mode-compaction-off"]')?.getAttribute("aria-current") ?? ""`); got != "true" {
		t.Errorf("after switching: mode-compaction-off aria-current = %q, want \"true\"", got)
	}
}

func TestBrowserLanguage(t *testing.T) {
	b := browser(t, 1440, 900, true)
	ctx, cancel := context.WithTimeout(b.ctx, browserCall)
	defer cancel()
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("network.Enable: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Accept-Language": "ja"}}); err != nil {
		t.Fatalf("set Accept-Language: %v", err)
	}
	b.open("/")
	if got := mustEval[string](b, `document.documentElement.lang`); got != "ja" {
		t.Fatalf("/ with Accept-Language ja: html lang = %q, want \"ja\"", got)
	}

	b.open(cmURL("ja", cmPolicy, 5))
	if got := mustEval[string](b, `document.documentElement.lang`); got != "ja" {
		t.Fatalf("%s: html lang = %q, want \"ja\"", cmURL("ja", cmPolicy, 5), got)
	}
	if got, want := b.text(tid("step-label")), fmt.Sprintf("ステップ 5 / %d", cmSteps); !strings.HasPrefix(got, want) {
		t.Errorf("Japanese step label = %q, want it to start with %q", got, want)
	}
	b.clickID("lang-switch")
	b.waitPath(cmURL("en", cmPolicy, 5))
	b.waitStep(5, cmSteps) // English label, same step
	// The page is English now, so the document must say so (screen readers
	// pick the voice from it), however the page got there.
	if got := mustEval[string](b, `document.documentElement.lang`); got != "en" {
		t.Errorf("after lang-switch to %s: html lang = %q, want \"en\" (title %q)",
			mustEval[string](b, `location.pathname`), got, mustEval[string](b, `document.title`))
	}
}

func TestBrowserSheet(t *testing.T) {
	b := browser(t, 1440, 900, true)
	b.open(cmURL("en", cmPolicy, 4))
	b.waitStep(4, cmSteps)
	if got := mustEval[string](b, `getComputedStyle(document.getElementById("sheet-m-file")).display`); got != "none" {
		t.Fatalf("sheet-m-file is shown before the block is clicked (display %s)", got)
	}
	b.click(`a[data-testid=block][data-id=m-file]`)
	b.waitJS("location.hash", `location.hash`, "#sheet-m-file")
	b.waitJS("sheet visible", `(() => {
		const s = document.getElementById("sheet-m-file");
		const r = s.querySelector(".sheet-inner").getBoundingClientRect();
		return String(getComputedStyle(s).display !== "none" && r.width > 0 && r.height > 0 && r.left < innerWidth);
	})()`, "true")
	if got := b.path(); got != cmURL("en", cmPolicy, 4) {
		t.Errorf("clicking a block left the state: path %s", got)
	}
	txt := b.text("#sheet-m-file")
	if !strings.Contains(txt, "19,000") {
		t.Errorf("sheet-m-file does not show 19,000: %q", txt)
	}
	ex := b.text("#sheet-m-file [data-testid=excerpt-count]")
	m := regexp.MustCompile(`^\d{1,3}(,\d{3})*`).FindString(ex)
	if m == "" {
		t.Fatalf("excerpt-count %q does not start with a number", ex)
	}
	if n := atoiOrFatal(t, strings.ReplaceAll(m, ",", "")); n <= 0 || n >= 19000 {
		t.Errorf("excerpt-count = %d (%q), want 0 < n < 19000", n, ex)
	}
}

func TestBrowserConsoleAndCSP(t *testing.T) {
	b := browser(t, 1440, 900, true)

	var mu sync.Mutex
	var problems []string
	report := func(s string) { mu.Lock(); problems = append(problems, s); mu.Unlock() }
	if err := chromedp.Listen(b.ctx, func(ev any) {
		switch ev := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if ev.Type == runtime.ConsoleAPICalledTypeError || ev.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range ev.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				report("console." + string(ev.Type) + ": " + strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			report("exception: " + ev.ExceptionDetails.Text + " " + exceptionDescription(ev.ExceptionDetails))
		case *log.EventEntryAdded:
			if ev.Entry.Level == log.EntryLevelError || ev.Entry.Source == log.EntrySourceSecurity {
				report(fmt.Sprintf("log %s/%s: %s %s", ev.Entry.Source, ev.Entry.Level, ev.Entry.Text, ev.Entry.URL))
			}
		}
	}); err != nil {
		t.Fatalf("listen: %v", err)
	}
	// Record CSP violations in the page from before any page script runs.
	ctx, cancel := context.WithTimeout(b.ctx, browserCall)
	defer cancel()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
		window.__csp = [];
		document.addEventListener("securitypolicyviolation", e => window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile + ":" + e.lineNumber));
	`}); err != nil {
		t.Fatalf("add CSP listener: %v", err)
	}

	b.open(cmURL("en", cmPolicy, 3))
	b.waitStep(3, cmSteps)
	for n := 4; n <= 5; n++ {
		b.key(kb.ArrowRight)
		b.waitStep(n, cmSteps)
		b.waitPath(cmURL("en", cmPolicy, n))
	}
	b.waitMeter("47.9k / 50k")
	if v := mustEval[[]string](b, `window.__csp`); len(v) > 0 {
		t.Errorf("CSP violations: %q", v)
	}
	mu.Lock()
	if len(problems) > 0 {
		t.Errorf("console errors or CSP reports while stepping: %q", problems)
	}
	mu.Unlock()

	// The detector itself works: an inline <style> is a violation.
	mustEval[bool](b, `(() => { const s = document.createElement("style"); s.textContent = "body{}"; document.head.appendChild(s); return true; })()`)
	b.waitJS("the probe violation is seen", `String(window.__csp.length > 0)`, "true")
}

func exceptionDescription(d *runtime.ExceptionDetails) string {
	if d == nil || d.Exception == nil {
		return ""
	}
	return d.Exception.Description
}
