// Command worstlesson writes a hand-written (authored) lesson at the
// limits scenarios.Authored allows, to measure what the worst such lesson
// costs the server's start-up:
//
//	go run ./tools/worstlesson -o /tmp/worst -steps 30 -thresholds 10
//	ctxsim serve -lessons /tmp/worst
//
// It has the most facts, with the longest patterns. Its texts fill the text budget with what costs the tokenizer most (runs
// of letters and of punctuation as long as the limits allow, Japanese,
// digits), its narration sections and about: sections fill their byte
// limits with placeholders, conditions and links, MEMORY.md has its most
// lines, and the preset policies (memory × compaction × threshold
// presets) replay every message. -steps and -thresholds trade
// the length of one run against the number of runs; the run budget
// (frames and blocks over all preset runs) refuses shapes that cost more.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"ctxsim/scenarios"
	"ctxsim/textcut"
)

func main() {
	out := flag.String("o", "", "directory to write the lesson into (as DIR/worst)")
	steps := flag.Int("steps", 150, "user/assistant steps of the trace (two messages each)")
	thresholds := flag.Int("thresholds", 6, "compaction threshold presets (each doubles with memory and compaction on/off)")
	flag.Parse()
	if *out == "" {
		log.Fatal("usage: worstlesson -o DIR [-steps N] [-thresholds N]")
	}
	lim := scenarios.Authored()
	dir := filepath.Join(*out, "worst")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	write(dir, "lesson.yaml", lesson(lim, *steps, *thresholds))
	for _, lang := range []string{"en", "ja"} {
		write(dir, "narration."+lang+".md", narration(lim))
	}
}

func write(dir, name, s string) {
	if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
		log.Fatal(err)
	}
}

// hostile is text that costs the tokenizer most per byte: runs of letters
// and of punctuation as long as the limits allow (the tokenizer's time is
// quadratic in a run), then CJK and digits.
func hostile(n int, lim scenarios.Limits) string {
	run := lim.RunBytes
	unit := strings.Repeat("a", run) + " " + strings.Repeat("!?", run/2) + " " + strings.Repeat("文", run/3) + " 1234567890 "
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(unit)
	}
	return textcut.Prefix(b.String(), n)
}

func lesson(lim scenarios.Limits, steps, thresholds int) string {
	var b strings.Builder
	b.WriteString("id: worst\norder: 99\ntitle: {en: The worst lesson the limits allow, ja: 上限いっぱいのレッスン}\n")
	b.WriteString("source: {en: Written by tools/worstlesson to measure start-up., ja: tools/worstlesson が起動時間の測定のために書いたもの。}\n")
	b.WriteString("window: 200000\nsizes: counted\n")
	b.WriteString("mechanisms:\n  memory:\n    path: MEMORY.md\n    lines:\n")
	memLines := lim.MemoryLines - steps/10
	for i := range memLines {
		fmt.Fprintf(&b, "      - %s\n", quote(fmt.Sprintf("- rule %d: %s", i, hostile(40, lim))))
	}
	fmt.Fprintf(&b, "  compaction:\n    threshold: 50\n    presets: [")
	for i := range thresholds {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%d", 50+i*40/max(1, thresholds))
	}
	b.WriteString("]\n    tail: 2\nfacts:\n  - {id: f, pattern: '(?i)pnpm', label: {en: the pnpm rule, ja: pnpm}}\n")
	// The other facts: patterns as long as allowed, matched against every
	// text the lesson fixes.
	for i := 1; i < lim.Facts; i++ {
		alts := []string{}
		for len(strings.Join(alts, "|")) < lim.PatternBytes-40 {
			alts = append(alts, fmt.Sprintf("w%d[a-z]+x", len(alts)))
		}
		fmt.Fprintf(&b, "  - {id: f%d, pattern: '(?i)(%s)', label: {en: fact %d, ja: 事実 %d}}\n", i, strings.Join(alts, "|"), i, i)
	}
	b.WriteString("system: {content: You are a test.}\ntrace:\n")
	// The texts share the text budget, leaving room for the memory lines.
	per := (lim.TextBytes - memLines*60 - 4096) / (2 * steps)
	per = min(per, (int(lim.FileBytes*7/8)-8<<10)/(2*steps)) // lesson.yaml within its own limit
	for i := range steps {
		fmt.Fprintf(&b, "  - step: s%d\n    messages:\n", i)
		fmt.Fprintf(&b, "      - {id: u%d, role: user, content: %s}\n", i, quote(hostile(per, lim)))
		fmt.Fprintf(&b, "      - {id: a%d, role: assistant, content: %s}\n", i, quote(hostile(per, lim)))
		if i%10 == 9 {
			fmt.Fprintf(&b, "  - {step: r%d, type: remember, line: \"- pnpm %d\"}\n", i, i)
		}
	}
	return b.String()
}

// quote is s as a single-quoted YAML scalar.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// narration fills a section and the about: sections to their limits:
// bytes, placeholders and conditions (figures) and links, for every kind
// of frame.
func narration(lim scenarios.Limits) string {
	// body is n bytes of Markdown holding figs figures (3 per paragraph
	// with figures; the headline has the others).
	body := func(n, figs int) string {
		var b strings.Builder
		for range figs / 3 {
			b.WriteString("{?fact:f} The window holds {total} of {window}.\n\n")
		}
		for range lim.Brackets {
			b.WriteString("[a link](https://example.com) ")
		}
		b.WriteString("\n\n")
		for b.Len() < n-200 {
			b.WriteString("ウィンドウは要約で縮みます。The summary replaces the range; *emphasis* and `code`.\n\n")
		}
		return b.String()
	}
	var b strings.Builder
	const nAbout = 3
	for i := range nAbout {
		key := "about:intro"
		if i > 0 {
			key = fmt.Sprintf("about:more-%d", i)
		}
		fmt.Fprintf(&b, "@@ %s\n# About %d.\n\n%s\n", key, i, body(lim.AboutBytes/nAbout-64, lim.Figures/nAbout))
	}
	for _, k := range []string{"step", "crossed", "selected", "summary", "replaced", "overflow", "refused", "remember", "session", "answer"} {
		fmt.Fprintf(&b, "@@ @%s\n# Step {step} of {steps}: {total}.\n\n%s\n", k, body(lim.SectionBytes-64, lim.Figures-3))
	}
	return b.String()
}
