package web

import (
	"net/http/httptest"
	"sync"
	"testing"

	"ctxsim/web/internal/testlessons"
	"ctxsim/web/rooms"
	"ctxsim/web/uploads"
)

// testHosts are the names test servers answer to besides localhost and IP
// addresses: example.com is the host of httptest.NewRequest.
var testHosts = []string{"example.com"}

// builtins is the configuration of a server over the built-in lessons,
// loaded once per test binary.
func builtins() (Config, error) {
	b, err := testlessons.Builtin()
	return Config{Lessons: b.Lessons, Tokens: b.Tokens, Hosts: testHosts}, err
}

// sharedServer builds the Server once per test binary: loading o200k_base
// and running every preset policy takes a few seconds.
var sharedServer = sync.OnceValues(func() (*Server, error) {
	cfg, err := builtins()
	if err != nil {
		return nil, err
	}
	// Every test opens rooms from the same address; the per-client rate
	// has tests of its own, on servers of their own.
	cfg.RoomLimits = rooms.Limits{CreateBurst: 100_000}
	cfg.UploadLimits = uploads.Limits{Burst: 100_000}
	return New(cfg)
})

// newServerWith builds a Server of its own over the built-in lessons, with
// cfg's room store or logger.
func newServerWith(t testing.TB, cfg Config) *Server {
	t.Helper()
	base, err := builtins()
	if err != nil {
		t.Fatalf("load lessons: %v", err)
	}
	cfg.Lessons, cfg.Tokens = base.Lessons, base.Tokens
	cfg.Hosts = append(cfg.Hosts, testHosts...)
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("build server: %v", err)
	}
	return s
}

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

// apiDoc is the frames API as a client reads it (the contract, decoded
// independently of the server's own types).
type apiDoc struct {
	Lesson          string             `json:"lesson"`
	Window          int                `json:"window"`
	ThresholdTokens *int               `json:"threshold_tokens"`
	Policy          map[string]string  `json:"policy"`
	Frames          []apiFrame         `json:"frames"`
	CostModel       map[string]float64 `json:"cost_model"`
	Measured        map[string]float64 `json:"measured"`
}

type apiFrame struct {
	Step           int              `json:"step"`
	Kind           string           `json:"kind"`
	TraceStep      string           `json:"trace_step"`
	TotalTokens    int              `json:"total_tokens"`
	Error          *string          `json:"error"`
	Blocks         []apiBlock       `json:"blocks"`
	Pending        *apiBlock        `json:"pending"`
	MemoryFile     []string         `json:"memory_file"`
	MemoryInjected []string         `json:"memory_injected"`
	Events         []map[string]any `json:"events"`
	Narration      []string         `json:"narration"`
	Session        int              `json:"session"`
	Cache          map[string]any   `json:"cache"`
	Counters       map[string]any   `json:"counters"`
	Categories     []struct {
		Name   string `json:"name"`
		Tokens int    `json:"tokens"`
	} `json:"categories"`
	ProviderTokens       *int               `json:"provider_tokens"`
	ProviderCacheRead    *int               `json:"provider_cache_read"`
	ProviderCacheWritten *int               `json:"provider_cache_written"`
	Extra                map[string]float64 `json:"-"`
}

type apiBlock struct {
	ID         string   `json:"id"`
	Role       string   `json:"role"`
	Kind       string   `json:"kind"`
	Tokens     int      `json:"tokens"`
	Content    string   `json:"content"`
	Selected   bool     `json:"selected"`
	Recording  int      `json:"recording"`
	Mechanical bool     `json:"mechanical"`
	Provenance string   `json:"provenance"`
	Covers     []string `json:"covers"`
	Tool       string   `json:"tool"`
	ToolUseID  string   `json:"tool_use_id"`
	Chars      *int     `json:"chars"`
	Tier       *int     `json:"tier"`
	Distance   *int     `json:"distance"`
}
