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

	"ctxsim/internal/textcut"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
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
	data, err := lesson(lim, *steps, *thresholds)
	if err != nil {
		log.Fatal(err)
	}
	write(dir, lessonfile.LessonFile, data)
	for _, lang := range scenarios.Languages {
		write(dir, lessonfile.NarrationFile(lang), []byte(narration(lim)))
	}
}

func write(dir, name string, data []byte) {
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
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

// text is en in every language but Japanese, which has ja.
func text(en, ja string) sim.Text {
	t := sim.Text{}
	for _, lang := range scenarios.Languages {
		t[lang] = en
	}
	t["ja"] = ja
	return t
}

// lesson is the worst lesson.yaml: steps user/assistant steps of hostile
// texts, a remember step every tenth, the most memory lines and facts,
// thresholds compaction presets.
func lesson(lim scenarios.Limits, steps, thresholds int) ([]byte, error) {
	memLines := lim.MemoryLines - steps/10
	memory := sim.MemoryStore{Path: "MEMORY.md"}
	for i := range memLines {
		memory.Lines = append(memory.Lines, fmt.Sprintf("- rule %d: %s", i, hostile(40, lim)))
	}
	compaction := scenarios.CompactionConfig{Threshold: 50, Tail: 2}
	for i := range thresholds {
		compaction.Presets = append(compaction.Presets, 50+i*40/max(1, thresholds))
	}
	l := lessonfile.Lesson{ID: "worst", Order: 99, Window: 200000, Sizes: "counted",
		Title:      text("The worst lesson the limits allow", "上限いっぱいのレッスン"),
		Source:     text("Written by tools/worstlesson to measure start-up.", "tools/worstlesson が起動時間の測定のために書いたもの。"),
		Mechanisms: lessonfile.Mechanisms{{Name: "memory", Config: memory}, {Name: "compaction", Config: compaction}},
		Facts:      []lessonfile.Fact{{ID: "f", Pattern: "(?i)pnpm", Label: text("the pnpm rule", "pnpm")}},
		System:     lessonfile.Message{Content: "You are a test."}}
	// The other facts: patterns as long as allowed, matched against every
	// text the lesson fixes.
	for i := 1; i < lim.Facts; i++ {
		alts := []string{}
		for len(strings.Join(alts, "|")) < lim.PatternBytes-40 {
			alts = append(alts, fmt.Sprintf("w%d[a-z]+x", len(alts)))
		}
		l.Facts = append(l.Facts, lessonfile.Fact{ID: fmt.Sprintf("f%d", i), Pattern: "(?i)(" + strings.Join(alts, "|") + ")",
			Label: text(fmt.Sprintf("fact %d", i), fmt.Sprintf("事実 %d", i))})
	}
	// The texts share the text budget, leaving room for the memory lines.
	per := (lim.TextBytes - memLines*60 - 4096) / (2 * steps)
	per = min(per, (int(lim.FileBytes*7/8)-8<<10)/(2*steps)) // lesson.yaml within its own limit
	for i := range steps {
		l.Trace = append(l.Trace, lessonfile.Step{Step: fmt.Sprintf("s%d", i), Messages: []lessonfile.Message{
			{ID: fmt.Sprintf("u%d", i), Role: string(sim.RoleUser), Content: hostile(per, lim)},
			{ID: fmt.Sprintf("a%d", i), Role: string(sim.RoleAssistant), Content: hostile(per, lim)}}})
		if i%10 == 9 {
			l.Trace = append(l.Trace, lessonfile.Step{Step: fmt.Sprintf("r%d", i), Type: string(sim.StepRemember), Line: fmt.Sprintf("- pnpm %d", i)})
		}
	}
	return lessonfile.Encode(l, "")
}

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
