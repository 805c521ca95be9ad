package web

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// Config is what a Server is built from.
type Config struct {
	Lessons []*scenarios.Lesson
	Tokens  sim.Tokenizer // counts excerpt text; shared, safe for concurrent use
	Log     *slog.Logger
}

// Server serves the lessons. It is immutable after New and safe for
// concurrent use.
type Server struct {
	echo    *echo.Echo
	lessons lessonSet
	tok     sim.Tokenizer
	presets map[runKey][]sim.Frame   // every preset policy, run once at start-up
	fit     map[string]int           // per lesson: the tallest window box of its preset runs, in u
	costs   map[runKey]sim.CostModel // status lessons: the cost model of every preset (status off)
	assets  assetSet
	log     *slog.Logger
}

type lessonSet struct {
	list []*scenarios.Lesson
	byID map[string]*scenarios.Lesson
}

type runKey struct {
	lesson string
	policy sim.Policy
}

// New builds a Server: it runs every preset policy of every lesson once,
// counts the excerpt tokens of every block those runs show, and builds the
// static assets.
func New(cfg Config) (*Server, error) {
	if cfg.Log == nil {
		cfg.Log = discardLogger()
	}
	s := &Server{tok: cfg.Tokens, log: cfg.Log, presets: map[runKey][]sim.Frame{}, fit: map[string]int{}, costs: map[runKey]sim.CostModel{},
		lessons: lessonSet{byID: map[string]*scenarios.Lesson{}}}
	for _, l := range cfg.Lessons {
		if _, dup := s.lessons.byID[l.ID]; dup {
			return nil, fmt.Errorf("lesson %q is defined twice", l.ID)
		}
		s.lessons.list = append(s.lessons.list, l)
		s.lessons.byID[l.ID] = l
		for _, p := range sim.PresetPolicies(l.Lesson) {
			frames, err := sim.Run(l.Lesson, p, cfg.Tokens)
			if err != nil {
				return nil, fmt.Errorf("run lesson %s: %w", l.ID, err)
			}
			s.presets[runKey{l.ID, p}] = frames
			s.warm(frames)
			for _, f := range frames {
				lo := layoutOf(f.Blocks, l.Window, l.ThresholdTokens(p.ThresholdPercent))
				s.fit[l.ID] = max(s.fit[l.ID], lo.box)
			}
			if l.Engine == sim.EngineStatus && p.Status == "off" && !p.Clock {
				s.costs[runKey{l.ID, p}] = sim.StatusCostModel(l.Lesson, p, cfg.Tokens)
			}
		}
	}
	for _, l := range s.lessons.list {
		if l.Engine == sim.EngineTiered {
			s.fit[l.ID] = s.tieredFit(l) // rows, not blocks: see present_tiered.go
		}
	}
	var err error
	if s.assets, err = buildAssets(s.blockIDs()); err != nil {
		return nil, err
	}
	s.echo = s.newEcho()
	return s, nil
}

// blockIDs lists every block id of every preset run, for view transitions.
func (s *Server) blockIDs() []string {
	var ids []string
	for _, frames := range s.presets {
		for _, f := range frames {
			for _, b := range f.Blocks {
				ids = append(ids, b.ID)
			}
			if f.Pending != nil {
				ids = append(ids, f.Pending.ID)
			}
		}
	}
	return ids
}

// warm counts every text once now, so pages never wait for the tokenizer.
func (s *Server) warm(frames []sim.Frame) {
	for _, f := range frames {
		for _, b := range f.Blocks {
			s.tok.Count(b.Content)
		}
		if f.Pending != nil {
			s.tok.Count(f.Pending.Content)
		}
	}
}

// run returns the frames of l under p: from the start-up runs for preset
// policies, computed now for any other.
func (s *Server) run(l *scenarios.Lesson, p sim.Policy) ([]sim.Frame, error) {
	if f, ok := s.presets[runKey{l.ID, p}]; ok {
		return f, nil
	}
	return sim.Run(l.Lesson, p, s.tok)
}

func (s *Server) newEcho() *echo.Echo {
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = s.handleError
	e.IPExtractor = echo.ExtractIPDirect()
	e.Use(middleware.Recover())
	e.Use(middleware.SecureWithConfig(middleware.SecureConfig{
		XSSProtection:         "0",
		ContentTypeNosniff:    "nosniff",
		XFrameOptions:         "DENY",
		ReferrerPolicy:        "same-origin",
		ContentSecurityPolicy: ContentSecurityPolicy,
	}))
	e.Use(middleware.BodyLimit("64K"))
	e.Use(middleware.GzipWithConfig(middleware.GzipConfig{MinLength: 1024,
		Skipper: func(c echo.Context) bool { return isEventStream(c.Request().URL.Path) }}))
	s.routes(e)
	return e
}

// ContentSecurityPolicy allows scripts and styles from this origin only: no
// inline script, no inline style, no other host.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

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
