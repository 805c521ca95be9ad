package web

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"ctxsim/sim"
	"ctxsim/web/page"
)

// staticServer is a Server for a static copy over the built-in lessons,
// built once per test binary.
var staticServer = sync.OnceValues(func() (*Server, error) {
	cfg, err := builtins()
	if err != nil {
		return nil, err
	}
	cfg.Static = true
	return New(cfg)
})

func newStaticServer(t *testing.T) *Server {
	t.Helper()
	s, err := staticServer()
	if err != nil {
		t.Fatalf("build static server: %v", err)
	}
	return s
}

const (
	cmLowThreshold = "compaction-on.memory-on.threshold-50.rec-1"
	cmRec3         = "compaction-on.memory-on.threshold-92.rec-3"
)

// TestStaticPages: the same URL on a live server and on one built for a
// static copy differs only where a static copy must: the CSP in a meta tag
// (without frame-ancestors, which browsers ignore there), no room slot or
// room script, a note where typed values or modes need the server, the
// step field done by the script, and links to pages the copy does not hold
// (other modes, comparisons) disabled.
func TestStaticPages(t *testing.T) {
	live, static := newTestServer(t), newStaticServer(t)
	meta := `<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; script-src &#39;self&#39;;`
	tests := []struct {
		name          string
		path          string
		static, alive []string // in the static page only, in the live page only
		both, neither []string // in both, in neither
	}{
		{"lesson page", defaultState + "/4",
			[]string{meta, `data-static="true"`, `data-testid="server-only"`, "other values (Threshold 1–100) need the server (ctxsim serve)", `data-room-js=""`},
			[]string{`data-room-slot`, `data-room-js="/static/room.`}, nil, []string{"frame-ancestors", "is-disabled"}},
		{"lesson page, ja", "/ja/status-bar/status-replace.counter-off.clock-off.alpha-10/2",
			[]string{meta, "ほかの値（α キャッシュ単価 1–100）にはサーバー（ctxsim serve）が必要です"}, []string{`data-room-slot`}, nil, nil},
		{"lesson without typed values", "/en/tiered-compaction/strategy-tiered.floor-on.summarizer-ok.budget-attempts.pairs-kept/3",
			[]string{meta, `data-testid="server-only"`, "holds the default mode and each mode one change away from it"}, []string{`data-room-slot`}, nil, []string{"other values"}},
		{"a long lesson", "/en/real-compaction/compaction-recorded.threshold-85.window-200000/2",
			[]string{meta, "holds this long lesson under its default mode only", `<span class="seg-opt is-disabled" aria-disabled="true" title="needs the server (ctxsim serve)" data-testid="mode-compaction-on"`,
				`<span class="viewlink is-disabled" aria-disabled="true" title="needs the server (ctxsim serve)" data-testid="compare-toggle"`},
			[]string{`href="/en/real-compaction/compaction-on.threshold-85.window-200000/`, `href="/en/real-compaction/compaction-recorded.threshold-85.window-200000/vs/`}, nil, nil},
		{"a mode one change away", "/en/context-memory/" + cmOverflow + "/4",
			[]string{`<span class="viewlink is-disabled" aria-disabled="true" title="needs the server (ctxsim serve)" data-testid="compare-toggle"`,
				`<span class="seg-opt is-disabled" aria-disabled="true" title="needs the server (ctxsim serve)" data-testid="mode-memory-off"`},
			[]string{`href="/en/context-memory/` + cmOverflow + `/vs/`}, []string{`href="/en/context-memory/` + cmPolicy + `/`, `href="/en/context-memory/` + cmOverflow + `/4/present"`}, nil},
		{"presenter view", defaultState + "/4/present",
			[]string{meta, `data-room-js=""`}, []string{`data-room-slot`, `<script src="/static/room.`}, nil, []string{"is-disabled"}},
		{"speaker notes", defaultState + "/4/notes", []string{meta, `data-room-js=""`}, []string{`data-room-js="/static/room.`}, nil, []string{"data-room-slot"}},
		{"handout", defaultState + "/handout", []string{meta}, nil, nil, []string{"data-room-slot"}},
		{"comparison with the default", "/en/context-memory/" + cmPolicy + "/vs/" + cmLowThreshold + "/4",
			[]string{meta, `data-testid="server-only"`, "compares the default mode with each mode one change away from it",
				// the right side two changes away from the default: not in the copy
				`<span class="seg-opt is-disabled" aria-disabled="true" title="needs the server (ctxsim serve)" data-testid="mode-b-compaction-off" data-control="mode-b-compaction-off">`},
			[]string{`data-room-slot`, `href="/en/context-memory/` + cmPolicy + `/vs/compaction-off.memory-on.threshold-50.rec-1/`},
			// the digits change the right side to a mode one change away
			[]string{`data-key="2" data-testid="quick-2"`}, nil},
		{"the default compared on a projector", "/en/context-memory/" + cmPolicy + "/vs/" + cmOverflow + "/3/present",
			[]string{meta}, []string{`<script src="/static/room.`}, []string{`data-key="2" data-testid="quick-2"`}, nil},
		// A static copy cannot take an upload, and says so where the index offers it.
		{"index", "/en", []string{meta, `data-testid="upload-static"`, "it has no server to open your own session"},
			[]string{`data-testid="upload-form"`, `action="/sessions?lang=en"`}, []string{"ctxsim import SESSION.jsonl"}, nil},
		{"index, ja", "/ja", []string{`data-testid="upload-static"`, "自分のセッションを開くサーバーがありません"},
			[]string{`action="/sessions?lang=ja"`}, nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, l := get(t, static, tc.path).Body.String(), get(t, live, tc.path).Body.String()
			for _, want := range tc.static {
				if !strings.Contains(s, want) {
					t.Errorf("the static page lacks %s", want)
				}
				if strings.Contains(l, want) {
					t.Errorf("the live page has %s", want)
				}
			}
			for _, want := range tc.alive {
				if !strings.Contains(l, want) {
					t.Errorf("the live page lacks %s", want)
				}
				if strings.Contains(s, want) {
					t.Errorf("the static page has %s", want)
				}
			}
			for _, want := range tc.both {
				if !strings.Contains(s, want) || !strings.Contains(l, want) {
					t.Errorf("the pages do not both have %s", want)
				}
			}
			for _, not := range tc.neither {
				if strings.Contains(s, not) || strings.Contains(l, not) {
					t.Errorf("a page has %s", not)
				}
			}
		})
	}
}

// TestStaticSite: the site of a static copy has, in both languages, every
// step of the default policy and of each preset one parameter away from it
// (a lesson of over 100 steps: the default only) in the page, presenter and
// notes views, each such policy's handout, and the comparisons of the
// default with each of them that is a quick mode (page and presenter
// view), nothing else; a
// live server has no static site.
func TestStaticSite(t *testing.T) {
	if _, err := newTestServer(t).Site(); err == nil || !strings.Contains(err.Error(), "Config.Static") {
		t.Errorf("a live server's Site: %v; want an error naming Config.Static", err)
	}
	s := newStaticServer(t)
	site, err := s.Site()
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]bool{}
	for _, p := range site.Pages {
		if pages[p] {
			t.Errorf("%s is listed twice", p)
		}
		pages[p] = true
	}
	want := 3 // "/", "/en", "/ja"
	long := 0
	for _, l := range s.lib().list {
		def := l.DefaultPolicy()
		rd, _ := s.runs.Run(l, def)
		oneAway := func(p sim.Policy) bool {
			n := 0
			for _, pr := range l.Params() {
				if p.Get(pr.Name) != def.Get(pr.Name) {
					n++
				}
			}
			return n == 1 && len(rd.Frames) <= 100
		}
		if len(rd.Frames) > 100 {
			long++
		}
		for _, lang := range languages() {
			for _, p := range l.PresetPolicies() {
				held := p == def || oneAway(p)
				r, _ := s.runs.Run(l, p)
				for i := 1; i <= len(r.Frames); i++ {
					for _, v := range []string{"", page.ViewPresent, page.ViewNotes} {
						u := page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: i, View: v})
						if pages[u] != held {
							t.Fatalf("%s in the site: %v, want %v", u, pages[u], held)
						}
						if held {
							want++
						}
					}
				}
				if pages["/"+lang+"/"+l.ID+"/"+p.String()+"/handout"] != held {
					t.Errorf("the handout of %s in the site: %v, want %v", p, !held, held)
				}
				if !held || p == def {
					continue
				}
				want++ // its handout
				if !slices.Contains(page.QuickPolicies(l.Lesson), p) {
					continue // compared with the default only where the digit keys lead
				}
				n, _ := s.pages.Positions(l, page.State{Policy: def, Compare: &p})
				for i := 1; i <= n; i++ {
					for _, v := range []string{"", page.ViewPresent} {
						if u := page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: def, Compare: &p, Step: i, View: v}); !pages[u] {
							t.Fatalf("%s is not in the site", u)
						}
						want++
					}
				}
			}
			want++ // the default's handout
		}
	}
	if long == 0 {
		t.Errorf("no lesson of over 100 steps: the rule for long lessons is not tested")
	}
	if len(site.Pages) != want {
		t.Errorf("the site has %d pages, want %d", len(site.Pages), want)
	}
	body, err := s.NotFoundPage("ja")
	if err != nil || !strings.Contains(string(body), `lang="ja"`) || !strings.Contains(string(body), "静的なコピーにはありません") || !strings.Contains(string(body), `data-status="404"`) {
		t.Errorf("NotFoundPage(ja): %v; want the Japanese 404 page of a static copy", err)
	}
}
