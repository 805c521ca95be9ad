package importer

import (
	"context"
	"os"
	"testing"
	"time"

	"ctxsim/transcript"
)

func TestProfLocal(t *testing.T) {
	path := os.Getenv("PROF_SESSION")
	if path == "" {
		t.Skip()
	}
	s, err := transcript.Read(path, transcript.Options{Redact: true})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := Build(context.Background(), s, Options{Dir: t.TempDir(), Redacted: true, Now: time.Now(), Tokens: counter(t)}); err != nil {
		t.Fatal(err)
	}
	t.Logf("build %v", time.Since(start))
}
