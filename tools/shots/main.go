// Command shots takes screenshots of ctxsim pages in headless Chromium, one
// browser and one tab per viewport size:
//
//	go run ./tools/shots [-base http://127.0.0.1:8080] [-out docs] NAME=PATH@WxH ...
//
// Each NAME=PATH@WxH writes OUT/NAME.png: the viewport (not the whole
// page) at W×H CSS pixels, device scale 1, after the page script has
// settled and with motion reduced (the last state of every animation).
// The Chromium binary defaults to $CTXSIM_CHROMIUM, else /usr/bin/chromium.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// evalJS and beforeJS are the -eval and -before flags.
var evalJS, beforeJS string

type shot struct {
	name, path string
	w, h       int64
}

func parse(arg string) (shot, error) {
	name, rest, ok := strings.Cut(arg, "=")
	if !ok {
		return shot{}, fmt.Errorf("%q: want NAME=PATH@WxH", arg)
	}
	i := strings.LastIndex(rest, "@")
	if i < 0 {
		return shot{}, fmt.Errorf("%q: want NAME=PATH@WxH", arg)
	}
	ws, hs, ok := strings.Cut(rest[i+1:], "x")
	w, err1 := strconv.ParseInt(ws, 10, 64)
	h, err2 := strconv.ParseInt(hs, 10, 64)
	if !ok || err1 != nil || err2 != nil {
		return shot{}, fmt.Errorf("%q: bad size", arg)
	}
	return shot{name: name, path: rest[:i], w: w, h: h}, nil
}

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "server")
	out := flag.String("out", "docs", "directory")
	flag.StringVar(&evalJS, "eval", "", "a JavaScript expression to print for each page (its JSON), instead of a screenshot")
	flag.StringVar(&beforeJS, "before", "", "a JavaScript expression (a promise is awaited) to run on each page before the screenshot")
	flag.Parse()
	if err := run(*base, *out, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "shots:", err)
		os.Exit(1)
	}
}

func run(base, out string, args []string) error {
	if len(args) == 0 {
		return errors.New("no shots")
	}
	exe := os.Getenv("CTXSIM_CHROMIUM")
	if exe == "" {
		exe = "/usr/bin/chromium"
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Headless, chromedp.Flag("force-prefers-reduced-motion", true), chromedp.Flag("hide-scrollbars", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	if err := chromedp.Do(bctx); err != nil {
		return err
	}
	for _, a := range args {
		s, err := parse(a)
		if err != nil {
			return err
		}
		if err := take(bctx, base, out, s); err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return nil
}

func take(bctx context.Context, base, out string, s shot) error {
	tctx, cancel := chromedp.NewContext(bctx)
	defer cancel()
	ctx, cancel2 := context.WithTimeout(tctx, 30*time.Second)
	defer cancel2()
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(s.w, s.h), chromedp.Navigate(base+s.path)); err != nil {
		return err
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
		return err
	}
	if beforeJS != "" {
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[any](beforeJS, chromedp.EvalAwaitPromise)); err != nil {
			return err
		}
	}
	if evalJS != "" {
		v, err := chromedp.Run(ctx, chromedp.Evaluate[any](evalJS, chromedp.EvalAwaitPromise))
		if err != nil {
			return err
		}
		j, _ := json.Marshal(v)
		fmt.Printf("%s\t%s\n", s.name, j)
		return nil
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, s.name+".png"), png, 0o644)
}
