package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"ctxsim/authoring/importer"
	"ctxsim/authoring/transcript"
	"ctxsim/authoring/transcript/synth"
	"ctxsim/scenarios"
	"ctxsim/web/page"
)

// BenchmarkImportedStepPage renders a step page of a long imported session
// (the synthetic 10,048-record Claude Code session of tools/gensession,
// 424 steps) under its default policy, with the page cache emptied before
// every request (the runs stay, as they do on a server once the policy's
// first page was opened): what a student waits for on a step no one has
// opened yet.
func BenchmarkImportedStepPage(b *testing.B) {
	base, err := builtins()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	path := filepath.Join(dir, "synthetic.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := synth.Write(f, synth.Options{Turns: 200, Rounds: 24, CompactEvery: 8, ResultChars: 2000, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	f.Close()
	sess, err := transcript.Read(path, transcript.Options{Redact: true})
	if err != nil {
		b.Fatal(err)
	}
	lessons := filepath.Join(dir, "lessons")
	rep, err := importer.Write(context.Background(), sess, importer.Options{Dir: lessons, ID: "long", Redacted: true, Now: time.Now(), Tokens: base.Tokens})
	if err != nil {
		b.Fatal(err)
	}
	extra, err := scenarios.Load(os.DirFS(lessons), "lessons", base.Tokens)
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Lessons: extra, Tokens: base.Tokens, Hosts: testHosts})
	if err != nil {
		b.Fatal(err)
	}
	l := s.lib().byID["long"]
	req := httptest.NewRequest(http.MethodGet, page.LessonURL(page.State{Lang: "en", Lesson: "long", Policy: l.DefaultPolicy(), Step: rep.Steps / 2}), nil)
	// The first visit replays the policies its mode links name (their
	// outlines): once per server, not per page.
	s.Handler().ServeHTTP(httptest.NewRecorder(), req)
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		s.caches.pages.Reset()
		rec := httptest.NewRecorder()
		b.StartTimer()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", req.URL, rec.Code)
		}
	}
}
