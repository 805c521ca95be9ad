package export

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHrefAndFile(t *testing.T) {
	for _, c := range []struct{ base, path, href, file string }{
		{"/", "/", "/", "index.html"},
		{"/", "/en", "/en/", "en/index.html"},
		{"/", "/en/", "/en/", "en/index.html"},
		{"/", "/en/cm/a-on.b-1/3", "/en/cm/a-on.b-1/3/", "en/cm/a-on.b-1/3/index.html"},
		{"/", "/en/cm/a-on.b-1/vs/a-off.b-1/3/present", "/en/cm/a-on.b-1/vs/a-off.b-1/3/present/", "en/cm/a-on.b-1/vs/a-off.b-1/3/present/index.html"},
		{"/", "/static/app.0123456789ab.css", "/static/app.0123456789ab.css", "static/app.0123456789ab.css"},
		{"/", "/api/lessons/cm/frames/a-on.b-1.json", "/api/lessons/cm/frames/a-on.b-1.json", "api/lessons/cm/frames/a-on.b-1.json"},
		{"/course/ctxsim/", "/", "/course/ctxsim/", "index.html"},
		{"/course/ctxsim/", "/ja/cm/a-on.b-1/3/notes", "/course/ctxsim/ja/cm/a-on.b-1/3/notes/", "ja/cm/a-on.b-1/3/notes/index.html"},
	} {
		if got := (links{base: c.base}).href(c.path); got != c.href {
			t.Errorf("href(%q) under %s = %q, want %q", c.path, c.base, got, c.href)
		}
		if got := fileOf(c.path); got != c.file {
			t.Errorf("fileOf(%q) = %q, want %q", c.path, got, c.file)
		}
	}
}

func TestRewrite(t *testing.T) {
	k := links{base: "/b/"}
	for _, c := range []struct{ in, want string }{
		{`<a href="/en/cm/p/3">x</a>`, `<a href="/b/en/cm/p/3/">x</a>`},
		{`<a class="x" href="/en/cm/p/3#sheet-m">x</a>`, `<a class="x" href="/b/en/cm/p/3/#sheet-m">x</a>`},
		{`<a href="#narration">x</a>`, `<a href="#narration">x</a>`},
		{`<link rel="stylesheet" href="/static/app.1.css"><script src="/static/app.1.js" defer></script>`, `<link rel="stylesheet" href="/b/static/app.1.css"><script src="/b/static/app.1.js" defer></script>`},
		{`<form class="jump" action="/en/cm/p/3" method="get" data-step-url="/en/cm/p/{step}/present">`, `<form class="jump" action="/b/en/cm/p/3/" method="get" data-step-url="/b/en/cm/p/{step}/present/">`},
		{`<div id="app" data-state-url="/en/cm/p/3" data-lesson="cm">`, `<div id="app" data-state-url="/b/en/cm/p/3/" data-lesson="cm">`},
		{`<body data-room-js="" data-static="true">`, `<body data-room-js="" data-static="true">`},
		{`<a href="//other.example/x">x</a><a href="https://example.com/">y</a>`, `<a href="//other.example/x">x</a><a href="https://example.com/">y</a>`},
		// not a URL attribute, or not an attribute at all
		{`<rect data-id="/x" title="/y"></rect><p>href="/z"</p>`, `<rect data-id="/x" title="/y"></rect><p>href="/z"</p>`},
		{`<p>a xhref="/z"</p>`, `<p>a xhref="/z"</p>`},
		{`<a` + "\n" + `href="/en">x</a>`, `<a` + "\n" + `href="/b/en/">x</a>`},
	} {
		got, err := k.rewrite([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("rewrite(%s) = %s, %v\n want %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`<a href="/en/cm/p/3?threshold=73">x</a>`, `<a href="/x`} {
		if _, err := k.rewrite([]byte(in)); err == nil {
			t.Errorf("rewrite(%s): no error", in)
		}
	}
	if _, err := k.rewrite([]byte(`<a href="/en/cm/p/3?threshold=73">`)); err == nil || !strings.Contains(err.Error(), "needs the server") {
		t.Errorf("a link with a query: %v; want an error saying it needs the server", err)
	}
}

func TestCheckBase(t *testing.T) {
	for in, want := range map[string]string{"": "/", "/": "/", "/ctxsim": "/ctxsim/", "/ctxsim/": "/ctxsim/", "/course/ctx-sim_2/": "/course/ctx-sim_2/"} {
		if got, err := CheckBase(in); err != nil || got != want {
			t.Errorf("CheckBase(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"ctxsim/", "//cdn/", "/a//b/", "/../x/", "/./x/", "/a b/", "/a?b/", "/a#b/", "https://x/"} {
		if got, err := CheckBase(in); err == nil || !strings.Contains(err.Error(), "-base") {
			t.Errorf("CheckBase(%q) = %q, %v; want an error naming -base", in, got, err)
		}
	}
}

// TestWriteRefuses: an export needs a new or empty directory and a
// server built for a static copy, and says so.
func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := mustExport(t, baseExport)
	if _, err := Write(context.Background(), e.static, Options{Dir: dir}); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("Write into a non-empty directory: %v; want an error saying it is not empty", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "keep.txt")); string(b) != "mine" {
		t.Errorf("the directory's file was changed: %q", b)
	}
	if _, err := Write(context.Background(), e.live, Options{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "Static") {
		t.Errorf("Write with a live server: %v; want an error naming Config.Static", err)
	}
	if _, err := Write(context.Background(), e.static, Options{Dir: t.TempDir(), Base: "no-slash/"}); err == nil {
		t.Errorf("Write with base no-slash/: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Write(ctx, e.static, Options{Dir: t.TempDir()}); err == nil {
		t.Errorf("Write with a cancelled context: no error")
	}
}
