package page

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
)

// cmSteps is how many steps the context-memory lesson's default run has.
const cmSteps = 14

// longLesson is l with its trace played n times over (n × its frames).
func longLesson(l *scenarios.Lesson, n int) *scenarios.Lesson {
	inner := *l.Lesson
	inner.ID = l.ID + "-long"
	inner.Trace = nil
	for range n {
		inner.Trace = append(inner.Trace, l.Trace...)
	}
	out := *l
	out.Lesson = &inner
	return &out
}

// stepPage renders one state of l (default policy) as a server would.
func stepPage(t *testing.T, s *fixture, l *scenarios.Lesson, step int) (string, views.LessonPage) {
	t.Helper()
	p := l.DefaultPolicy()
	r, err := sim.Run(l.Lesson, p, s.tok)
	if err != nil {
		t.Fatalf("run %s: %v", l.ID, err)
	}
	page, err := s.b.lessonPage(input{lesson: l, state: State{Lang: "en", Lesson: l.ID, Policy: p, Step: step}, run: r})
	if err != nil {
		t.Fatalf("%s step %d: %v", l.ID, step, err)
	}
	var buf bytes.Buffer
	if err := views.Lesson(page).Render(context.Background(), &buf); err != nil {
		t.Fatalf("render %s step %d: %v", l.ID, step, err)
	}
	return buf.String(), page
}

// TestLongLessonStepPage: a lesson 100 times as long serves a step page at
// most 20% larger than the same step of the original. The step bar shows
// the first and last steps, the neighbourhood of the current one and the
// decisive steps nearest it; a field reaches any other step.
func TestLongLessonStepPage(t *testing.T) {
	s := newFixture(t)
	cm := s.byID["context-memory"]
	long := longLesson(cm, 100)
	for _, step := range []int{1, 8, 14} {
		short, _ := stepPage(t, s, cm, step)
		page, lp := stepPage(t, s, long, step)
		t.Logf("step %d: %d bytes; 100 times as long (%d steps): %d bytes (%+.1f%%)", step, len(short), lp.Steps.Total, len(page),
			100*float64(len(page)-len(short))/float64(len(short)))
		if lp.Steps.Total != 100*cmSteps {
			t.Fatalf("the long lesson has %d steps; want %d", lp.Steps.Total, 100*cmSteps)
		}
		if len(page) > len(short)*6/5 {
			t.Errorf("step %d: the long lesson's page is %d bytes, more than 20%% over the original's %d", step, len(page), len(short))
		}
		links := 0
		for _, tk := range lp.Steps.Ticks {
			if !tk.Gap {
				links++
			}
		}
		if links > maxTicks || !lp.Steps.Jump || !strings.Contains(page, `data-testid="jump"`) {
			t.Errorf("step %d: %d step links, jump field %v; want at most %d and the field", step, links, lp.Steps.Jump, maxTicks)
		}
		if !strings.Contains(page, `/1400"`) {
			t.Errorf("step %d: the track does not link the last step", step)
		}
		checkTrack(t, page, lp.Steps.Ticks)
	}
}

// TestTicksShown: the track of a long lesson keeps the ends, the current
// step's neighbours and the decisive steps nearest it, in order.
func TestTicksShown(t *testing.T) {
	decisive := func(i int) bool { return i%14 == 4 || i%14 == 5 }
	tests := []struct {
		n, cur int
		want   []int // must be shown
	}{
		{10, 3, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
		{1400, 700, []int{0, 695, 700, 705, 1399, 704, 690, 691}},
		{1400, 0, []int{0, 1, 5, 18, 19, 1399}},
	}
	for _, tt := range tests {
		got := ticksShown(tt.n, tt.cur, decisive)
		if len(got) > maxTicks {
			t.Errorf("ticksShown(%d, %d) shows %d; want at most %d", tt.n, tt.cur, len(got), maxTicks)
		}
		for i := 1; i < len(got); i++ {
			if got[i] <= got[i-1] {
				t.Fatalf("ticksShown(%d, %d) = %v; not in order", tt.n, tt.cur, got)
			}
		}
		for _, w := range tt.want {
			found := false
			for _, g := range got {
				found = found || g == w
			}
			if !found {
				t.Errorf("ticksShown(%d, %d) = %v; lacks %d", tt.n, tt.cur, got, w)
			}
		}
	}
}

// checkTrack checks the rendered track: one item per tick, a gap is an
// ellipsis and nothing else, every other item links a step, and no text
// leaks between the items.
func checkTrack(t *testing.T, page string, ticks []views.Tick) {
	t.Helper()
	start := strings.Index(page, `<ol class="track">`)
	end := strings.Index(page[max(start, 0):], "</ol>")
	if start < 0 || end < 0 {
		t.Fatal("the page has no step track")
	}
	track := page[start+len(`<ol class="track">`) : start+end]
	items := strings.Split(track, "</li>")
	if strings.TrimSpace(items[len(items)-1]) != "" {
		t.Errorf("text after the last tick: %q", items[len(items)-1])
	}
	items = items[:len(items)-1]
	if len(items) != len(ticks) {
		t.Fatalf("the track has %d items; want %d ticks", len(items), len(ticks))
	}
	for i, it := range items {
		it = strings.TrimSpace(it)
		if !strings.HasPrefix(it, "<li") {
			t.Errorf("tick %d: text before the item: %.80q", i, it)
		}
		switch {
		case ticks[i].Gap && (!strings.Contains(it, "tick-gap") || strings.Contains(it, "<a")):
			t.Errorf("tick %d is a gap; the item is %.120q", i, it)
		case !ticks[i].Gap && (!strings.Contains(it, `href="/`) || strings.Contains(it, "tick-gap")):
			t.Errorf("tick %d links step %s; the item is %.120q", i, ticks[i].URL, it)
		}
	}
}
