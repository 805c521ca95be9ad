package page

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"ctxsim/sim"
	"ctxsim/views"
)

// frameCore are the fields of sim.Frame every frame has: the request (req,
// read through Blocks), the story and the captions. Every other field is a
// typed payload.
var frameCore = []string{"Step", "Kind", "TraceStep", "Narration", "req", "Total", "Error", "Pending", "Session", "Events",
	"Decisive", "Figures", "Panels", "Legend", "Line", "Alert"}

// TestPayloadsCoverFrame: every typed payload of sim.Frame is rendered by
// one entry of payloads, and every entry renders a field of sim.Frame: a
// payload added to the engine without its entry fails here.
func TestPayloadsCoverFrame(t *testing.T) {
	rendered := map[string]int{}
	for _, pl := range payloads {
		rendered[pl.field]++
		if pl.json == nil {
			t.Errorf("payload %s has no json: the frames API would not carry it", pl.field)
		}
	}
	ft := reflect.TypeOf(sim.Frame{})
	for i := range ft.NumField() {
		name := ft.Field(i).Name
		switch n := rendered[name]; {
		case n > 1:
			t.Errorf("sim.Frame.%s is rendered by %d entries of payloads; want one", name, n)
		case n == 0 && !slices.Contains(frameCore, name):
			t.Errorf("sim.Frame.%s is neither core nor rendered by an entry of payloads", name)
		case n == 1 && slices.Contains(frameCore, name):
			t.Errorf("sim.Frame.%s is core and a payload", name)
		}
	}
	for name := range rendered {
		if _, ok := ft.FieldByName(name); !ok {
			t.Errorf("payload %s renders no field of sim.Frame", name)
		}
	}
}

// TestPayloadsRendered: where a frame carries a payload, the frames API
// has its fields and the page what its entry shows.
func TestPayloadsRendered(t *testing.T) {
	s := newFixture(t)
	for _, tt := range []struct {
		lesson, param, value string // the run: the default, with one parameter changed
		field, apiKey        string
		page                 func(*frameView, views.LessonPage) bool // what the page shows of it
	}{
		{"context-memory", "memory", "on", "Memory", "memory_file",
			func(v *frameView, p views.LessonPage) bool {
				return p.Memory.Path == v.f.Memory.Path && p.Memory.Path != ""
			}},
		{"compression-strategies", "", "", "Spend", "spent_tokens", nil},
		{"subagent-isolation", "isolation", "on", "Second", "second_window",
			func(v *frameView, p views.LessonPage) bool {
				return p.Second != nil && p.Second.Total == v.f.Second.Total
			}},
		{"status-bar", "", "", "Cache", "cache", func(v *frameView, p views.LessonPage) bool {
			return v.f.Error != "" || strings.Contains(strings.Join(p.Narration.Changes, "\n"), cacheLineOf(v))
		}},
		{"tiered-compaction", "", "", "Counters", "counters", nil},
	} {
		t.Run(tt.field, func(t *testing.T) {
			l := s.byID[tt.lesson]
			p := l.DefaultPolicy()
			if tt.param != "" {
				var err error
				if p, err = l.With(p, tt.param, tt.value); err != nil {
					t.Fatal(err)
				}
			}
			r, err := s.run(l, p)
			if err != nil {
				t.Fatal(err)
			}
			doc, err := s.b.Frames(l, p, r)
			if err != nil {
				t.Fatal(err)
			}
			var api struct{ Frames []map[string]json.RawMessage }
			if err := json.Unmarshal(doc, &api); err != nil {
				t.Fatal(err)
			}
			carried := 0
			for i := range r.Frames {
				fv := reflect.ValueOf(r.Frames[i]).FieldByName(tt.field)
				if fv.IsZero() {
					continue
				}
				carried++
				if _, ok := api.Frames[i][tt.apiKey]; !ok {
					t.Errorf("%s step %d carries %s; the frames API lacks %s", l.ID, i+1, tt.field, tt.apiKey)
				}
				if tt.page == nil {
					continue
				}
				st := State{Lang: "en", Lesson: l.ID, Policy: p, Step: i + 1}
				lp, err := s.b.statePage(input{lesson: l, state: st, run: r})
				if err != nil {
					t.Fatal(err)
				}
				v := newFrameView(l, p, r, i, s.cat.For("en"))
				if !tt.page(v, lp) {
					t.Errorf("%s step %d carries %s; the page does not show it", l.ID, i+1, tt.field)
				}
			}
			if carried == 0 {
				t.Fatalf("no frame of %s under %s carries %s", l.ID, p, tt.field)
			}
		})
	}
}

// cacheLineOf is the cache sentence of a frame, as the catalog words it.
func cacheLineOf(v *frameView) string {
	return v.ui.F("cache.line."+v.f.Cache.Reason, v.frameArgs())
}
