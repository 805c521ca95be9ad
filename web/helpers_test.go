package web

import (
	"net/http/httptest"
	"sync"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/tokens"
)

// sharedServer builds the Server once per test binary: loading o200k_base
// and running every preset policy takes about a second.
var sharedServer = sync.OnceValues(func() (*Server, error) {
	tok, err := tokens.New()
	if err != nil {
		return nil, err
	}
	lessons, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	if err != nil {
		return nil, err
	}
	return New(Config{Lessons: lessons, Tokens: tok})
})

// newTestServer returns the shared Server.
func newTestServer(t testing.TB) *Server {
	t.Helper()
	s, err := sharedServer()
	if err != nil {
		t.Fatalf("build server: %v", err)
	}
	return s
}

// startHTTP serves s on a loopback port for the duration of the test.
func startHTTP(t testing.TB, s *Server) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	return ts
}
