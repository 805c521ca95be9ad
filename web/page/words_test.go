package page

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/web/internal/testlessons"
)

// TestEveryWordTranslated renders the frames of every preset policy of
// every lesson (see everyWordOf for which), built in or imported (testlessons.Imported: the importer
// writes their narration and picks their mechanisms), in every language,
// and finds no catalog key left in the text: every word the page asked
// the catalog for exists. This is the one place narration completeness
// is checked page by page (web's TestImportedLessons serves a page of
// each kind over HTTP and no longer renders every state).
func TestEveryWordTranslated(t *testing.T) {
	s := newFixture(t)
	imported, err := testlessons.Imported()
	if err != nil {
		t.Fatal(err)
	}
	b, err := testlessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	si, err := prepare(b.Tokens, imported)
	if err != nil {
		t.Fatalf("prepare the imported sessions: %v", err)
	}
	var builtin, all atomic.Int64
	t.Run("lessons", func(t *testing.T) {
		for _, l := range s.lessons {
			t.Run(l.ID, func(t *testing.T) {
				t.Parallel()
				n := everyWordOf(t, s, l)
				builtin.Add(int64(n))
				all.Add(int64(n))
			})
		}
		for _, l := range imported {
			t.Run(l.ID, func(t *testing.T) {
				t.Parallel()
				n := everyWordOf(t, si, l)
				if n == 0 {
					t.Errorf("%s: no page checked", l.ID)
				}
				all.Add(int64(n))
			})
		}
	})
	t.Logf("%d pages rendered, %d of the built-in lessons", all.Load(), builtin.Load())
	if builtin.Load() < 500 {
		t.Errorf("checked %d pages of the built-in lessons; want every frame asking for its own words (over 500)", builtin.Load())
	}
}

// everyWordOf renders, in every language, every frame of l's default
// policy, the first and last frame of every other preset (their step bars
// and mode buttons), and every other frame of a preset that asks the
// catalog for words no frame rendered before asked for (wordsAsked), and
// fails on a catalog key left in the text; it returns the pages. A frame
// that asks for the same keys as one rendered differs in figures only.
func everyWordOf(t *testing.T, s *fixture, l *scenarios.Lesson) int {
	t.Helper()
	pages := 0
	var buf bytes.Buffer
	texts := l.Texts()
	def := l.DefaultPolicy()
	asked := map[string]bool{}
	for _, p := range l.PresetPolicies() {
		r, err := s.run(l, p)
		if err != nil {
			t.Fatalf("%s: run %s: %v", l.ID, p, err)
		}
		for i, f := range r.Frames {
			w := wordsAsked(f)
			if p != def && i > 0 && i < len(r.Frames)-1 && asked[w] {
				continue
			}
			asked[w] = true
			for _, lang := range languages() {
				st := State{Lang: lang, Lesson: l.ID, Policy: p, Step: i + 1}
				comp, err := s.b.Page(l, st)
				if err != nil {
					t.Fatalf("%s: %v", LessonURL(st), err)
				}
				buf.Reset()
				if err := comp.Render(context.Background(), &buf); err != nil {
					t.Fatalf("render %s: %v", LessonURL(st), err)
				}
				if k := testlessons.MissingKey(buf.String(), texts...); k != "" {
					t.Fatalf("%s shows the catalog key %q: its message is missing", LessonURL(st), k)
				}
				pages++
			}
		}
	}
	return pages
}

// wordsAsked is what in f names a catalog key or a narration section: its
// kind, narration keys, legend, line, refusal, session, events, panels
// (rows, notes, sections), counters, figures given as keys, each block's
// role, kind, label key, origin, summary and badges (the second window's
// too), and which typed payloads it carries (memory's state, the cache's
// reason, spend, categories, the provider's count). Two frames with the
// same wordsAsked ask the catalog for the same words.
func wordsAsked(f sim.Frame) string {
	var b strings.Builder
	fig := func(fs []sim.Figure) {
		for _, x := range fs {
			if x.Unit == sim.UnitKey {
				fmt.Fprintf(&b, "k=%s;", x.Str)
			}
		}
	}
	msg := func(m *sim.Msg) {
		if m != nil {
			fmt.Fprintf(&b, "m=%s;", m.Key)
			fig(m.Args)
		}
	}
	blocks := func(bs []sim.Block) {
		for _, x := range bs {
			fmt.Fprintf(&b, "b=%s/%s/%s/%t/%t/%t/%s;", x.Role, x.Kind, x.LabelKey, x.Origin != nil, x.Summary != nil, x.Usage != nil, x.Tool)
			if x.Origin != nil {
				msg(x.Origin)
			}
			for _, bd := range x.Badges {
				fmt.Fprintf(&b, "badge=%s/%s/%t;", bd.Key, bd.Tone, bd.Minor)
				fig(bd.Args)
			}
		}
	}
	fmt.Fprintf(&b, "%s|%s|%s|%s|%t|%t|%d|%t|", f.Kind, strings.Join(f.Narration, ","), f.Legend, f.Line.Key, f.Error != "", f.Alert, f.Session, f.Decisive)
	for _, e := range f.Events {
		fmt.Fprintf(&b, "e=%s/%s/%t;", e.Type, e.Reason, e.Found != nil && *e.Found)
	}
	for _, p := range f.Panels {
		fmt.Fprintf(&b, "p=%s/%s/%s;", p.ID, p.Tone, p.Section)
		for _, r := range p.Rows {
			fmt.Fprintf(&b, "r=%s;", r.Key)
			fig(r.Values)
			msg(r.Note)
		}
		for _, n := range p.Notes {
			msg(&n)
		}
	}
	for _, c := range f.Counters {
		fmt.Fprintf(&b, "c=%s/%s;", c.Name, c.ByName)
	}
	fig(f.Figures)
	blocks(f.Blocks())
	if f.Pending != nil {
		b.WriteString("pending;")
		blocks([]sim.Block{*f.Pending})
	}
	if f.Second != nil {
		fmt.Fprintf(&b, "second=%s/%s/%s;", f.Second.LabelKey, f.Second.LegendKey, f.Second.IdleKey)
		blocks(f.Second.Blocks)
	}
	if m := f.Memory; m != nil {
		fmt.Fprintf(&b, "memory=%t/%t/%t;", m.Enabled, m.Injected != nil, len(m.New) > 0)
	}
	if f.Cache != nil {
		fmt.Fprintf(&b, "cache=%s/%t;", f.Cache.Reason, f.Cache.FirstChanged != "")
	}
	if f.Spend != nil {
		fmt.Fprintf(&b, "spend=%t;", f.Spend.Sub > 0)
	}
	for _, c := range f.Categories {
		fmt.Fprintf(&b, "cat=%s;", c.Name)
	}
	if f.Provider != nil {
		fmt.Fprintf(&b, "provider=%t;", f.Provider.Matches)
	}
	return b.String()
}
