package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"time"

	"ctxsim/authoring/importer"
	"ctxsim/authoring/transcript"
	"ctxsim/internal/cli"
	"ctxsim/internal/tokens"
)

// importUsage is what `ctxsim import -h` prints above the flags.
const importUsage = "usage: ctxsim import [flags] FILE\n\nFILE is a Claude Code session (~/.claude/projects/<dir>/<session>.jsonl, with the subagents/ files beside it),\n" +
	"a Codex CLI rollout (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl), an OpenAI chat messages JSON file,\nor a Gemini CLI session (JSON Lines, 0.40 and later).\n\nflags:"

// runImport is `ctxsim import`: a recorded session file becomes a lesson
// directory that `ctxsim serve -lessons DIR` serves.
func runImport(ctx context.Context, fs *flag.FlagSet, args []string, stdout, stderr io.Writer) error {
	out := fs.String("o", "lessons", "lessons directory to write the lesson into (serve it with -lessons)")
	id := fs.String("id", "", "lesson id (default: session- and the file name)")
	format := fs.String("format", "", "file format: "+formatList(", ", " or ")+" (default: detected from the first records)")
	window := fs.Int("window", 0, "window in tokens (default: the model family's, grown to fit the session)")
	noRedact := fs.Bool("no-redact", false, "keep API keys, bearer tokens, e-mail addresses and the home directory as recorded")
	sumFlags := addSummarizerFlags(fs, "endpoint that writes summaries for ranges no recorded summary covers (…/v1/chat/completions or …/v1/messages)", false)
	maxLine := fs.Int("max-line", 0, "longest line read, in bytes (default 64 MiB)")
	title := fs.String("title", "", "the lesson's title (default: \"Imported session: \" and the session's title or id)")
	titleJA := fs.String("title-ja", "", "the lesson's title in Japanese (default: -title)")
	origin := fs.String("source", "", "where the session file comes from (its publisher, its licence), shown in the lesson's source line and its about section")
	compressor := fs.Bool("compressor", true, "offer the tiered compressor as a policy (strategy); -compressor=false offers the session's compactions, thresholds and windows only (a third of the policies)")
	all := fs.Bool("check-presets", false, "replay every preset policy at import, not only the session as it happened (slower on long sessions; -summarizer does it anyway)")
	file, err := cli.ParseOne(fs, args, "name exactly one session file")
	if err != nil {
		return err
	}
	if *format != "" && !slices.Contains(transcript.Formats, transcript.Format(*format)) {
		return fmt.Errorf("import: -format must be %s, got %q", formatList(", ", " or "), *format)
	}
	if *window < 0 {
		return fmt.Errorf("import: -window must be a positive number of tokens, got %d", *window)
	}
	sum, err := sumFlags.client()
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// An import is one pass over a file: a collector working harder
		// near importHeap is worth the smaller peak on a laptop.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(importHeap))
	}
	s, err := transcript.Read(file, importer.ReadLimits(transcript.Options{Format: transcript.Format(*format), Redact: !*noRedact, MaxLine: *maxLine}))
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	rep, err := importer.Write(ctx, s, importer.Options{Dir: *out, ID: *id, Window: *window, Redacted: !*noRedact,
		Now: time.Now(), Tokens: tok, Summarizer: sum, AllPresets: *all, Title: titleText(*title, *titleJA), Origin: *origin, NoCompressor: !*compressor, Log: stderr})
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	report(stdout, s, rep, *out)
	return nil
}

// titleText is a lesson title from -title and -title-ja (nil: the
// importer's own).
func titleText(en, ja string) map[string]string {
	if en == "" {
		return nil
	}
	return map[string]string{"en": en, "ja": cmp.Or(ja, en)}
}

// formatList names the formats import reads: "a, b or c".
func formatList(sep, last string) string {
	names := make([]string, len(transcript.Formats))
	for i, f := range transcript.Formats {
		names[i] = string(f)
	}
	return strings.Join(names[:len(names)-1], sep) + last + names[len(names)-1]
}

// importHeap is the soft limit of an import's heap (GOMEMLIMIT overrides
// it): a 10,000-record session peaks near 240 MB with it, 340 MB without.
const importHeap = 200 << 20

// report prints what an import wrote.
func report(w io.Writer, s *transcript.Session, r *importer.Report, dir string) {
	fmt.Fprintf(w, "ctxsim: imported %s (%s) as lesson %s in %s\n", s.File, s.Format, r.ID, r.Path)
	fmt.Fprintf(w, "  %d records read; %d messages, %d tool calls, %d compactions → %d steps\n", s.Records, r.Messages, r.Calls, r.Compactions, r.Steps)
	fmt.Fprintf(w, "  window %d tokens; the recorded replay peaks at %d; %d model calls with provider usage (the window is drawn with their counts)\n", r.Window, r.Peak, r.UsageCalls)
	if r.Policies == r.Presets {
		fmt.Fprintf(w, "  %d preset policies replayed; %d ranges compacted to mechanical excerpts; %d summaries written by the summarizer\n", r.Policies, r.Mechanical, r.Summarized)
	} else {
		fmt.Fprintf(w, "  replayed as it happened; %d preset policies offered, checked when served (or now with -check-presets)\n", r.Presets)
	}
	fmt.Fprintf(w, "  redacted: %s\n", counts(s.Redactions))
	fmt.Fprintf(w, "  skipped: %s\n", counts(s.Skipped))
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "  warning: %s\n", warn)
	}
	fmt.Fprintf(w, "serve it: ctxsim serve -lessons %s   (then open /%s)\n", dir, r.ID)
}

func counts(m map[string]int) string {
	if len(m) == 0 {
		return "nothing"
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
