package web

// Real-browser tests: Debian chromium driven by chromedp (v0.23.0, generic
// API). They fail, never skip, when chromium is missing, so CI runs them.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"ctxsim/internal/testbrowser"
)

const (
	browserTestTimeout = 60 * time.Second // whole test, browser included
	browserWait        = 10 * time.Second // one wait for a page condition
	browserCall        = 5 * time.Second  // one protocol round trip

	cmPolicy   = "compaction-on.memory-on.threshold-92.rec-1"
	cmOverflow = "compaction-off.memory-on.threshold-92.rec-1"
	cmSteps    = 14
	cmWindow   = 50000
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
	p, err := testbrowser.Path()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// browser opens a tab of the test binary's one Chromium on the shared
// ctxsim server, in a browser context of its own (no cookie, storage or
// cache shared with other tests), with a width×height viewport, scripts on
// or off.
func browser(t *testing.T, width, height int, js bool) *chromeTab {
	t.Helper()
	ts := startHTTP(t, newTestServer(t))
	return openTab(t, ts.URL, width, height, js, browserTestTimeout)
}

// openTab opens a tab on base: see browser. Its protocol calls end when
// the test does, or after timeout.
func openTab(t *testing.T, base string, width, height int, js bool, timeout time.Duration) *chromeTab {
	t.Helper()
	tctx := startChromium(t)
	ctx, cancel := context.WithTimeout(tctx, timeout)
	t.Cleanup(cancel)
	b := &chromeTab{t: t, ctx: ctx, base: base}
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

// chromium is the test binary's one headless Debian Chromium, started by
// the first test that needs it and closed by TestMain: starting one takes
// a second or two of the two cores the suite runs on. Background tabs
// keep their timers (the room tests run several tabs at once), and motion
// is reduced unless a test emulates otherwise.
var chromium struct {
	once   sync.Once
	ctx    context.Context
	cancel func()
	err    error
}

// browserTmp is the temporary directory the test binary started with: the
// shared Chromium keeps its profile and files there whatever TMPDIR the
// test that starts it sets (the upload test watches its own).
var browserTmp = os.TempDir()

// TestMain closes the shared Chromium and its tabs after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, tab := range tabPool.free {
		tab.cancel()
	}
	if chromium.cancel != nil {
		chromium.cancel()
	}
	os.Exit(code)
}

// startChromium gives the test a clean tab of the shared Chromium, in a
// browser context of its own, and returns its context; the tab goes back
// to the pool when the test ends (see giveBack). It fails (never skips)
// without Chromium.
func startChromium(t *testing.T) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	chromium.once.Do(func() {
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
			chromedp.Flag("disable-background-timer-throttling", true),
			chromedp.Flag("disable-renderer-backgrounding", true),
			chromedp.Flag("disable-backgrounding-occluded-windows", true),
			// No back/forward cache: with it, leaving a page (the audit's
			// hop through about:blank) keeps its renderer and starts
			// another, 0.8-1.2 s of CPU a page load against 0.2-0.3 s
			// without (measured in Debian's full chromium). Tests go back only within a document (the entries
			// app.js pushes), which the cache does not touch. The other
			// disabled features are chromedp's defaults, which this flag
			// replaces.
			chromedp.Flag("disable-features", "BackForwardCache,Translate,BlinkGenPropertyTrees"),
			chromedp.WindowSize(1440, 900),
			chromedp.Env("TMPDIR="+browserTmp),
		)
		dir, err := os.MkdirTemp(browserTmp, "ctxsim-chromium-")
		if err != nil {
			chromium.err = err
			return
		}
		actx, acancel := chromedp.NewExecAllocator(context.Background(), append(opts, chromedp.UserDataDir(dir))...)
		bctx, bcancel := chromedp.NewContext(actx)
		chromium.ctx = bctx
		chromium.cancel = func() {
			cctx, cancel := context.WithTimeout(bctx, 10*time.Second)
			defer cancel()
			_ = chromedp.Cancel(cctx) // close the browser before its profile is removed
			bcancel()
			acancel()
			os.RemoveAll(dir)
		}
		// The first Run binds the browser's life to its context: start it
		// with no timeout; tests give their tabs their own deadlines.
		chromium.err = chromedp.Do(bctx)
	})
	if chromium.err != nil {
		t.Fatalf("start chromium %s: %v", exe, chromium.err)
	}
	tab, err := takeTab()
	if err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	t.Cleanup(func() { giveBack(t, tab) })
	return tab.ctx
}

// pooledTab is a tab of the shared Chromium and what closes it.
type pooledTab struct {
	ctx    context.Context
	cancel func()
}

// tabPool holds the clean tabs no test is using. A new tab in a browser
// context of its own cost 2.5-2.7 s of CPU in Debian's full chromium (a
// renderer starts, then the first page compiles everything), a page in a
// used tab 0.25 s.
var tabPool struct {
	mu   sync.Mutex
	free []pooledTab
}

// takeTab takes a clean tab from the pool, or opens one.
func takeTab() (pooledTab, error) {
	tabPool.mu.Lock()
	if n := len(tabPool.free); n > 0 {
		tab := tabPool.free[n-1]
		tabPool.free = tabPool.free[:n-1]
		tabPool.mu.Unlock()
		return tab, nil
	}
	tabPool.mu.Unlock()
	ctx, cancel := chromedp.NewContext(chromium.ctx, chromedp.WithNewBrowserContext())
	// The first Run opens the tab and binds its life to the context it is
	// given: this one, not a test's shorter deadline.
	if err := chromedp.Do(ctx); err != nil {
		cancel()
		return pooledTab{}, err
	}
	return pooledTab{ctx, cancel}, nil
}

// giveBack resets a test's tab and puts it back in the pool: it leaves
// the test's page (its timers, streams and dialogs end there), forgets the
// browser context's cookies (the one thing the next test's server, on
// another port, could see: its pages, storage and cache are another
// origin's) and undoes what a test may emulate. A tab whose test failed,
// or whose reset fails, is closed instead.
func giveBack(t *testing.T, tab pooledTab) {
	if t.Failed() {
		tab.cancel()
		return
	}
	ctx, cancel := context.WithTimeout(tab.ctx, browserWait)
	defer cancel()
	online := network.OverrideNetworkStateParams{DownloadThroughput: -1, UploadThroughput: -1}
	err := chromedp.Do(ctx, chromedp.Navigate("about:blank"))
	for _, call := range []func() error{
		func() error { _, err := chromedp.Call(ctx, network.ClearBrowserCookies, cdp.Empty{}); return err },
		func() error {
			_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{}})
			return err
		},
		func() error { _, err := chromedp.Call(ctx, network.OverrideNetworkState, online); return err },
		func() error { _, err := chromedp.Call(ctx, emulateNetworkConditions, online); return err },
		func() error {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{})
			return err
		},
		func() error {
			_, err := chromedp.Call(ctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{})
			return err
		},
	} {
		if err == nil {
			err = call()
		}
	}
	if err != nil {
		tab.cancel()
		return
	}
	tabPool.mu.Lock()
	tabPool.free = append(tabPool.free, tab)
	tabPool.mu.Unlock()
}

// recordCSP records the CSP violations of every document the tab loads
// until the test ends in window.__csp, from before any page script runs.
func recordCSP(b *chromeTab) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserCall)
	defer cancel()
	id, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
		window.__csp = [];
		document.addEventListener("securitypolicyviolation", e => window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " + e.sourceFile + ":" + e.lineNumber));
	`})
	if err != nil {
		b.t.Fatalf("add CSP listener: %v", err)
	}
	b.t.Cleanup(func() { // before the tab's context ends
		ctx, cancel := context.WithTimeout(b.ctx, browserCall)
		defer cancel()
		_, _ = chromedp.Call(ctx, page.RemoveScriptToEvaluateOnNewDocument, page.RemoveScriptToEvaluateOnNewDocumentParams{Identifier: id.Identifier})
	})
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

// settledJS is true when no navigation is in flight: app.js marks one on
// <html data-nav> from the fetch to the swap.
const settledJS = `String(document.documentElement.dataset.nav !== "busy")`

// waitSettled waits until the page script has swapped in the last page it
// fetched (at once when scripts are off).
func (b *chromeTab) waitSettled() {
	b.t.Helper()
	b.waitJS("navigation settled", settledJS, "true")
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
	// with scripts on, app.js swaps #app and pushes the URL.
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
			if got := b.blockIDs(`.row.is-selected [data-testid=block]`); !slices.Equal(got, want) {
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
		t.Errorf("a step reloaded the whole document: app.js navigation is not in effect")
	}
	// Focus stays on the control that led to the next page: a mode option
	// taken with the keyboard is focused there. app.js keys it by its
	// data-control, not its test id: the page here has none left.
	mustEval[bool](b, `(document.querySelectorAll("[data-testid]").forEach(e => e.removeAttribute("data-testid")),
		document.querySelector('[data-control="mode-compaction-off"]').focus(), true)`)
	b.key(kb.Enter)
	if _, err := b.pollJS(`location.pathname`, func(p string) bool { return strings.Contains(p, "/"+cmOverflow+"/") }); err != nil {
		t.Fatalf("the compaction-off option did not lead to %s: %v", cmOverflow, err)
	}
	if got := mustEval[string](b, `document.activeElement?.dataset.control ?? document.activeElement?.tagName`); got != "mode-compaction-off" {
		t.Errorf("after a mode option, focus is on %q; want the same option on the next page", got)
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
// an entry app.js pushed is a same-document navigation, and a page from
// the back/forward cache fires no load event, so the caller polls the
// state the page shows instead.
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
	if got := mustEval[string](b, `typeof ctxsimNav`); got != "undefined" {
		t.Fatalf("scripts are not off: typeof ctxsimNav = %q", got)
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

	// A block's sheet links to its text, which opens as a plain document.
	b.open(cmURL("en", cmPolicy, 4) + "#sheet-m-file")
	b.click(`#sheet-m-file .sheet-text a`)
	got, err = b.pollJS(`location.pathname`, func(s string) bool { return strings.HasSuffix(s, ".txt") })
	if err != nil || !strings.HasPrefix(got, "/en/context-memory/text/") {
		t.Fatalf("the sheet's text link: path %q (%v)", got, err)
	}
	res, err := http.Get(b.base + "/api/lessons/context-memory/frames")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var api struct {
		Frames []struct {
			Blocks []struct{ ID, Content string }
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&api); err != nil {
		t.Fatal(err)
	}
	want := ""
	for _, bl := range api.Frames[3].Blocks {
		if bl.ID == "m-file" {
			want = strings.TrimRight(bl.Content, "\n")
		}
	}
	if got := mustEval[string](b, `document.body.innerText`); want == "" || strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("the text link shows %q; want the block's text %q", got, want)
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
	const shown = `(() => {
		const s = document.getElementById("sheet-m-file");
		const r = s.querySelector(".sheet-inner").getBoundingClientRect();
		return String(getComputedStyle(s).display !== "none" && r.width > 0 && r.height > 0 && r.left < innerWidth);
	})()`
	b.click(`rect[data-testid=block][data-id=m-file]`)
	b.waitJS("sheet visible", shown, "true")
	if got := b.path(); got != cmURL("en", cmPolicy, 4) {
		t.Errorf("clicking a block left the state: path %s", got)
	}
	txt := b.text("#sheet-m-file")
	if !strings.Contains(txt, "19,000") {
		t.Errorf("sheet-m-file does not show 19,000: %q", txt)
	}
	// The page does not carry the block's text: the sheet loads it when it
	// opens, and shows what the frames API says the block holds.
	mustEval[string](b, `window.__want = null; fetch("/api/lessons/context-memory/frames").then(r => r.json()).then(f => {
		window.__want = f.frames[3].blocks.find(x => x.id === "m-file").content.replace(/\n+$/, "");
	}); "asked"`)
	b.waitJS("sheet text loaded", `String(window.__want !== null && document.querySelector("#sheet-m-file .sheet-text").getAttribute("data-loaded"))`, "true")
	if got := mustEval[bool](b, `window.__want.length > 20 && document.querySelector("#sheet-m-file .sheet-text").textContent === window.__want`); !got {
		t.Errorf("the sheet shows %q; want the block's text from the frames API", b.text("#sheet-m-file .sheet-text"))
	}
	if mustEval[bool](b, `document.documentElement.outerHTML.includes(window.__want.slice(0, 60))`) == mustEval[bool](b, `document.querySelector("#sheet-m-file .sheet-text").textContent === ""`) {
		t.Errorf("the block's text is in the page before its sheet loads it (or nowhere after)")
	}
	ex := b.text("#sheet-m-file [data-testid=excerpt-count]")
	m := regexp.MustCompile(`^\d{1,3}(,\d{3})*$`).FindString(ex)
	if m == "" {
		t.Fatalf("excerpt-count %q is not a number", ex)
	}
	if n := atoiOrFatal(t, strings.ReplaceAll(m, ",", "")); n <= 0 || n >= 19000 {
		t.Errorf("excerpt-count = %d (%q), want 0 < n < 19000", n, ex)
	}
	// Escape closes the sheet and gives focus back to the block's row.
	b.key(kb.Escape)
	b.waitJS("sheet closed", shown, "false")
	if got := mustEval[string](b, `document.activeElement?.getAttribute("data-row") ?? document.activeElement?.tagName`); got != "m-file" {
		t.Errorf("after Escape, focus is on %q; want the row m-file", got)
	}
	// A deep link to a sheet (no script needed) closes with Escape too.
	b.open(cmURL("en", cmPolicy, 4) + "#sheet-m-file")
	b.waitJS("deep-linked sheet visible", shown, "true")
	b.key(kb.Escape)
	b.waitJS("deep-linked sheet closed", shown, "false")
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
	recordCSP(b)

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
