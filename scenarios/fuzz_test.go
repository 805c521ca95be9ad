package scenarios_test

import (
	"errors"
	"strings"
	"testing"

	"ctxsim/scenarios"
)

// FuzzLoad: no lesson.yaml and narration make the loader panic, hang or
// fail without naming the file; seeds are in testdata/fuzz/FuzzLoad (the
// defects the limits fix: huge numbers, floats, nulls, second documents,
// unknown keys, anchors, deep nesting, bad bytes).
func FuzzLoad(f *testing.F) {
	f.Add([]byte(tinyLesson), []byte(tinyNarration))
	f.Fuzz(func(t *testing.T, lesson, narration []byte) {
		_, err := scenarios.Load(tinyFS(string(lesson), string(narration)), "lessons", words{})
		if err == nil {
			return
		}
		var e *scenarios.Error
		var re *scenarios.RenderError
		switch {
		case errors.As(err, &e):
			if !strings.HasPrefix(e.File, "lessons/tiny/") {
				t.Fatalf("error %q names no file of the lesson", err)
			}
		case errors.As(err, &re):
		default:
			if !strings.HasPrefix(err.Error(), "lesson tiny:") {
				t.Fatalf("error %q (%T) is neither a *scenarios.Error nor about the lesson", err, err)
			}
		}
	})
}

// words counts words, not tokens: the fuzzer needs a tokenizer that is
// fast under its instrumentation (o200k_base's tables are not).
type words struct{}

func (words) Count(text string) int { return len(strings.Fields(text)) }
