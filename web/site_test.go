package web

import (
	"strings"
	"sync"
	"testing"

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
// room script, a note where typed values need the server, the step field
// done by the script, and comparisons the copy does not hold disabled.
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
			[]string{meta}, []string{`data-room-slot`}, nil, []string{`data-testid="server-only"`}},
		{"presenter view", defaultState + "/4/present",
			[]string{meta, `data-room-js=""`}, []string{`data-room-slot`, `<script src="/static/room.`}, nil, []string{"is-disabled"}},
		{"speaker notes", defaultState + "/4/notes", []string{meta, `data-room-js=""`}, []string{`data-room-js="/static/room.`}, nil, []string{"data-room-slot"}},
		{"handout", defaultState + "/handout", []string{meta}, nil, nil, []string{"data-room-slot"}},
		{"comparison with the default", "/en/context-memory/" + cmLowThreshold + "/vs/" + cmPolicy + "/4",
			[]string{meta, `data-testid="server-only"`, "compares each preset with the default mode",
				// the right side: only the default is in the copy with this left side
				`<span class="seg-opt is-disabled" aria-disabled="true" title="needs the server (ctxsim serve)" data-testid="mode-b-compaction-off" data-control="mode-b-compaction-off">`},
			[]string{`data-room-slot`, `href="/en/context-memory/` + cmLowThreshold + `/vs/compaction-off.`},
			// the left side: any preset against the default is in the copy
			[]string{`href="/en/context-memory/compaction-on.memory-off.threshold-50.rec-1/vs/` + cmPolicy + `/4"`}, nil},
		{"the default compared on a projector", "/en/context-memory/" + cmPolicy + "/vs/" + cmOverflow + "/3/present",
			[]string{meta}, []string{`<script src="/static/room.`}, []string{`data-key="2" data-testid="quick-2"`}, []string{"is-disabled"}},
		{"a preset compared on a projector", "/en/context-memory/" + cmRec3 + "/vs/" + cmPolicy + "/3/present",
			// digits change the right side: only the default (1) is in the copy
			[]string{`<span class="seg-opt quick is-disabled" aria-disabled="true" data-testid="quick-2"`},
			[]string{`data-key="2" data-testid="quick-2"`}, []string{`data-key="1" data-testid="quick-1"`}, nil},
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
// step of every preset policy in the page, presenter and notes views, each
// policy's handout, and every comparison a page links to; a live server
// has no static site.
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
	for _, l := range s.lib().list {
		for _, lang := range languages() {
			for _, p := range l.PresetPolicies() {
				r, _ := s.runs.Run(l, p)
				for i := 1; i <= len(r.Frames); i++ {
					for _, v := range []string{"", page.ViewPresent, page.ViewNotes} {
						u := page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: p, Step: i, View: v})
						if !pages[u] {
							t.Fatalf("%s is not in the site", u)
						}
						want++
					}
				}
				if !pages["/"+lang+"/"+l.ID+"/"+p.String()+"/handout"] {
					t.Errorf("the handout of %s is not in the site", p)
				}
				want++
			}
			// the comparison each preset's Compare link leads to, and the
			// default against each quick mode
			def := l.DefaultPolicy()
			quick := page.QuickPolicies(l.Lesson)
			pairs := 0
			for _, p := range l.PresetPolicies() {
				pairs++
				if u := page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: p, Compare: &def, Step: 1, View: page.ViewPresent}); !pages[u] {
					t.Errorf("%s is not in the site", u)
				}
			}
			for _, q := range quick[1:] {
				pairs++
				if u := page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: def, Compare: &q, Step: 1}); !pages[u] {
					t.Errorf("%s is not in the site", u)
				}
			}
			for _, pair := range page.CopyPairs(l.Lesson) {
				n, _ := s.pages.Positions(l, page.State{Policy: pair[0], Compare: &pair[1]})
				want += 2 * n
			}
			if len(page.CopyPairs(l.Lesson)) != pairs {
				t.Errorf("%s: %d comparisons, want %d", l.ID, len(page.CopyPairs(l.Lesson)), pairs)
			}
		}
	}
	if len(site.Pages) != want {
		t.Errorf("the site has %d pages, want %d", len(site.Pages), want)
	}
	body, err := s.NotFoundPage("ja")
	if err != nil || !strings.Contains(string(body), `lang="ja"`) || !strings.Contains(string(body), "静的なコピーにはありません") || !strings.Contains(string(body), `data-status="404"`) {
		t.Errorf("NotFoundPage(ja): %v; want the Japanese 404 page of a static copy", err)
	}
}
