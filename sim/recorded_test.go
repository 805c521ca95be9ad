package sim_test

import (
	"os"
	"strings"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// importedShape loads scenarios/testdata/recorded-shape: a lesson written
// for these tests in the shape of an import, with every size given.
func importedShape(t *testing.T) *sim.Lesson {
	t.Helper()
	tok, err := loadTok()
	if err != nil {
		t.Fatal(err)
	}
	l, err := scenarios.LoadDir(os.DirFS("../scenarios/testdata"), "recorded-shape", "testdata", nil, tok)
	if err != nil {
		t.Fatalf("LoadDir: %v", err)
	}
	return l.Lesson
}

// frameLine is a frame as "kind@trace-step:total", or with the refusal.
func frameLine(f sim.Frame) string {
	s := string(f.Kind) + "@" + f.TraceStep + ":" + itoa(f.Total)
	if f.Error != "" {
		s += "!"
	}
	return s
}

func itoa(n int) string {
	var b []byte
	if n == 0 {
		return "0"
	}
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestImportedPolicies: the same recorded trace under each compaction
// mode and window size. Sizes: system 100, u1 100, a1 50, the call 20 and
// its result 300 (one response with a1), a2 50, u2 100, a3 100; the
// recorded summary c1 is 80.
func TestImportedPolicies(t *testing.T) {
	l := importedShape(t)
	tok, _ := loadTok()
	tests := []struct {
		name string
		kv   []string
		want string
	}{
		// Compacts where the trace marks it, with the recorded card, no
		// crossed frame; the window is then the header, c1 and what follows.
		{"as recorded", []string{"compaction", "recorded", "window", "1000"},
			"step@s1:200 step@s2:570 step@s3:620 selected@compact-1:620 summary@compact-1:620 replaced@compact-1:180 step@s4:280 step@s5:380"},
		// Without compaction the 1,000 window holds the whole session.
		{"off", []string{"compaction", "off", "window", "1000"},
			"step@s1:200 step@s2:570 step@s3:620 step@s4:720 step@s5:820"},
		// In the 500 window the recorded session does not fit: the request of
		// a2 (570) is refused and the session stops.
		{"as recorded, half the window", []string{"compaction", "recorded", "window", "500"},
			"step@s1:200 step@s2:570 overflow@s3:570!"},
		// At 40% of 500 (200) the harness compacts before a2's call, not
		// between a1 and its tool call: one response, one model call.
		{"at 40%, half the window", []string{"compaction", "on", "threshold", "40", "window", "500"},
			"step@s1:200 step@s2:570 crossed@s3:570 selected@s3:570 summary@s3:570 replaced@s3:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := sim.Run(l, policyOf(t, l, tt.kv...), tok)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range r.Frames {
				got = append(got, frameLine(f))
			}
			if g := strings.Join(got, " "); !strings.HasPrefix(g, tt.want) {
				t.Errorf("frames\n%s\nwant them to start\n%s", g, tt.want)
			}
			if w := r.Window; w != policyOf(t, l, tt.kv...).Int("window") {
				t.Errorf("replay window %d; want the policy's", w)
			}
		})
	}
}

// TestContinues: without the mark, the tool call of a1's response would be
// a model call of its own, and the harness would compact between a1 and
// its call, which no real session can do.
func TestContinues(t *testing.T) {
	l := importedShape(t)
	tok, _ := loadTok()
	p := policyOf(t, l, "compaction", "on", "threshold", "40", "window", "500")
	crossedAt := func(l *sim.Lesson) string {
		r, err := sim.Run(l, p, tok)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range r.Frames {
			if f.Kind == sim.FrameCrossed {
				return f.TraceStep + ":" + itoa(f.Total)
			}
		}
		return "none"
	}
	if got := crossedAt(l); got != "s3:570" {
		t.Errorf("with continues, the first crossing is at %s; want s3:570 (a2's call)", got)
	}
	split := *l
	split.Trace = append([]sim.Step(nil), l.Trace...)
	st := split.Trace[1]
	st.Messages = append([]sim.Message(nil), st.Messages...)
	st.Messages[1].Continues = false
	split.Trace[1] = st
	if got := crossedAt(&split); got != "s2:250" {
		t.Errorf("without continues, the first crossing is at %s; want s2:250 (a call before the tool call)", got)
	}
}

// TestPressureScales: the compressor's pressure line is a share of the
// window: 850 of 1,000 becomes 425 of 500.
func TestPressureScales(t *testing.T) {
	l := importedShape(t)
	tok, _ := loadTok()
	for _, tt := range []struct {
		window string
		want   int
	}{{"1000", 850}, {"500", 425}} {
		r, err := sim.Run(l, policyOf(t, l, "compaction", "off", "strategy", "tiered", "window", tt.window), tok)
		if err != nil {
			t.Fatal(err)
		}
		g, ok := r.Frames[0].Figure("pressure")
		if !ok || g.Value != tt.want || r.Frames[0].Line.Tokens != tt.want {
			t.Errorf("window %s: pressure %v (line %d); want %d", tt.window, g, r.Frames[0].Line.Tokens, tt.want)
		}
	}
}

// TestUsagePanel: a model call with recorded usage shows the provider's
// input beside this replay's request, and their difference.
func TestUsagePanel(t *testing.T) {
	l := importedShape(t)
	tok, _ := loadTok()
	r, err := sim.Run(l, l.DefaultPolicy(), tok)
	if err != nil {
		t.Fatal(err)
	}
	f := r.Frames[1] // s2: a1's call, with its tool call
	provider, ok1 := f.Figure("provider-input")
	replay, ok2 := f.Figure("replay-input")
	if !ok1 || !ok2 || provider.Value != 200 || replay.Value != 200 {
		t.Errorf("s2: provider input %v, replay input %v; want 200 (12 + 188) and the 200 of the request a1 was written for", provider, replay)
	}
}
