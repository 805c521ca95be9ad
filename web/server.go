package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"ctxsim/authoring/transcript"
	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views/catalog"
	"ctxsim/web/hosts"
	"ctxsim/web/httperr"
	"ctxsim/web/page"
	"ctxsim/web/rooms"
	"ctxsim/web/rooms/store"
	"ctxsim/web/uploads"
)

// Config is what a Server is built from.
type Config struct {
	Lessons []*scenarios.Lesson
	Tokens  sim.Tokenizer // counts texts; shared, safe for concurrent use
	Log     *slog.Logger
	Catalog *catalog.Catalog // the page's words; the built-in catalog when nil
	Rooms   store.Store      // where rooms live; in memory (store.DefaultLimits) when nil
	// RoomLimits bound clients' rooms and event streams; zero fields take
	// rooms.DefaultLimits.
	RoomLimits rooms.Limits
	// TrustedProxies are the proxies whose X-Forwarded-For names the
	// client (for per-client limits) and whose X-Forwarded-Host counts as
	// this site (same-origin check). None by default: the peer address is
	// the client.
	TrustedProxies []netip.Prefix
	// Hosts are the names this server answers to besides localhost and IP
	// addresses (serve -host): a request that asks for another host (Host,
	// or a trusted proxy's X-Forwarded-Host) gets 421, as a DNS-rebinding
	// page's would. A static copy answers any host.
	Hosts []string

	// PageCacheBytes bounds the rendered pages kept in memory, with their
	// compressed encodings: 64 MiB when 0, nothing kept when negative.
	PageCacheBytes int64
	// ReplayCacheRuns bounds how many replays of non-preset policies (and
	// of presets too large to keep from start-up) are kept, a replay
	// counting one run per 2,000 blocks its frames hold: 256 when 0, none
	// when negative.
	ReplayCacheRuns int
	// Replays bounds the replays of non-preset policies (and of presets
	// not kept from start-up) that run at once, so that many requests for
	// new policies cannot each hold one: the CPUs when 0. A request that
	// finds them all busy for ReplayWait (5 s when 0) is answered 503 with
	// a Retry-After.
	Replays    int
	ReplayWait time.Duration
	// LongRun is the blocks (over all frames) of a lesson's default run
	// past which the lesson is a long session, prepared at start-up under
	// its default policy only: 100,000 when 0.
	LongRun int
	// Uploads is where uploaded sessions are shared by every server on it
	// (uploads.NATS); nil keeps each in the server that received it.
	Uploads uploads.Remote
	// UploadLimits bound uploaded sessions; zero fields take
	// uploads.DefaultLimits.
	UploadLimits uploads.Limits

	// Static renders pages for a static copy (ctxsim export, package
	// export): no rooms, the CSP in a meta tag, notes where a control needs
	// the server, and only the comparisons a static copy holds (Site).
	Static bool
}

// Server serves the lessons. It is safe for concurrent use; after New only
// its bounded caches change.
type Server struct {
	echo    *echo.Echo
	library atomic.Pointer[library] // the lessons; replaced whole by Add
	addMu   sync.Mutex              // serializes Add, Pending, Drop
	tok     sim.Tokenizer
	cat     *catalog.Catalog
	longRun int // Config.LongRun
	assets  assetSet
	page500 map[string][]byte // the 500 page per language, rendered at start-up
	rooms   *rooms.Service
	log     *slog.Logger
	caches  *caches         // rendered pages (pagecache.go)
	texts   *texts          // the block texts pages link to (blocktext.go)
	runs    *runs           // the lessons' runs: kept presets, cached replays (runs.go)
	pages   *page.Builder   // builds every page from a lesson, a state and its runs
	encoded map[string]bool // route paths whose handlers pick their own content coding
	hosts   *hosts.Rule     // the hosts this server answers to; nil for a static copy
	export  bool            // pages for a static copy (Config.Static)
	trusted []netip.Prefix  // Config.TrustedProxies
	// uploads are the uploaded sessions (nil in a static copy); receiving
	// bounds the uploads in progress (maxReceiving), importing the imports
	// running at once, one per CPU.
	uploads    *uploads.Store[*upload]
	receiving  chan struct{}
	importing  chan struct{}
	uploadRead transcript.Options // the reader's limits on an uploaded session
}

// New builds a Server: it runs every preset policy of every lesson once,
// renders every frame's narration in every language (a placeholder or a
// condition a frame cannot resolve stops start-up with its file and line),
// counts the texts those runs show, and builds the static assets.
func New(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = discardLogger()
	}
	// No log line names an uploaded session: its id is its secret.
	cfg.Log = slog.New(uploads.RedactHandler(cfg.Log.Handler()))
	if cfg.Catalog == nil {
		c, err := catalog.Load()
		if err != nil {
			return nil, err
		}
		cfg.Catalog = c
	}
	s := &Server{tok: cfg.Tokens, log: cfg.Log, longRun: cmp.Or(cfg.LongRun, defaultLongRun), cat: cfg.Catalog,
		caches: newCaches(cfg), encoded: map[string]bool{}, export: cfg.Static, trusted: cfg.TrustedProxies,
		importing: make(chan struct{}, runtime.GOMAXPROCS(0)), receiving: make(chan struct{}, maxReceiving),
		uploadRead: transcript.Options{MaxRecords: maxUploadRecords, MaxMessages: maxUploadMessages}}
	var err error
	if s.assets, err = buildAssets(s.cat.Script()); err != nil {
		return nil, err
	}
	if s.export {
		s.assets.urls.Static, s.assets.urls.CSP, s.assets.urls.Room = true, MetaContentSecurityPolicy, ""
	}
	s.runs = newRuns(&s.library, s.tok, cfg)
	if !s.export {
		s.uploads = s.newUploads(cfg)
		s.runs.upload = s.uploadRuns
	}
	s.texts = newTexts(s)
	s.pages = page.New(page.Config{Catalog: s.cat, Tokens: s.tok, Runs: s.runs, Assets: s.assets.urls, Log: s.log, Static: s.export, Texts: s.texts})
	lib := newLibrary()
	for _, l := range cfg.Lessons {
		if err := lib.claim(l.ID); err != nil {
			return nil, err
		}
	}
	ps, err := s.prepareAll(cfg.Lessons)
	if err != nil {
		return nil, err
	}
	for _, p := range ps {
		lib.add(p)
	}
	s.library.Store(lib)
	go s.assets.precompress() // a request for an asset before it is done compresses it itself
	if err := s.prerender500(); err != nil {
		return nil, fmt.Errorf("render the 500 page: %w", err)
	}
	rs := cfg.Rooms
	if rs == nil {
		rs = store.NewMemory(time.Now, store.DefaultLimits())
	}
	if !s.export {
		if s.hosts, err = hosts.New(cfg.Hosts, cfg.TrustedProxies); err != nil {
			return nil, err
		}
	}
	s.rooms = rooms.New(rooms.Config{Store: rs, Limits: cfg.RoomLimits, Trusted: cfg.TrustedProxies, CheckState: s.followState,
		Example: s.exampleState(), Log: s.log})
	s.echo = s.newEcho(cfg.TrustedProxies)
	return s, nil
}

func (s *Server) newEcho(trusted []netip.Prefix) *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = ipExtractor(trusted)
	// Before routing, so that every response has them: redirects, 404s,
	// 405s, 413s and 421s too.
	e.Pre(middleware.Recover())
	e.Pre(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection:         "0",
		ContentTypeNosniff:    "nosniff",
		XFrameOptions:         "DENY",
		ReferrerPolicy:        "same-origin",
		ContentSecurityPolicy: ContentSecurityPolicy,
	}))
	e.Pre(s.checkHost)
	// A typed or pasted URL with a trailing slash finds its page.
	e.Pre(middleware.RemoveTrailingSlashWithConfig(middleware.TrailingSlashConfig{RedirectCode: http.StatusMovedPermanently}))
	e.Use(middleware.BodyLimitWithConfig(middleware.BodyLimitConfig{Limit: "64K",
		Skipper: func(c echo.Context) bool { return c.Path() == "/sessions" }})) // an upload has its own limit (maxUploadBody)
	e.Use(privateUploads)
	e.Use(s.dynamicGzip())
	s.routes(e)
	return e
}

// checkHost answers 421 to a request for a host this server does not
// answer to (Config.Hosts). /healthz answers any host: supervisors and
// load balancers probe it by whatever name they know.
func (s *Server) checkHost(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if s.hosts == nil || r.URL.Path == "/healthz" || s.hosts.Allows(r) {
			return next(c)
		}
		host := httperr.Quote(s.hosts.Asked(r))
		return &httperr.Error{Code: httperr.Misdirected, Msg: "this server does not answer to the host " + host + " (serve -host NAME adds a name)",
			Key: "ui.error.misdirected", Args: map[string]string{"host": host}}
	}
}

// ContentSecurityPolicy allows scripts and styles from this origin only: no
// inline script, no inline style, no other host; no page may frame ours.
const ContentSecurityPolicy = MetaContentSecurityPolicy + "; frame-ancestors 'none'"

// MetaContentSecurityPolicy is the policy a page of a static copy carries
// in a meta tag: browsers ignore frame-ancestors there (and warn about
// it), so it is left out; a host that reads _headers adds it.
const MetaContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'"

// Handler returns the HTTP handler, for tests and for Serve.
func (s *Server) Handler() http.Handler { return s.echo }

// Serve listens on addr until ctx is done, then shuts down gracefully,
// letting requests in flight finish for up to 10 seconds.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.echo,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	rctx, stopReports := context.WithCancel(ctx)
	defer stopReports()
	go s.rooms.ReportRefusals(rctx)
	if s.uploads != nil {
		go s.uploads.Run(rctx)
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
