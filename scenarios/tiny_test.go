package scenarios_test

import "testing/fstest"

// tinyLesson is a small valid lesson: memory, compaction without cards
// (a mechanical excerpt), a fact and a remember step.
const tinyLesson = `id: tiny
title: {en: Tiny, ja: Tiny}
window: 1000
mechanisms:
  memory: {path: MEMORY.md, tokens: 10, lines: ["# MEMORY.md"]}
  compaction: {threshold: 50}
facts:
  - {id: f, pattern: '(?i)pnpm', label: {en: the pnpm rule, ja: pnpm}}
system: {tokens: 100, content: You are a test.}
trace:
  - step: ask
    messages:
      - {id: u1, role: user, tokens: 200, content: Use pnpm.}
      - {id: a1, role: assistant, tokens: 100, content: OK.}
  - {step: note, type: remember, line: "- pnpm", tokens: 5}
  - step: again
    messages:
      - {id: u2, role: user, tokens: 300, content: Again.}
      - id: a2
        role: assistant
        tokens: 50
        answer: {fact: f, found: pnpm it is., missing: npm then.}
`

// tinyNarration covers every frame kind with a fallback section.
const tinyNarration = `@@ about:intro
# A tiny lesson.

{?fact:f} The window holds {total} of {window}.

@@ @step
# Step {step} of {steps}: {total}.

@@ @crossed
# Crossed.

@@ @selected
# Selected.

@@ @summary
# Summary.

@@ @replaced
# Replaced.

@@ @overflow
# Overflow.

@@ @refused
# Refused.
`

func tinyFS(lesson, narration string) fstest.MapFS {
	return fstest.MapFS{
		"tiny/lesson.yaml":     {Data: []byte(lesson)},
		"tiny/narration.en.md": {Data: []byte(narration)},
		"tiny/narration.ja.md": {Data: []byte(narration)},
	}
}
