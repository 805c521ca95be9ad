// Command pagemeasure prints what a cold visit of each URL costs in real
// headless Chromium, as the median of N visits:
//
//	go run ./tools/pagemeasure [-n 5] [-chromium /usr/bin/chromium] [-width 1440 -height 900] [-timeout 30s] [-json] [-v] URL...
//
// A cold visit is one navigation in a fresh tab of a fresh BrowserContext
// (empty memory cache, no cookies, no service worker) with the browser cache
// disabled. For each visit it records:
//
//   - bytes: the sum of encodedDataLength (response headers plus encoded
//     body, so compressed size: Chromium's default Accept-Encoding is kept)
//     of every Network.loadingFinished event, the page and every
//     subresource, plus the hops of redirects;
//   - requests: the requests that finished loading (redirect hops
//     included), and separately those that failed (Network.loadingFailed);
//     data:, blob: and about: URLs are not requests over the wire and
//     are not counted;
//   - FCP: performance first-contentful-paint startTime, in ms;
//   - load: loadEventEnd - startTime of the navigation entry, in ms.
//
// A visit ends when the network has been idle for 500 ms after the load
// event (requests made after load count too; EventSource streams are not
// awaited). Every visit is bounded by -timeout.
//
// The Chromium binary defaults to $CTXSIM_CHROMIUM, else /usr/bin/chromium.
// The command exits non-zero when Chromium is missing or a URL does not load
// (a network error, or an HTTP status of 400 or more for the main document).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"ctxsim/internal/cli"
)

// defaultChromium is the Chromium binary of Debian's chromium package.
const defaultChromium = "/usr/bin/chromium"

func main() { cli.Main("pagemeasure", run) }

// run measures the URLs of args and prints the report on stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	opts, urls, asJSON, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	c, err := startChrome(ctx, opts)
	if err != nil {
		return err
	}
	defer c.close()
	results := make([]result, 0, len(urls))
	for _, u := range urls {
		r, err := measure(ctx, c, opts, u)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if asJSON {
		return writeJSON(stdout, results)
	}
	return writeTable(stdout, results, opts.runs, c.version)
}

// parseArgs reads the flags and URLs of the command line.
func parseArgs(args []string, stderr io.Writer) (options, []string, bool, error) {
	fs := cli.Flags("pagemeasure", "usage: pagemeasure [-n 5] [-chromium path] [-width 1440 -height 900] [-timeout 30s] [-json] [-v] URL...", stderr)
	chromium := defaultChromium
	if env := os.Getenv("CTXSIM_CHROMIUM"); env != "" {
		chromium = env
	}
	var opts options
	fs.IntVar(&opts.runs, "n", 5, "cold visits per URL (1–100); the report is their median")
	fs.StringVar(&opts.chromium, "chromium", chromium, "Chromium binary (default from $CTXSIM_CHROMIUM when set)")
	fs.IntVar(&opts.width, "width", 1440, "viewport width in CSS pixels")
	fs.IntVar(&opts.height, "height", 900, "viewport height in CSS pixels")
	fs.DurationVar(&opts.timeout, "timeout", 30*time.Second, "bound of one visit")
	asJSON := fs.Bool("json", false, "print a JSON array instead of a table")
	verbose := fs.Bool("v", false, "print each visit on stderr")
	if err := cli.Parse(fs, args); err != nil {
		return opts, nil, false, err
	}
	if err := checkArgs(opts, fs.Args()); err != nil {
		fmt.Fprintln(stderr, "pagemeasure:", err)
		fs.Usage()
		return opts, nil, false, cli.ErrUsage
	}
	if *verbose {
		opts.verbose = stderr
	}
	return opts, fs.Args(), *asJSON, nil
}

// checkArgs validates the options and URLs.
func checkArgs(opts options, urls []string) error {
	switch {
	case len(urls) == 0:
		return errors.New("no URL given")
	case opts.runs < 1 || opts.runs > 100:
		return errors.New("-n: want 1 to 100")
	case opts.width < 200 || opts.width > 10000 || opts.height < 200 || opts.height > 10000:
		return errors.New("-width, -height: want 200 to 10000")
	case opts.timeout <= 0:
		return errors.New("-timeout: want a positive duration")
	}
	for _, u := range urls {
		if !onWire(u) {
			return fmt.Errorf("%s: want an http:// or https:// URL", u)
		}
	}
	return nil
}

// writeJSON prints the results as an indented JSON array.
func writeJSON(w io.Writer, results []result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(results); err != nil {
		return fmt.Errorf("write JSON: %w", err)
	}
	return nil
}

// writeTable prints the results as an aligned table (URL left, figures
// right) and a note line.
func writeTable(w io.Writer, results []result, runs int, version string) error {
	rows := [][]string{{"URL", "BYTES", "REQUESTS", "FCP ms", "LOAD ms"}}
	for _, r := range results {
		rows = append(rows, []string{r.URL, formatBytes(r.Bytes), formatRequests(r),
			fmt.Sprintf("%.0f", r.FCPMS), fmt.Sprintf("%.0f", r.LoadMS)})
	}
	var b strings.Builder
	for _, line := range alignRows(rows) {
		b.WriteString(line + "\n")
	}
	fmt.Fprintf(&b, "median of %d cold visits, cache disabled, Chromium %s\n", runs, version)
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// alignRows pads the cells of rows into lines: the first column aligned
// left, the others right, two spaces apart.
func alignRows(rows [][]string) []string {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	lines := make([]string, len(rows))
	for n, row := range rows {
		cells := make([]string, len(row))
		for i, cell := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				cells[i] = cell + pad
			} else {
				cells[i] = pad + cell
			}
		}
		lines[n] = strings.Join(cells, "  ")
	}
	return lines
}

// formatBytes writes n as KB with one decimal (1 KB = 1000 bytes, as
// Chrome DevTools counts) and as exact bytes.
func formatBytes(n int64) string {
	return fmt.Sprintf("%.1f KB (%s B)", float64(n)/1000, thousands(n))
}

// formatRequests writes the finished requests, and the failed ones if any.
func formatRequests(r result) string {
	if r.Failed == 0 {
		return fmt.Sprint(r.Requests)
	}
	return fmt.Sprintf("%d (+%d failed)", r.Requests, r.Failed)
}

// thousands writes n with a comma between groups of three digits.
func thousands(n int64) string {
	if n < 0 {
		return "-" + thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
