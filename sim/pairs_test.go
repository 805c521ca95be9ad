package sim_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"ctxsim/sim"
)

// TestToolPairsEverywhere: no frame of any built-in lesson, under any
// preset policy or any threshold or alpha from 1 to 100, shows a request in which a
// tool call is not followed by its result or a result lacks its call,
// unless the provider refuses that request (at this frame, or at the next
// one when the frame shows the request a compressor's pass just left) and
// its error names the message. Compaction keeps a call with its result;
// only the lesson's deliberate bug (pairs=broken) may break a pair.
func TestToolPairsEverywhere(t *testing.T) {
	tok, _ := loadTok()
	for id, l := range everyLesson(t) {
		t.Run(id, func(t *testing.T) {
			checked := 0
			for _, p := range sweep(t, l) {
				frames := mustRun(t, l, p, tok)
				for k, f := range frames {
					checked++
					i := orphanAt(f.Blocks)
					refusal := f.Error
					if refusal == "" && k+1 < len(frames) && frames[k+1].Kind == sim.FrameRefused {
						refusal = frames[k+1].Error
					}
					switch {
					case i >= 0 && refusal == "":
						t.Errorf("Run(%s) frame %d (%s): the tool pair at messages.%d is broken in a request that was sent", p, f.Step, f.Kind, i)
					case i >= 0 && !containsIndex(refusal, i):
						t.Errorf("Run(%s) frame %d: refused with %q; want the error to name messages.%d", p, f.Step, refusal, i)
					case i >= 0 && p.Get("pairs") != "broken":
						t.Errorf("Run(%s) frame %d: a broken pair with pairs kept", p, f.Step)
					}
				}
			}
			if checked == 0 {
				t.Fatal("no frames checked")
			}
		})
	}
}

// sweep is every preset policy of l and, when l has a threshold or an
// alpha, every preset at every value of it from 1 to 100; for a long
// lesson (a recorded session's, over longTrace steps), the default policy
// with compaction on at every threshold.
func sweep(t testing.TB, l *sim.Lesson) []sim.Policy {
	out := l.PresetPolicies()
	bases := l.PresetPolicies()
	if len(l.Trace) > longTrace {
		on, err := l.With(l.DefaultPolicy(), "compaction", "on")
		if err != nil {
			t.Fatal(err)
		}
		bases = []sim.Policy{on}
	}
	for _, name := range []string{"threshold", "alpha"} {
		if _, ok := l.Param(name); !ok {
			continue
		}
		for _, p := range bases {
			for v := 1; v <= 100; v++ {
				q, err := l.With(p, name, strconv.Itoa(v))
				if err != nil {
					t.Fatal(err)
				}
				out = append(out, q)
			}
		}
	}
	return out
}

// longTrace is the most steps a lesson has whose every preset is swept
// over every threshold.
const longTrace = 60

// orphanAt is the message index of the first call without its result
// right after it, or result without its call right before it; -1 if none.
// System blocks are not messages.
func orphanAt(bs []sim.Block) int {
	msg := -1
	for i, b := range bs {
		if b.Role != sim.RoleSystem {
			msg++
		}
		switch {
		case b.Kind == sim.KindToolCall && (i+1 >= len(bs) || bs[i+1].Role != sim.RoleTool || bs[i+1].ToolUseID != b.ToolUseID):
			return msg
		case b.Role == sim.RoleTool && (i == 0 || bs[i-1].Kind != sim.KindToolCall || bs[i-1].ToolUseID != b.ToolUseID):
			return msg
		}
	}
	return -1
}

func containsIndex(err string, i int) bool {
	return strings.Contains(err, fmt.Sprintf("messages.%d:", i))
}
