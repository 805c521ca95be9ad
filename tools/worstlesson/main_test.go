package main

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/sim"
)

// TestWorstLessonShapes: the shape the README measures is a lesson the
// authored limits accept, and a costlier one is refused by the run budget
// with lesson.yaml and the field named: the tool keeps writing the worst
// lesson allowed as the limits change.
func TestWorstLessonShapes(t *testing.T) {
	tok, err := tokens.New()
	if err != nil {
		t.Fatal(err)
	}
	lim := scenarios.Authored()
	for _, tc := range []struct {
		steps, thresholds int
		refused           string
	}{{30, 10, ""}, {150, 6, "its preset policies' runs"}} {
		data, err := lesson(lim, tc.steps, tc.thresholds)
		if err != nil {
			t.Fatal(err)
		}
		fsys := fstest.MapFS{
			"worst/lesson.yaml":     {Data: data},
			"worst/narration.en.md": {Data: []byte(narration(lim))},
			"worst/narration.ja.md": {Data: []byte(narration(lim))},
		}
		l, err := scenarios.LoadDir(fsys, "worst", "w", nil, tok)
		if err == nil && tc.refused != "" {
			budget := l.RunBudget()
			for _, p := range l.PresetPolicies() {
				r, rerr := runOf(l, p, tok)
				if rerr != nil {
					t.Fatal(rerr)
				}
				if err = budget.Spend(r); err != nil {
					break
				}
			}
		}
		var e *scenarios.Error
		switch {
		case tc.refused == "" && err != nil:
			t.Errorf("%d steps, %d thresholds: %v; want a lesson within the limits", tc.steps, tc.thresholds, err)
		case tc.refused != "" && (!errors.As(err, &e) || e.File != "w/worst/lesson.yaml" || !strings.Contains(e.Msg, tc.refused)):
			t.Errorf("%d steps, %d thresholds: %v; want w/worst/lesson.yaml refused by the run budget", tc.steps, tc.thresholds, err)
		}
	}
}

func runOf(l *scenarios.Lesson, p sim.Policy, tok sim.Tokenizer) (*sim.Replay, error) {
	return sim.Run(l.Lesson, p, tok)
}
