package main

import (
	"strings"
	"testing"
)

// TestOfflineNamesMissingModule runs the database step the way make
// vulncheck does, against an empty module cache: it must not reach the
// network, and its error must name the module and what fetches it.
func TestOfflineNamesMissingModule(t *testing.T) {
	empty := t.TempDir()
	g := &goRunner{env: append(offlineEnv(empty), "GOMODCACHE="+empty, "GOTOOLCHAIN=local")}
	err := g.buildDB(t.TempDir())
	if err == nil {
		t.Fatal("buildDB with an empty module cache succeeded; want an error")
	}
	for _, want := range []string{"module cache lacks golang.org/x/vulndb@" + strings.Split(vulndb, "@")[1], "make vulncheck-deps"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("buildDB error = %q; want it to contain %q", err, want)
		}
	}
}

// TestOfflineEnv checks that every go command of an offline run reads
// modules from the cache's download directory.
func TestOfflineEnv(t *testing.T) {
	g, err := newGoRunner(false)
	if err != nil {
		t.Fatal(err)
	}
	cache := strings.Join(g.env, " ")
	if !strings.Contains(cache, "GOPROXY=file://") || !strings.Contains(cache, "/cache/download") {
		t.Errorf("offline env = %q; want GOPROXY=file://…/cache/download", cache)
	}
	online, _ := newGoRunner(true)
	if len(online.env) != 0 {
		t.Errorf("online env = %q; want none (the configured proxy)", online.env)
	}
}
