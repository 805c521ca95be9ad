package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"ctxsim/export"
	"ctxsim/internal/cli"
	"ctxsim/web"
)

// exportUsage is what `ctxsim export -h` prints above the flags.
const exportUsage = "usage: ctxsim export [-lessons DIR] [-base /PATH/] DIR\n\nDIR (new or empty) receives the static site.\n\nflags:"

// runExport is `ctxsim export DIR`: every state of the preset policies of
// every lesson, as a static site any web host serves.
func runExport(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	dir := lessonsFlag(fs)
	base := fs.String("base", "/", "path the site is served at, such as /ctxsim/ for a GitHub project page")
	out, err := cli.ParseOne(fs, args, "give one output directory")
	if err != nil {
		return err
	}
	if _, err := export.CheckBase(*base); err != nil {
		return err
	}
	if err := export.CheckDir(out); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	// An export makes ~20 GB of short-lived garbage (pages, their view
	// models) over ~150 MB that lives throughout (the tokenizer, the runs):
	// collecting half as often saves a quarter of the time for ~200 MB more.
	debug.SetGCPercent(200)
	start := time.Now()
	cfg, _, err := loadLessons(*dir, nil, false)
	if err != nil {
		return err
	}
	cfg.Static, cfg.PageCacheBytes, cfg.ReplayCacheRuns = true, -1, -1
	srv, err := web.New(cfg)
	if err != nil {
		return err
	}
	st, err := export.Write(ctx, srv, export.Options{Dir: out, Base: *base})
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Fprintf(stdout, "ctxsim: wrote %d pages, %d files, %.1f MB to %s in %.1fs\n",
		st.Pages, st.Files, float64(st.Bytes)/1e6, out, time.Since(start).Seconds())
	return nil
}
