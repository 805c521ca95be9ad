package scenarios_test

import (
	"errors"
	"strings"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// TestConventionsInData: what was a convention of the Go is the lesson's
// data, checked with its field: pairs needs a mechanism that cuts history,
// a workspace's re-read tool needs a tool and an argument, a call may not
// take the re-reads' id prefix, a step may not take a narration key the
// harness emits.
func TestConventionsInData(t *testing.T) {
	tests := []struct {
		name, old, new, field, msg string
	}{
		{"pairs with nothing that cuts", "  compaction: {threshold: 50}\n", "  pairs: {}\n", "mechanisms.pairs", "cuts history"},
		{"a step takes a reserved key", "step: note,", "step: reread,", "trace[1].step", "narration key of the harness"},
		{"a step takes a pass key", "step: note,", "step: pass-3,", "trace[1].step", "narration key of the harness"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lesson := strings.Replace(tinyLesson, tt.old, tt.new, 1)
			_, err := scenarios.Load(tinyFS(lesson, tinyNarration), "lessons", words{})
			var e *scenarios.Error
			if !errors.As(err, &e) || e.Field != tt.field || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Load = %v; want field %s, %q", err, tt.field, tt.msg)
			}
		})
	}
	if scenarios.ValidCallID(sim.RereadIDPrefix+"1") || !scenarios.ValidCallID("toolu_01") {
		t.Error("ValidCallID: want toolu_01 taken and the re-reads' prefix refused")
	}
}
