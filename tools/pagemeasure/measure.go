package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

const (
	startTimeout = 30 * time.Second // chromium up and answering
	closeTimeout = 10 * time.Second // chromium closed gracefully
	pollEvery    = 50 * time.Millisecond
	// quiet is how long the network must stay idle (nothing open, no
	// event) after the load event before a visit is over, so that
	// requests made after load count too.
	quiet = 500 * time.Millisecond
)

// options are the settings of a measurement.
type options struct {
	runs     int           // cold visits per URL; the report is their median
	chromium string        // Chromium binary
	width    int           // viewport width, CSS pixels
	height   int           // viewport height, CSS pixels
	timeout  time.Duration // bound of one visit, settle and timings included
	verbose  io.Writer     // when not nil, gets a line per visit
}

// visitResult is what one cold visit cost.
type visitResult struct {
	detail   []request // every request that ended, in order
	bytes    int64
	requests int
	failed   int
	fcpMS    float64
	loadMS   float64
}

// result is the median of the cold visits of one URL.
type result struct {
	URL      string  `json:"url"`
	Bytes    int64   `json:"bytes"`
	Requests int     `json:"requests"`
	Failed   int     `json:"failed"`
	FCPMS    float64 `json:"fcp_ms"`
	LoadMS   float64 `json:"load_ms"`
	Runs     int     `json:"runs"`
}

// chrome is one running headless Chromium. Each visit opens a tab in a
// BrowserContext of its own (an incognito-like profile: empty memory
// cache, no cookies, no service workers) and disposes of it afterwards.
type chrome struct {
	ctx     context.Context // chromedp browser context; visits derive from it
	version string          // e.g. "148.0.7778.167"
	close   func()
}

// missingChromium is the error for a Chromium binary that is not there.
func missingChromium(path string, err error) error {
	return fmt.Errorf("chromium not found at %s (%w): run `apt-get install chromium`, or set CTXSIM_CHROMIUM (or -chromium) to a Chromium binary", path, err)
}

// checkChromium fails with an installation hint when path is not an
// executable file.
func checkChromium(path string) error {
	fi, err := os.Stat(path)
	switch {
	case err != nil:
		return missingChromium(path, err)
	case fi.IsDir() || fi.Mode().Perm()&0o111 == 0:
		return missingChromium(path, errors.New("not an executable file"))
	}
	return nil
}

// startChrome starts a headless Chromium with its own temporary profile.
// ctx ends the browser; close stops it gracefully and removes the profile.
func startChrome(ctx context.Context, opts options) (*chrome, error) {
	if err := checkChromium(opts.chromium); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "pagemeasure-profile-")
	if err != nil {
		return nil, fmt.Errorf("chromium profile directory: %w", err)
	}
	actx, acancel := chromedp.NewExecAllocator(ctx, allocatorOptions(opts, dir)...)
	bctx, bcancel := chromedp.NewContext(actx)
	closeAll := func() {
		cctx, cancel := context.WithTimeout(bctx, closeTimeout)
		defer cancel()
		_ = chromedp.Cancel(cctx) // close the browser before its profile goes
		bcancel()
		acancel()
		_ = os.RemoveAll(dir)
	}
	// The first Run binds the browser's life to its context, so it gets no
	// deadline: a timer cancels a start that hangs.
	hung := time.AfterFunc(startTimeout, acancel)
	err = chromedp.Do(bctx)
	if !hung.Stop() && err == nil {
		err = fmt.Errorf("no answer within %s", startTimeout)
	}
	if err != nil {
		closeAll()
		return nil, fmt.Errorf("start chromium %s: %w", opts.chromium, err)
	}
	version, err := chromeVersion(bctx)
	if err != nil {
		closeAll()
		return nil, err
	}
	return &chrome{ctx: bctx, version: version, close: closeAll}, nil
}

// allocatorOptions are the command line of a measuring Chromium: headless,
// no GPU, no background traffic of its own (component updates, QUIC
// probes), default Accept-Encoding (gzip, deflate, br, zstd).
func allocatorOptions(opts options, profile string) []chromedp.ExecAllocatorOption {
	return append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(opts.chromium),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Headless,
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("no-first-run", true),
		chromedp.WindowSize(opts.width, opts.height),
		chromedp.UserDataDir(profile),
	)
}

// chromeVersion asks the browser for its version number.
func chromeVersion(ctx context.Context) (string, error) {
	cctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	v, err := chromedp.CallBrowser(cctx, browser.GetVersion, cdp.Empty{})
	if err != nil {
		return "", fmt.Errorf("chromium version: %w", err)
	}
	// Product is "HeadlessChrome/148.0.7778.167" or "Chrome/…".
	_, num, ok := strings.Cut(v.Product, "/")
	if !ok {
		return v.Product, nil
	}
	return num, nil
}

// measure makes opts.runs cold visits of url and returns their median.
// It stops at the first visit that fails.
func measure(ctx context.Context, c *chrome, opts options, url string) (result, error) {
	visits := make([]visitResult, 0, opts.runs)
	for i := range opts.runs {
		v, err := c.visit(ctx, opts, url)
		if err != nil {
			return result{}, fmt.Errorf("%s: visit %d of %d: %w", url, i+1, opts.runs, err)
		}
		visits = append(visits, v)
		if opts.verbose != nil {
			printVisit(opts.verbose, url, i+1, v)
		}
	}
	return summarize(url, visits), nil
}

// visit loads url once in a fresh tab of a fresh BrowserContext with the
// cache disabled, waits until the network is idle after the load event,
// and reads the traffic and the paint and load timings.
func (c *chrome) visit(ctx context.Context, opts options, url string) (visitResult, error) {
	tctx, cancel := context.WithTimeout(c.ctx, opts.timeout)
	defer cancel()
	defer context.AfterFunc(ctx, cancel)() // the caller's ctx ends the visit too
	vctx, vcancel := chromedp.NewContext(tctx, chromedp.WithNewBrowserContext())
	defer vcancel() // closes the tab and disposes of its BrowserContext

	tr := newTraffic()
	tm, err := loadAndRead(vctx, opts, url, tr)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("%w (visit timeout %s)", err, opts.timeout)
		}
		return visitResult{}, err
	}
	s := tr.snapshot()
	return visitResult{detail: s.requests, bytes: s.bytes, requests: s.finished, failed: s.failed, fcpMS: tm.FCP, loadMS: tm.Load}, nil
}

// loadAndRead opens the tab, loads url, waits until the network is idle,
// and reads the timings.
func loadAndRead(ctx context.Context, opts options, url string, tr *traffic) (timings, error) {
	if err := openTab(ctx, opts, tr); err != nil {
		return timings{}, err
	}
	if err := load(ctx, url); err != nil {
		return timings{}, err
	}
	if err := waitSettled(ctx, tr); err != nil {
		return timings{}, err
	}
	return readTimings(ctx)
}

// openTab opens the visit's tab, subscribes tr to its events, disables
// the cache and sets the viewport, before any navigation.
func openTab(ctx context.Context, opts options, tr *traffic) error {
	if err := chromedp.Do(ctx); err != nil {
		return fmt.Errorf("open tab: %w", err)
	}
	if err := chromedp.Listen(ctx, tr.observe); err != nil {
		return fmt.Errorf("listen to the tab: %w", err)
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return fmt.Errorf("disable cache: %w", err)
	}
	// Headless --window-size includes window decorations: emulate the
	// viewport size exactly.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(int64(opts.width), int64(opts.height))); err != nil {
		return fmt.Errorf("set viewport: %w", err)
	}
	return nil
}

// load navigates to url and waits for the load event. A main document
// with an HTTP status of 400 or more is an error.
func load(ctx context.Context, url string) error {
	resp, err := chromedp.Run(ctx, chromedp.NavigateResponse(url))
	switch {
	case err != nil:
		return fmt.Errorf("load: %w", err)
	case resp == nil:
		return errors.New("load: no HTTP response for the main document")
	case resp.Status >= 400:
		return fmt.Errorf("load: main document answered HTTP %d %s", resp.Status, resp.StatusText)
	}
	return nil
}

// waitSettled waits until no request is open and the network has been
// quiet for a while.
func waitSettled(ctx context.Context, tr *traffic) error {
	return pollUntil(ctx, "network idle after load", func() (bool, error) {
		return tr.settled(quiet), nil
	})
}

// timings are the paint and load times of the page, in ms from the start
// of the navigation; zero until the browser has them.
type timings struct {
	FCP  float64 `json:"fcp"`
	Load float64 `json:"load"`
}

// timingsJS reads first-contentful-paint and loadEventEnd - startTime of
// the navigation entry.
const timingsJS = `(() => {
	const p = performance.getEntriesByName('first-contentful-paint')[0];
	const n = performance.getEntriesByType('navigation')[0];
	return {
		fcp: p ? p.startTime : 0,
		load: n && n.loadEventEnd > 0 ? n.loadEventEnd - n.startTime : 0,
	};
})()`

// readTimings polls the page until it has both FCP and the load time.
func readTimings(ctx context.Context) (timings, error) {
	var tm timings
	err := pollUntil(ctx, "first contentful paint and load timing", func() (bool, error) {
		var err error
		tm, err = chromedp.Run(ctx, chromedp.Evaluate[timings](timingsJS))
		if err != nil {
			return false, fmt.Errorf("read timings: %w", err)
		}
		return tm.FCP > 0 && tm.Load > 0, nil
	})
	return tm, err
}

// pollUntil calls done every pollEvery until it reports true or fails, or
// ctx ends; what names the awaited condition in the timeout error.
func pollUntil(ctx context.Context, what string, done func() (bool, error)) error {
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		ok, err := done()
		if err != nil || ok {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, context.Cause(ctx))
		case <-tick.C:
		}
	}
}

// printVisit writes one visit and its requests, for -v.
func printVisit(w io.Writer, url string, n int, v visitResult) {
	fmt.Fprintf(w, "%s visit %d: %d B, %d requests, %d failed, FCP %.1f ms, load %.1f ms\n",
		url, n, v.bytes, v.requests, v.failed, v.fcpMS, v.loadMS)
	for _, r := range v.detail {
		if r.err != "" {
			fmt.Fprintf(w, "  %8s  %s\n", r.err, r.url)
			continue
		}
		fmt.Fprintf(w, "  %8d  %s\n", r.bytes, r.url)
	}
}

// summarize is the median of the visits of url.
func summarize(url string, visits []visitResult) result {
	pick := func(f func(visitResult) float64) float64 {
		xs := make([]float64, len(visits))
		for i, v := range visits {
			xs[i] = f(v)
		}
		return median(xs)
	}
	return result{
		URL:      url,
		Bytes:    int64(pick(func(v visitResult) float64 { return float64(v.bytes) }) + 0.5),
		Requests: int(pick(func(v visitResult) float64 { return float64(v.requests) }) + 0.5),
		Failed:   int(pick(func(v visitResult) float64 { return float64(v.failed) }) + 0.5),
		FCPMS:    round1(pick(func(v visitResult) float64 { return v.fcpMS })),
		LoadMS:   round1(pick(func(v visitResult) float64 { return v.loadMS })),
		Runs:     len(visits),
	}
}

// median is the middle value of xs, or the mean of the two middle values
// for an even count; 0 for none.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// round1 rounds x to one decimal.
func round1(x float64) float64 {
	return float64(int64(x*10+0.5)) / 10
}
