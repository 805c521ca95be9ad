package export

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"ctxsim/scenarios"
	"ctxsim/web"
	"ctxsim/web/page"
)

// A page of the copy is the page the live server renders at the same URL,
// except for what a static copy does differently; sameAsLive removes each
// of those differences explicitly, asserting it is there, and then wants
// the two token for token:
//
//   - links point into the copy: under the base path, a page's with a
//     trailing slash (both sides are compared without base and slash);
//   - the copy's page carries its CSP in a meta tag and data-static on body;
//   - the live page links room.js (presenter views) and names it on body,
//     and has a slot for the room controls; the copy has neither;
//   - the copy's mode bar says which values need the server, where the
//     lesson has values the buttons do not offer;
//   - the copy's step field (a long lesson) is done by the script, with the
//     step URL as a template;
//   - in comparisons, a link to a comparison the copy does not hold is a
//     disabled option, and the copy says which comparisons it holds.

// differences counts the differences sameAsLive found, by kind, over a
// sample, so a test can want each of them seen.
type differences map[string]int

// sameAsLive compares the copy's page at server path p with the live one.
func sameAsLive(t *testing.T, e *exported, p string, seen differences) {
	t.Helper()
	live := serverGet(t, e.live, p)
	copied := []byte(readFile(t, e.dir, strings.TrimPrefix(pageURL(e.base, p), e.base)+"index.html"))
	lt, err := pageTokens(live, "/")
	if err != nil {
		t.Fatalf("live %s: %v", p, err)
	}
	ct, err := pageTokens(copied, e.base)
	if err != nil {
		t.Fatalf("copy of %s: %v", p, err)
	}
	if err := copyOnly(ct, seen); err != nil {
		t.Fatalf("copy of %s: %v", p, err)
	}
	if err := liveOnly(lt, seen); err != nil {
		t.Fatalf("live %s: %v", p, err)
	}
	lt, ct = kept(lt), kept(ct)
	for i, j := 0, 0; i < len(lt) || j < len(ct); i, j = i+1, j+1 {
		if i >= len(lt) || j >= len(ct) {
			t.Fatalf("%s: the copy has %d tokens, the live page %d", p, len(ct), len(lt))
		}
		if lt[i].String() == ct[j].String() {
			continue
		}
		// A live link the copy shows disabled: its target is not in the copy.
		if href := attr(lt[i], "href"); lt[i].Data == "a" && ct[j].Data == "span" && strings.Contains(attr(ct[j], "class"), "is-disabled") &&
			attr(lt[i], "data-testid") == attr(ct[j], "data-testid") {
			if _, err := os.Stat(filepath.Join(e.dir, filepath.FromSlash(strings.TrimPrefix(pageURL("/", href), "/")), "index.html")); err == nil {
				t.Fatalf("%s: %s is disabled in the copy, but the copy holds %s", p, attr(ct[j], "data-testid"), href)
			}
			seen["disabled link"]++
			i, j = skipElement(lt, i), skipElement(ct, j)
			continue
		}
		t.Fatalf("%s: token %d differs:\n live: %s\n copy: %s", p, i, lt[i], ct[j])
	}
}

// pageTokens tokenizes a page: URL attributes lose the base path (which
// they must start with) and their trailing slash.
func pageTokens(page []byte, base string) ([]html.Token, error) {
	z := html.NewTokenizer(bytes.NewReader(page))
	var out []html.Token
	for {
		if z.Next() == html.ErrorToken {
			return out, nil
		}
		tok := z.Token()
		for k, a := range tok.Attr {
			if !slices.Contains([]string{"href", "src", "action", "data-state-url", "data-step-url", "data-room-js", "data-text", "data-messages-js"}, a.Key) || !strings.HasPrefix(a.Val, "/") {
				continue
			}
			v, ok := strings.CutPrefix(a.Val, base)
			if !ok {
				return nil, fmt.Errorf("%s=%q is outside the base path %s", a.Key, a.Val, base)
			}
			path, frag, hasFrag := strings.Cut("/"+v, "#")
			if path = strings.TrimSuffix(path, "/"); path == "" {
				path = "/"
			}
			if hasFrag {
				path += "#" + frag
			}
			tok.Attr[k].Val = path
		}
		out = append(out, tok)
	}
}

// drop marks tokens removed (Data "\x00drop").
const drop = "\x00drop"

// copyOnly removes, from the copy's tokens, what only a static copy has,
// failing when a part every copy page has is missing.
func copyOnly(ts []html.Token, seen differences) error {
	metas, static := 0, 0
	for i := range ts {
		t := &ts[i]
		switch {
		case t.Data == "meta" && attr(*t, "http-equiv") == "Content-Security-Policy":
			if got := attr(*t, "content"); got != web.MetaContentSecurityPolicy {
				return fmt.Errorf("meta CSP %q, want %q", got, web.MetaContentSecurityPolicy)
			}
			metas++
			t.Data = drop
		case t.Data == "body" && t.Type == html.StartTagToken:
			if attr(*t, "data-static") != "true" {
				return fmt.Errorf("body has no data-static")
			}
			static++
			removeAttr(t, "data-static")
		case t.Type == html.StartTagToken && t.Data == "p" && attr(*t, "class") == "server-only":
			seen["server-only note"]++
			dropElement(ts, i)
		case t.Type == html.StartTagToken && attr(*t, "data-testid") == "upload":
			// the index: a copy cannot take an upload, and says so (web's TestStaticPages)
			seen["no upload"]++
			dropElement(ts, i)
		case t.Data == "form" && attr(*t, "data-step-url") != "":
			if err := staticJump(t); err != nil {
				return err
			}
			seen["static step field"]++
		}
	}
	if metas != 1 || static != 1 {
		return fmt.Errorf("%d meta CSP tags and %d bodies with data-static; want one of each", metas, static)
	}
	return nil
}

// staticJump checks the copy's step field (a template that is the form's
// action with the step number replaced, hidden until the script shows it)
// and makes it the live one.
func staticJump(t *html.Token) error {
	tpl, action := attr(*t, "data-step-url"), attr(*t, "action")
	if !strings.Contains(tpl, "/{step}") || attr(*t, "class") != "jump js-only" || !hasAttr(*t, "hidden") {
		return fmt.Errorf("static step field %s: want class jump js-only, hidden, a {step} template", t)
	}
	pre, post, _ := strings.Cut(tpl, "{step}")
	if !strings.HasPrefix(action, pre) || !strings.HasSuffix(action, strings.TrimSuffix(post, "/")) {
		return fmt.Errorf("step template %s does not match the form's action %s", tpl, action)
	}
	removeAttr(t, "data-step-url")
	removeAttr(t, "hidden")
	setAttr(t, "class", "jump")
	return nil
}

// liveOnly removes, from the live page's tokens, what only a server's page
// has: the room script, the body's reference to it, the room slot and the
// upload form.
func liveOnly(ts []html.Token, seen differences) error {
	for i := range ts {
		t := &ts[i]
		switch {
		case t.Data == "script" && t.Type == html.StartTagToken && strings.Contains(attr(*t, "src"), "/static/room."):
			seen["room script"]++
			dropElement(ts, i)
		case t.Data == "body" && t.Type == html.StartTagToken:
			if !strings.Contains(attr(*t, "data-room-js"), "/static/room.") {
				return fmt.Errorf("body names no room script: %s", t)
			}
			setAttr(t, "data-room-js", "")
		case t.Data == "div" && t.Type == html.StartTagToken && hasAttr(*t, "data-room-slot"):
			seen["room slot"]++
			dropElement(ts, i)
		case t.Type == html.StartTagToken && attr(*t, "data-testid") == "upload":
			seen["upload form"]++
			dropElement(ts, i)
		}
	}
	return nil
}

// dropElement marks the element starting at ts[i] and its content dropped.
func dropElement(ts []html.Token, i int) {
	end := skipElement(ts, i)
	for k := i; k <= end; k++ {
		ts[k].Data = drop
	}
}

// skipElement returns the index of the end tag of the element at ts[i].
func skipElement(ts []html.Token, i int) int {
	if ts[i].Type != html.StartTagToken {
		return i
	}
	depth := 0
	for k := i; k < len(ts); k++ {
		if ts[k].Data != ts[i].Data && ts[k].Data != drop {
			continue
		}
		switch ts[k].Type {
		case html.StartTagToken:
			depth++
		case html.EndTagToken:
			if depth--; depth == 0 {
				return k
			}
		}
	}
	return len(ts) - 1
}

func kept(ts []html.Token) []html.Token {
	return slices.DeleteFunc(ts, func(t html.Token) bool { return t.Data == drop })
}

func attr(t html.Token, key string) string {
	for _, a := range t.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func hasAttr(t html.Token, key string) bool {
	return slices.ContainsFunc(t.Attr, func(a html.Attribute) bool { return a.Key == key })
}

func removeAttr(t *html.Token, key string) {
	t.Attr = slices.DeleteFunc(t.Attr, func(a html.Attribute) bool { return a.Key == key })
}

func setAttr(t *html.Token, key, v string) {
	for k := range t.Attr {
		if t.Attr[k].Key == key {
			t.Attr[k].Val = v
		}
	}
}

// samplePages are, per lesson and language, the first, a middle and the
// last step of the default policy; the middle one's presenter view and
// notes; the handout; the comparison a non-default preset's Compare link
// leads to (and its presenter view), and the default's; plus the indexes.
func samplePages(t *testing.T, e *exported) []string {
	t.Helper()
	out := []string{"/", "/en", "/ja"}
	for _, l := range lessonsOf(t, e) {
		def := l.DefaultPolicy()
		quick := page.QuickPolicies(l.Lesson)
		n := framesOf(t, e, l.ID)
		for _, lang := range []string{"en", "ja"} {
			st := page.State{Lang: lang, Lesson: l.ID, Policy: def}
			for _, step := range []int{1, (n + 1) / 2, n} {
				st.Step = step
				out = append(out, page.LessonURL(st))
			}
			st.Step = (n + 1) / 2
			for _, v := range []string{page.ViewPresent, page.ViewNotes} {
				x := st
				x.View = v
				out = append(out, page.LessonURL(x))
			}
			out = append(out, "/"+lang+"/"+l.ID+"/"+def.String()+"/handout")
			if n > 100 || len(quick) < 2 {
				continue // a long lesson: the default only
			}
			// a mode one change away, and the default compared with it
			out = append(out, page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: quick[1], Step: 2}))
			cmp := page.State{Lang: lang, Lesson: l.ID, Policy: def, Compare: &quick[1], Step: 2}
			out = append(out, page.LessonURL(cmp))
			cmp.View = page.ViewPresent
			out = append(out, page.LessonURL(cmp))
		}
	}
	return out
}

// lessonsOf lists the lessons of an export.
func lessonsOf(t *testing.T, e *exported) []*scenarios.Lesson {
	t.Helper()
	ids := map[string]bool{}
	for _, p := range e.site.Pages {
		if parts := strings.Split(p, "/"); len(parts) > 3 {
			ids[parts[2]] = true
		}
	}
	var out []*scenarios.Lesson
	for _, l := range e.lessons {
		if ids[l.ID] {
			out = append(out, l)
		}
	}
	if len(out) != len(e.lessons) {
		t.Fatalf("the site has pages of %d lessons; the export was given %d", len(out), len(e.lessons))
	}
	return out
}

// framesOf is how many frames a lesson has under its default policy, read
// from the frames API of the live server.
func framesOf(t *testing.T, e *exported, id string) int {
	t.Helper()
	b := serverGet(t, e.live, "/api/lessons/"+id+"/frames")
	return bytes.Count(b, []byte(`"trace_step":`))
}

// TestExportSameAsServer compares a sample of the copy's pages with what the
// live server renders at the same URLs (sameAsLive), every API document
// and asset byte for byte, and the _headers with the headers the live
// server sends.
func TestExportSameAsServer(t *testing.T) {
	e := mustExport(t, builtinExport)
	seen := differences{}
	pages := samplePages(t, e)
	for _, p := range pages {
		sameAsLive(t, e, p, seen)
	}
	for _, k := range []string{"server-only note", "room script", "room slot", "disabled link"} {
		if seen[k] == 0 {
			t.Errorf("the sample of %d pages shows no %s; it should", len(pages), k)
		}
	}
	for _, d := range e.site.Docs {
		if got, want := readFile(t, e.dir, strings.TrimPrefix(d.Path, "/")), serverGet(t, e.live, d.URL); got != string(want) {
			t.Errorf("%s differs from the live %s", d.Path, d.URL)
		}
	}
	for _, a := range e.site.Assets {
		if got, want := readFile(t, e.dir, strings.TrimPrefix(a, "/")), serverGet(t, e.live, a); got != string(want) {
			t.Errorf("%s differs from the live one", a)
		}
	}
	checkHeaders(t, e)
	t.Logf("%d pages compared; differences: %v", len(pages), seen)
}

// checkHeaders wants _headers to give every path the headers the live
// server sends with a page, and the assets its caching.
func checkHeaders(t *testing.T, e *exported) {
	t.Helper()
	sections := map[string]map[string]string{}
	var cur map[string]string
	for _, line := range strings.Split(strings.TrimSpace(readFile(t, e.dir, "_headers")), "\n") {
		if name, value, ok := strings.Cut(strings.TrimSpace(line), ": "); ok && strings.HasPrefix(line, "  ") && cur != nil {
			cur[name] = value
			continue
		}
		cur = map[string]string{}
		sections[line] = cur
	}
	page := httptestHead(t, e.live, "/en")
	for _, n := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "X-Xss-Protection"} {
		if got, want := sections[e.base+"*"][n], page.Get(n); got != want || want == "" {
			t.Errorf("_headers %s* %s: %q; the server sends %q", e.base, n, got, want)
		}
	}
	asset := httptestHead(t, e.live, e.site.Assets[0])
	if got, want := sections[e.base+"static/*"]["Cache-Control"], asset.Get("Cache-Control"); got != want || !strings.Contains(want, "immutable") {
		t.Errorf("_headers %sstatic/* Cache-Control: %q; the server sends %q", e.base, got, want)
	}
	if len(sections) != 2 {
		t.Errorf("_headers has %d sections, want 2 (every path, the assets)", len(sections))
	}
}

func httptestHead(t *testing.T, s *web.Server, u string) http.Header {
	t.Helper()
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodHead, u, nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("HEAD %s = %d", u, rec.Code)
	}
	return rec.Header()
}
