package export

// A static copy in a real browser (Debian Chromium driven by chromedp, as
// in package web; the test fails, never skips, without Chromium): the page
// script runs under the CSP of the meta tag, steps without reloading from
// a plain static host, the step field works without a server, a query the
// copy cannot apply is said so, no room script loads, and the language
// switch and the Compare link lead to pages of the copy.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"ctxsim/internal/testbrowser"
)

const (
	browserTimeout = 60 * time.Second
	browserWait    = 10 * time.Second
)

type tab struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// newTab starts a headless Chromium with its own profile on a 1440×900
// viewport, recording CSP violations on every page from before any script.
func newTab(t *testing.T, origin string) *tab {
	t.Helper()
	exe, err := testbrowser.Path()
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Headless, chromedp.Flag("disable-background-networking", true), chromedp.Flag("no-first-run", true),
		chromedp.Flag("force-prefers-reduced-motion", true), chromedp.WindowSize(1440, 900), chromedp.UserDataDir(t.TempDir()))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, bcancel := chromedp.NewContext(actx)
	t.Cleanup(func() {
		cctx, cancel := context.WithTimeout(bctx, 10*time.Second)
		defer cancel()
		_ = chromedp.Cancel(cctx)
		bcancel()
		acancel()
	})
	if err := chromedp.Do(bctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	ctx, cancel := context.WithTimeout(bctx, browserTimeout)
	t.Cleanup(cancel)
	b := &tab{t: t, ctx: ctx, base: origin}
	b.do("viewport", chromedp.EmulateViewport(1440, 900))
	cctx, ccancel := context.WithTimeout(ctx, browserWait)
	defer ccancel()
	if _, err := chromedp.Call(cctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: `
		window.__csp = [];
		document.addEventListener("securitypolicyviolation", e => window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline")));
	`}); err != nil {
		t.Fatalf("add CSP listener: %v", err)
	}
	return b
}

func (b *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, browserWait)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v", what, err)
	}
}

func (b *tab) open(p string) { b.t.Helper(); b.do("open "+p, chromedp.Navigate(b.base+p)) }

func eval[T any](b *tab, expr string) (T, error) {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	return chromedp.Run(ctx, chromedp.Evaluate[T](expr))
}

// wait polls a string expression until it equals want.
func (b *tab) wait(what, expr, want string) {
	b.t.Helper()
	deadline := time.Now().Add(browserWait)
	var last string
	var lastErr error
	for time.Now().Before(deadline) {
		v, err := eval[string](b, expr)
		if err == nil && v == want {
			return
		}
		last, lastErr = v, err
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("%s: want %q, last %q (%v)", what, want, last, lastErr)
}

// ready waits until the page script ran: it shows the script-only controls.
func (b *tab) ready() {
	b.t.Helper()
	b.wait("the page script ran", `String(document.querySelectorAll(".js-only[hidden]").length === 0 && document.documentElement.dataset.nav !== "busy")`, "true")
}

func (b *tab) noViolations() {
	b.t.Helper()
	if v, err := eval[[]string](b, `window.__csp`); err != nil || len(v) > 0 {
		b.t.Errorf("CSP violations: %q (%v)", v, err)
	}
}

func TestBrowserStaticCopy(t *testing.T) {
	e := mustExport(t, baseExport)
	ts := host(t, e, false)
	b := newTab(t, ts.URL)
	steps := fmt.Sprintf("/ctxsim/en/many-steps/%s/", "memory-on")
	n := framesOf(t, e, "many-steps")

	// The script runs under the meta CSP, and the CSP is enforced: an inline
	// script is blocked and reported.
	b.open(steps + "5/")
	b.ready()
	b.noViolations()
	if _, err := eval[bool](b, `(() => { const s = document.createElement("script"); s.textContent = "window.__inline = 1"; document.head.appendChild(s); return true; })()`); err != nil {
		t.Fatal(err)
	}
	b.wait("the meta CSP blocks an inline script", `String(window.__inline === undefined && window.__csp.length === 1)`, "true")

	// Stepping swaps the next page in, fetched from the static host.
	b.open(steps + "5/")
	b.ready()
	if _, err := eval[bool](b, `(window.__samePage = true)`); err != nil {
		t.Fatal(err)
	}
	b.do("ArrowRight", chromedp.KeyEvent(kb.ArrowRight))
	b.wait("step 6", `location.pathname`, steps+"6/")
	b.wait("step 6 label", `document.querySelector("[data-testid=step-label]").textContent.trim().split(" ").slice(0, 4).join(" ")`, fmt.Sprintf("Step 6 of %d", n))
	if same, _ := eval[bool](b, `window.__samePage === true`); !same {
		t.Errorf("stepping loaded a new document; the script should swap the page in")
	}

	// The step field goes to the step's page without a server.
	target := n - 3
	b.do("type a step", chromedp.SetValue(chromedp.CSS(`[data-testid=jump] input`), fmt.Sprint(target)),
		chromedp.SendKeys(chromedp.CSS(`[data-testid=jump] input`), kb.Enter))
	b.wait("the step field's step", `location.pathname + " " + String(window.__samePage)`, fmt.Sprintf("%s%d/ true", steps, target))
	b.ready()
	b.noViolations()

	// A query the copy cannot apply is said so.
	b.open(steps + "2/?memory=off")
	b.ready()
	b.wait("the static-query note", `(document.querySelector("[data-testid=static-query]")?.textContent ?? "")`, textOf(t, e, "en", "js.static-query"))

	// The presenter view has no room: no slot, no room script.
	b.open(steps + "2/present/")
	b.ready()
	if v, _ := eval[string](b, `String(!!window.ctxsimRoom) + " " + document.querySelectorAll("script[src*='room'], .room-slot").length`); v != "false 0" {
		t.Errorf("presenter view: room script loaded, room slots: %s; want none", v)
	}

	// The language switch and the Compare link lead to pages of the copy.
	b.open(steps + "2/")
	b.ready()
	b.do("language", chromedp.Click(chromedp.CSS(`[data-testid=lang-switch]`)))
	b.wait("Japanese page", `location.pathname + " " + document.documentElement.lang`, "/ctxsim/ja/many-steps/memory-on/2/ ja")
	b.ready()
	b.do("compare", chromedp.Click(chromedp.CSS(`[data-testid=compare-toggle]`)))
	b.wait("comparison", `location.pathname + " " + document.querySelector("#app").dataset.view`, "/ctxsim/ja/many-steps/memory-on/vs/memory-off/2/ compare")
	b.noViolations()
}

// textOf is a message of the built-in catalog, as messages.js gives it to
// the scripts.
func textOf(t *testing.T, e *exported, lang, key string) string {
	t.Helper()
	var js string
	for _, a := range e.site.Assets {
		if strings.Contains(a, "/messages.") {
			js = readFile(t, e.dir, strings.TrimPrefix(a, "/"))
		}
	}
	i := strings.Index(js, "{")
	var all map[string]map[string]string
	if i < 0 || json.Unmarshal([]byte(strings.TrimRight(js[i:], ";\n")), &all) != nil {
		t.Fatalf("messages.js is not a JSON object assignment: %.80s", js)
	}
	short := strings.TrimPrefix(key, "js.")
	if all[lang][short] == "" {
		t.Fatalf("messages.js has no %s.%s", lang, short)
	}
	return all[lang][short]
}
