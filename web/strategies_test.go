package web

// Tests of what the lessons of issue 13 add to the frames API and the
// page, generically: spent_tokens and iteration on a frame whose lesson
// has the spend mechanism, and a second window the frame carries.

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/animation"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp/kb"
)

func framesOf(t *testing.T, s *Server, path string) []map[string]any {
	t.Helper()
	rec := tieredGet(t, s, path)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET %s = %d\n%s", path, rec.Code, rec.Body.String())
	}
	var doc struct {
		Frames []map[string]any `json:"frames"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &doc); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	return doc.Frames
}

func num(f map[string]any, k string) (int, bool) {
	v, ok := f[k].(float64)
	return int(v), ok
}

// TestFramesAPISpend: every frame of a lesson with the spend mechanism
// carries spent_tokens and iteration; a lesson without it carries neither;
// a bad strategy is a 400 naming it. The figures themselves (the seed's
// iterations and tokens per strategy, never falling) are the engine's, in
// sim/strategies_test.go TestCompressionStrategiesFigures.
func TestFramesAPISpend(t *testing.T) {
	s := newTestServer(t)
	for i, f := range framesOf(t, s, "/api/lessons/compression-strategies/frames") {
		_, ok1 := num(f, "spent_tokens")
		_, ok2 := num(f, "iteration")
		if !ok1 || !ok2 {
			t.Fatalf("frame %d: spent_tokens %v, iteration %v; want both", i+1, f["spent_tokens"], f["iteration"])
		}
	}
	for _, f := range framesOf(t, s, "/api/lessons/context-memory/frames") {
		if _, ok := f["spent_tokens"]; ok {
			t.Fatal("context-memory frames carry spent_tokens; its lesson has no spend mechanism")
		}
	}
	rec := tieredGet(t, s, "/api/lessons/compression-strategies/frames?strategy=zip")
	if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "strategy") {
		t.Errorf("?strategy=zip = %d %s; want a 400 naming strategy", rec.Code, rec.Body.String())
	}
}

// TestFramesAPISecondWindow: a frame that carries a second window encodes
// it as second_window {name, total_tokens, blocks} with sub_spent_tokens
// beside it; a run without one carries no second_window. Which frames carry
// it (the sub-agent's 7 steps), its total and the sub-agent's tokens are
// the engine's, in sim/strategies_test.go TestSubagentIsolation.
func TestFramesAPISecondWindow(t *testing.T) {
	s := newTestServer(t)
	carried := 0
	for _, f := range framesOf(t, s, "/api/lessons/subagent-isolation/frames?isolation=on") {
		sw, ok := f["second_window"].(map[string]any)
		if !ok {
			continue
		}
		carried++
		total := 0
		for _, b := range sw["blocks"].([]any) {
			total += int(b.(map[string]any)["tokens"].(float64))
		}
		if sw["name"] != "ui.window-subagent" || int(sw["total_tokens"].(float64)) != total {
			t.Errorf("frame %v: second window %v, total_tokens %v, blocks sum %d", f["step"], sw["name"], sw["total_tokens"], total)
		}
		if _, ok := num(f, "sub_spent_tokens"); !ok {
			t.Errorf("frame %v: no sub_spent_tokens beside the second window", f["step"])
		}
	}
	if carried == 0 {
		t.Error("isolation on: no frame carries a second window")
	}
	for _, f := range framesOf(t, s, "/api/lessons/subagent-isolation/frames?isolation=off") {
		if _, ok := f["second_window"]; ok {
			t.Fatalf("isolation off: frame %v carries a second window", f["step"])
		}
	}
}

// TestSecondWindowPage: the page draws both windows, titled, each block
// with its own hook and sheet; element ids stay unique; a step of the run
// without the sub-agent keeps its place with an empty window.
func TestSecondWindowPage(t *testing.T) {
	s := newTestServer(t)
	body := tieredGet(t, s, "/en/subagent-isolation/isolation-on/7").Body.String()
	for _, want := range []string{`data-testid="window"`, `data-testid="second-window"`, `data-testid="second-pane"`,
		"Main agent&#39;s window", "Sub-agent&#39;s window", `id="sheet-second-r-s5"`, `data-testid="second-blocks-table"`} {
		if !strings.Contains(body, want) {
			t.Errorf("step 7 lacks %s", want)
		}
	}
	if n := strings.Count(body, `data-testid="second-block"`); n < 20 {
		t.Errorf("%d second-window blocks; want the sub-agent's search", n)
	}
	ids := map[string]int{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(body, -1) {
		if ids[m[1]]++; ids[m[1]] == 2 {
			t.Errorf("id %q appears twice", m[1])
		}
	}
	idle := tieredGet(t, s, "/en/subagent-isolation/isolation-on/1").Body.String()
	text := strings.Join(strings.Fields(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(idle, " ")), " ") // the note wraps over tspans
	if !strings.Contains(text, "No sub-agent is working at this step") || strings.Contains(idle, `data-testid="second-block"`) {
		t.Error("step 1: want an empty second window with its note")
	}
	if off := tieredGet(t, s, "/en/subagent-isolation/isolation-off/7").Body.String(); strings.Contains(off, `data-testid="second-window"`) {
		t.Error("isolation off draws a second window")
	}
}

// TestBrowserSecondWindow: in a browser, stepping with the keyboard (the
// page script swaps each page in) through the sub-agent's search keeps both
// windows side by side at one scale, the sub-agent's window grows while
// the main one stays, and no script error occurs.
func TestBrowserSecondWindow(t *testing.T) {
	b := browser(t, 1440, 900, true)
	exceptions := b.watchExceptions()
	const total = 12
	b.open("/en/subagent-isolation/isolation-on/2")
	b.waitStep(2, total)
	type state struct {
		Main, Second       int
		MainH, SecondH     float64
		SecondLeft, MainRt float64
		Blocks             int
	}
	read := func() state {
		return mustEval[state](b, `(() => {
			const m = document.querySelector("[data-testid=window]"), s = document.querySelector("[data-testid=second-window]");
			const box = svg => svg.querySelector("rect.box").getBoundingClientRect();
			return {main: +document.querySelector("[data-testid=meter]").dataset.total,
				second: +document.querySelector("[data-testid=second-meter]").dataset.total,
				mainH: box(m).height, secondH: box(s).height,
				secondLeft: s.getBoundingClientRect().left, mainRt: box(m).right,
				blocks: document.querySelectorAll("[data-testid=second-block]").length};
		})()`)
	}
	first := read()
	last := first
	for n := 3; n <= 7; n++ {
		b.key(kb.ArrowRight)
		b.waitStep(n, total)
		st := read()
		if st.Main != first.Main || st.Second <= last.Second || st.Blocks <= last.Blocks {
			t.Errorf("step %d: main %d (was %d), sub-agent %d in %d blocks (was %d in %d)", n, st.Main, first.Main, st.Second, st.Blocks, last.Second, last.Blocks)
		}
		if st.MainH != st.SecondH || st.SecondLeft < st.MainRt {
			t.Errorf("step %d: boxes %.1f and %.1f px tall, second starts at %.1f before the first ends at %.1f", n, st.MainH, st.SecondH, st.SecondLeft, st.MainRt)
		}
		last = st
	}
	// Without reduced motion, a step animates the blocks of both windows:
	// app.js finds them by data-block in each data-pane (animations are
	// slowed down, so they are still running when counted).
	cdpCall(b, "motion", emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-reduced-motion", Value: "no-preference"}}})
	cdpCall(b, "enable animations", animation.Enable, cdp.Empty{})
	cdpCall(b, "slow animations", animation.SetPlaybackRate, animation.SetPlaybackRateParams{PlaybackRate: 0.01})
	b.open("/en/subagent-isolation/isolation-on/3")
	b.waitStep(3, total)
	b.key(kb.ArrowRight)
	b.waitStep(4, total)
	running := func(pane string) int {
		return mustEval[int](b, `document.getAnimations().filter(a => a.effect && a.effect.target instanceof Element &&
			a.effect.target.matches('svg[data-pane="`+pane+`"] rect[data-block]')).length`)
	}
	if n := running("second"); n == 0 {
		t.Errorf("step 4: no block of the sub-agent's window animates (the main window's: %d)", running("main"))
	}
	if ex := exceptions(); len(ex) > 0 {
		t.Errorf("script exceptions: %v", ex)
	}
}
