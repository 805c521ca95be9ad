package main

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// splitmix is splitmix64: a small seeded generator, so generated texts are
// the same on every machine and every Go version.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (r *splitmix) intn(n int) int { return int(r.next() % uint64(n)) }

func (r *splitmix) pick(xs []string) string { return xs[r.intn(len(xs))] }

// genCtx is what a generator draws from.
type genCtx struct {
	st   *repoState
	args map[string]any
	rng  *splitmix
	want []string
}

func (g *genCtx) arg(k string) string { s, _ := g.args[k].(string); return s }

// repoFiles lists the repository as it is now: tracked files with sizes.
func (g *genCtx) repoFiles() []repoFile {
	var out []repoFile
	seen := map[string]bool{}
	add := func(p string, n int) {
		if !seen[p] {
			seen[p] = true
			out = append(out, repoFile{Path: p, Bytes: n})
		}
	}
	for p, t := range g.st.files {
		add(p, len(t))
	}
	for i, p := range g.st.initial {
		if !g.st.pending[p] {
			add(p, len(g.st.texts[i]))
		}
	}
	for _, f := range g.st.repo {
		add(f.Path, f.Bytes)
	}
	slices.SortFunc(out, func(a, b repoFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// A generator returns fixed head lines, an endless source of body lines and
// fixed tail lines; assemble fills the body to the exact size.
type generator func(g *genCtx) (head []string, body func() string, tail []string)

var generators = map[string]generator{
	"tree":     genTree,
	"glob":     genGlob,
	"grep":     genGrep,
	"gofile":   genGoFile,
	"gotest":   genGoTest,
	"build":    genBuild,
	"lint":     genLint,
	"snapshot": genSnapshot,
}

func generatorNames() []string {
	var out []string
	for k := range generators {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// assemble joins head, body lines and tail into exactly chars characters
// (ASCII). The wanted lines go in early in the body; the last body line is
// cut to fit.
func assemble(head []string, body func() string, tail []string, want []string, chars int) (string, error) {
	var out strings.Builder
	for _, l := range head {
		out.WriteString(l + "\n")
	}
	tailLen := 0
	for _, l := range tail {
		tailLen += len(l) + 1
	}
	queue := slices.Clone(want)
	for n := 0; ; n++ {
		var l string
		if len(queue) > 0 && n%3 == 1 {
			l, queue = queue[0], queue[1:]
		} else {
			l = body()
		}
		room := chars - tailLen - out.Len()
		if len(l)+1 > room {
			if len(queue) > 0 {
				return "", fmt.Errorf("is too small for the generated head, tail and %d wanted lines", len(want))
			}
			if room < 0 {
				return "", fmt.Errorf("is too small for the generated head and tail (%d characters)", out.Len()+tailLen)
			}
			if room > 0 {
				out.WriteString(l[:room-1] + "\n") // the last line is cut to fit, as a truncated log would be
			}
			break
		}
		out.WriteString(l + "\n")
	}
	for _, l := range tail {
		out.WriteString(l + "\n")
	}
	if s := out.String(); utf8.RuneCountInString(s) != chars || !isASCII(s) {
		return "", fmt.Errorf("generated %d characters, want %d ASCII characters", utf8.RuneCountInString(s), chars)
	}
	return out.String(), nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// genTree lists a directory like `ls -lR`-ish tree output with sizes.
func genTree(g *genCtx) ([]string, func() string, []string) {
	dir := strings.TrimSuffix(g.arg("path"), "/")
	head := []string{dir + "/"}
	var entries []repoFile
	for _, f := range g.repoFiles() {
		if strings.HasPrefix(f.Path, dir+"/") {
			entries = append(entries, f)
		}
	}
	for _, f := range entries {
		head = append(head, fmt.Sprintf("  %-44s %7d bytes", strings.TrimPrefix(f.Path, dir+"/"), f.Bytes))
	}
	n := 0
	body := func() string {
		n++
		name := fmt.Sprintf("testdata/golden/%s_%02d.json", g.rng.pick([]string{"session", "cookie", "csrf", "store", "login"}), n)
		return fmt.Sprintf("  %-44s %7d bytes", name, 180+g.rng.intn(2400))
	}
	return head, body, []string{fmt.Sprintf("(%s: listing truncated by directory_list)", dir)}
}

// genGlob lists paths matching a glob over the repository.
func genGlob(g *genCtx) ([]string, func() string, []string) {
	pat := g.arg("pattern")
	base := path.Base(pat)
	var head []string
	for _, f := range g.repoFiles() {
		if ok, _ := path.Match(base, path.Base(f.Path)); ok {
			head = append(head, f.Path)
		}
	}
	n := 0
	body := func() string {
		n++
		return fmt.Sprintf("internal/auth/testdata/golden/session_%s_%02d.golden", g.rng.pick([]string{"create", "get", "touch", "revoke", "sweep", "list"}), n)
	}
	return head, body, nil
}

// genGrep prints matches of args.pattern (a regexp) in the repository's
// known texts, then generated matches in other files.
func genGrep(g *genCtx) ([]string, func() string, []string) {
	re, err := regexp.Compile(g.arg("pattern"))
	var head []string
	if err == nil {
		for _, f := range g.repoFiles() {
			text, ok := g.st.text(f.Path)
			if !ok {
				continue
			}
			for i, l := range strings.Split(text, "\n") {
				if re.MatchString(l) {
					head = append(head, fmt.Sprintf("%s:%d:%s", f.Path, i+1, strings.TrimSpace(l)))
				}
			}
		}
	}
	word := literalOf(g.arg("pattern"))
	files := []string{"cmd/web/main.go", "internal/account/handlers.go", "internal/account/handlers_test.go",
		"internal/admin/users.go", "internal/api/router.go", "internal/auth/middleware.go", "internal/auth/session_test.go"}
	forms := []string{"\tm := %s(cfg)", "\tif err := %s(ctx); err != nil {", "\t// %s is called once per request", "\tdefer %s()",
		"\tsessions := %s", "\ts.auth = %s", "\tgot, err := %s", "\t\treturn %s"}
	body := func() string {
		return fmt.Sprintf("%s:%d:%s", g.rng.pick(files), 12+g.rng.intn(380), strings.TrimSpace(fmt.Sprintf(g.rng.pick(forms), word)))
	}
	return head, body, nil
}

// literalOf returns the longest run of identifier characters in a regexp,
// to stand in for what it matched in generated lines.
func literalOf(pattern string) string {
	best := ""
	for _, w := range regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_.]*`).FindAllString(pattern, -1) {
		if len(w) > len(best) {
			best = w
		}
	}
	return best
}

// genGoFile writes a Go file of plausible shape for a path the lesson does
// not ship: test functions for _test.go files, HTTP handlers otherwise.
func genGoFile(g *genCtx) ([]string, func() string, []string) {
	p := g.arg("path")
	pkg := path.Base(path.Dir(p))
	head := []string{"// Copyright 2026 Acme Corp. All rights reserved.", "", "package " + pkg, "", "import (",
		"\t\"context\"", "\t\"net/http\"", "\t\"net/http/httptest\"", "\t\"testing\"", "\t\"time\"", ")", ""}
	nouns := []string{"Session", "Cookie", "CSRF", "Expiry", "IdleTimeout", "MaxPerUser", "Revoke", "Sweep", "Touch", "List"}
	verbs := []string{"Create", "Get", "Refresh", "Reject", "Clear", "Keep", "Rotate", "Count"}
	test := strings.HasSuffix(p, "_test.go")
	var queue []string
	body := func() string {
		if len(queue) == 0 {
			n, v := g.rng.pick(nouns), g.rng.pick(verbs)
			if test {
				queue = []string{
					fmt.Sprintf("func Test%s_%s(t *testing.T) {", n, v),
					"\tclock := newFakeClock(time.Date(2026, 3, 14, 9, 0, 0, 0, time.UTC))",
					"\tm := NewManager(Config{Now: clock.Now, TTL: time.Hour, IdleTimeout: 10 * time.Minute})",
					"\tt.Cleanup(m.Close)",
					fmt.Sprintf("\ts, err := m.Create(context.Background(), %q, \"203.0.113.%d\", \"test\")", "user-"+strconv.Itoa(1+g.rng.intn(90)), 1+g.rng.intn(250)),
					"\tif err != nil {", "\t\tt.Fatalf(\"Create: %v\", err)", "\t}",
					fmt.Sprintf("\tclock.Advance(%d * time.Minute)", 1+g.rng.intn(70)),
					fmt.Sprintf("\tif _, err := m.Get(context.Background(), s.ID); err != %s {", g.rng.pick([]string{"nil", "ErrExpired", "ErrRevoked"})),
					fmt.Sprintf("\t\tt.Errorf(\"%s after %s: err = %%v\", err)", v, strings.ToLower(n)),
					"\t}", "}", "",
				}
			} else {
				queue = []string{
					fmt.Sprintf("// %s%s handles the %s step of the sign-in flow.", v, n, strings.ToLower(n)),
					fmt.Sprintf("func (h *Handler) %s%s(w http.ResponseWriter, r *http.Request) {", v, n),
					"\tctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)", "\tdefer cancel()",
					"\ts := FromContext(ctx)", "\tif s == nil {", "\t\thttp.Redirect(w, r, \"/login?next=\"+r.URL.Path, http.StatusSeeOther)", "\t\treturn", "\t}",
					fmt.Sprintf("\th.log.InfoContext(ctx, %q, \"user\", s.UserID)", strings.ToLower(v+" "+n)),
					"\tw.WriteHeader(http.StatusNoContent)", "}", "",
				}
			}
		}
		l := queue[0]
		queue = queue[1:]
		return l
	}
	return head, body, nil
}

// genGoTest prints `go test -v` output; the wanted lines are the failures.
func genGoTest(g *genCtx) ([]string, func() string, []string) {
	names := []string{"TestManager_Create", "TestManager_Get", "TestManager_GetExpired", "TestManager_Touch",
		"TestManager_Revoke", "TestManager_RevokeAllForUser", "TestManager_MaxPerUser", "TestManager_Sweep",
		"TestManager_ListForUser", "TestCookie_RoundTrip", "TestMiddleware_NoCookie", "TestMiddleware_Expired",
		"TestCSRF_Header", "TestCSRF_Form", "TestMemoryStore_PutGet", "TestMemoryStore_ListByUser"}
	var queue []string
	body := func() string {
		if len(queue) == 0 {
			n := g.rng.pick(names)
			if g.rng.intn(3) == 0 {
				n += "/" + g.rng.pick([]string{"empty_user", "expired", "idle", "revoked", "oldest_goes", "two_tabs"})
			}
			queue = []string{"=== RUN   " + n, fmt.Sprintf("--- PASS: %s (0.%02ds)", n, g.rng.intn(5))}
		}
		l := queue[0]
		queue = queue[1:]
		return l
	}
	pkg := g.st.module + "/internal/auth"
	tail := []string{"PASS", fmt.Sprintf("ok  \t%s\t0.%03ds", pkg, 150+g.rng.intn(700))}
	if len(g.want) > 0 {
		tail = []string{"FAIL", fmt.Sprintf("FAIL\t%s\t0.%03ds", pkg, 150+g.rng.intn(700)), "FAIL"}
	}
	return nil, body, tail
}

// genBuild prints compiler or vet errors; the wanted lines come first.
func genBuild(g *genCtx) ([]string, func() string, []string) {
	head := []string{"# " + g.st.module + "/internal/auth"}
	msgs := []string{"m.sessions undefined (type *Manager has no field or method sessions)",
		"m.byUser undefined (type *Manager has no field or method byUser)", "undefined: Store",
		"not enough arguments in call to NewManager\n\thave (Config)\n\twant (Config, Store)"}
	files := []string{"internal/auth/session.go", "internal/auth/session_test.go", "internal/auth/middleware_test.go"}
	body := func() string {
		return fmt.Sprintf("%s:%d:%d: %s", g.rng.pick(files), 20+g.rng.intn(390), 2+g.rng.intn(30), strings.SplitN(g.rng.pick(msgs), "\n", 2)[0])
	}
	return head, body, []string{"internal/auth/session.go:1:1: too many errors"}
}

// genLint prints golangci-lint findings.
func genLint(g *genCtx) ([]string, func() string, []string) {
	finds := []string{"ineffectual assignment to err (ineffassign)", "Error return value of `m.store.Delete` is not checked (errcheck)",
		"context.Context should be the first parameter of a function (revive)", "unused parameter: ctx (unparam)",
		"exported method Manager.Stats should have comment or be unexported (revive)", "S1008: should use 'return' directly (gosimple)"}
	files := []string{"internal/auth/session.go", "internal/auth/store_memory.go", "internal/auth/store_redis.go", "internal/auth/middleware.go"}
	body := func() string {
		return fmt.Sprintf("%s:%d:%d: %s", g.rng.pick(files), 10+g.rng.intn(400), 1+g.rng.intn(40), g.rng.pick(finds))
	}
	return nil, body, []string{"level=info msg=\"[runner] linters took 3.1s with stages: goanalysis_metalinter: 2.9s\""}
}

// genSnapshot prints a browser accessibility snapshot of args.url.
func genSnapshot(g *genCtx) ([]string, func() string, []string) {
	url := g.arg("url")
	if url == "" {
		url = "http://localhost:8080/login"
	}
	head := []string{"### Page state", "- Page URL: " + url, "- Page Title: " + g.rng.pick([]string{"Sign in", "Your sessions", "Account"}) + " - Acme", "- Page Snapshot:", "```yaml", "- generic [ref=e1]:"}
	roles := []string{"link", "button", "textbox", "row", "cell", "listitem", "paragraph", "heading", "checkbox"}
	labels := []string{"Sign in", "Email", "Password", "Remember this device", "Forgot password?", "Sign out everywhere",
		"Chrome on macOS", "Firefox on Linux", "Safari on iPhone", "Last active 2 minutes ago", "203.0.113.7", "Revoke", "This device"}
	ref := 1
	body := func() string {
		ref++
		depth := 1 + g.rng.intn(4)
		return fmt.Sprintf("%s- %s %q [ref=e%d]", strings.Repeat("  ", depth), g.rng.pick(roles), g.rng.pick(labels), ref)
	}
	return head, body, []string{"```"}
}
