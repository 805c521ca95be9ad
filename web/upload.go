package web

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"ctxsim/authoring/importer"
	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/web/httperr"
	"ctxsim/web/internal/lru"
	"ctxsim/web/page"
	"ctxsim/web/uploads"
)

// An uploaded session (POST /sessions) is a lesson known only by its id,
// which is 160 random bits (package uploads): /{lang}/{id}/… serves it
// with every view, as any lesson. It is never listed (the index and
// /api/lessons list the library), its pages and API answers are private
// and never stored by a cache (privateUploads), its pages and runs are
// kept in caches of its own that leave memory with it, never in the
// server's, and no log line names it (the server's logger redacts ids).

// upload is an uploaded session as the server serves it.
type upload struct {
	lesson *scenarios.Lesson
	report sessionReport
	runs   *runs             // its default run kept; other policies in its own bounded caches
	pages  *lru.Cache[*body] // its rendered pages
}

// sessionReport is what the report page of an uploaded session says it
// was: what was read, what was redacted. It travels with the lesson's
// files to the other servers (reportFile).
type sessionReport struct {
	File        string         `json:"file"`   // the session file's name (redacted as its content)
	Format      string         `json:"format"` // transcript.Format
	Model       string         `json:"model,omitempty"`
	Files       int            `json:"files"` // files uploaded: the session and those beside it
	Bytes       int64          `json:"bytes"` // uploaded
	Records     int            `json:"records"`
	Messages    int            `json:"messages"`
	Calls       int            `json:"calls"`
	Compactions int            `json:"compactions"`
	Subagents   int            `json:"subagents"`
	Steps       int            `json:"steps"`
	Redacted    bool           `json:"redacted"` // false: kept as recorded, by the uploader's choice
	Redactions  map[string]int `json:"redactions,omitempty"`
	Uploaded    time.Time      `json:"uploaded"`
}

// reportFile is the report's name among the files stored for a session:
// beside the lesson directory's files, none of which it can be.
const reportFile = ".ctxsim-upload.json"

// The caches of one uploaded session: a few policies' replays besides its
// default run, their outlines, and its pages in both encodings.
const (
	uploadReplayRuns = 8  // in runBlocks: about one more run of the real 3 MB session (15,000 blocks)
	uploadOutlines   = 64 // a few KB each
	uploadPageBytes  = 4 << 20
)

// uploadBlockBytes is what one block of a run holds in memory: 235 bytes
// measured over 20 runs of the real session (a sim.Block is 224; its
// texts are the lesson's), rounded up. With the lesson's files counted
// twice (their text, and what loading made of it), it is the cost model of
// an uploaded session in the memory budget: the real session (3.3 MB
// uploaded) counts 14 MB, its caches full; held with its first page
// rendered, it measures 4 MB (BenchmarkUpload).
const uploadBlockBytes = 300

// uploadCost is what an uploaded session may hold in memory, its caches
// full: its lesson (files bytes of lesson files), its default run, its
// other runs and its pages.
func uploadCost(files int64, def *sim.Replay) int64 {
	return 2*files + int64(frameBlocks(def)+uploadReplayRuns*runBlocks)*uploadBlockBytes + uploadPageBytes
}

// newUpload prepares l, an uploaded session loaded from files bytes of
// lesson files, to be served: its default run (the session as it
// happened) is run and checked; its other policies run when asked. cost is
// what it may hold in memory, its caches full.
func (s *Server) newUpload(l *scenarios.Lesson, files int64, rep sessionReport) (*upload, int64, error) {
	p, err := s.prepare(l, true)
	if err != nil {
		return nil, 0, err
	}
	def := p.runs[0]
	rep.Steps = len(def.r.Frames) // as the step bar counts them
	u := &upload{lesson: l, report: rep, pages: lru.New[*body](uploadPageBytes), runs: &runs{
		keep: &uploadKeeper{l: l, def: def.p, run: def.r, room: p.reserve}, tok: s.tok,
		replays: lru.New[*sim.Replay](uploadReplayRuns), outlines: lru.New[*outline](uploadOutlines),
		slots: s.runs.slots, wait: s.runs.wait}} // the server's replay slots bound an upload's replays too
	return u, uploadCost(files, def.r), nil
}

// loadUpload rebuilds an uploaded session from the files stored for it (a
// server that did not receive it, with a shared store).
func (s *Server) loadUpload(id string, files map[string][]byte) (*upload, int64, error) {
	var rep sessionReport
	if err := json.Unmarshal(files[reportFile], &rep); err != nil {
		return nil, 0, fmt.Errorf("the session's report: %w", err)
	}
	lesson := maps.Clone(files)
	delete(lesson, reportFile)
	im := importer.Imported{ID: id, Files: lesson}
	l, err := scenarios.LoadDir(im.FS(), id, "", nil, s.tok)
	if err != nil {
		return nil, 0, err
	}
	return s.newUpload(l, filesSize(lesson), rep)
}

// filesSize is the bytes of files.
func filesSize(files map[string][]byte) int64 {
	var n int64
	for _, data := range files {
		n += int64(len(data))
	}
	return n
}

// uploadKeeper keeps an uploaded session's default run.
type uploadKeeper struct {
	l    *scenarios.Lesson
	def  sim.Policy
	run  *sim.Replay
	room float64 // below the box
}

func (k *uploadKeeper) kept(l *scenarios.Lesson, p sim.Policy) (*sim.Replay, bool) {
	return k.run, l == k.l && p == k.def
}
func (k *uploadKeeper) isKept(r *sim.Replay) bool { return r == k.run }
func (k *uploadKeeper) reserve(string) float64    { return k.room }

// newUploads is the server's store of uploaded sessions.
func (s *Server) newUploads(cfg Config) *uploads.Store[*upload] {
	return uploads.New(uploads.Config[*upload]{Limits: cfg.UploadLimits, Remote: cfg.Uploads, Load: s.loadUpload, Log: s.log})
}

// uploadRuns are the runs of the uploaded session id, which a request
// found (lesson) moments before; none when it has left meanwhile.
func (s *Server) uploadRuns(id string) (*runs, error) {
	if u, ok := s.uploads.Local(id); ok {
		return u.runs, nil
	}
	return nil, uploadErr(uploads.ErrNotFound)
}

// localUpload is the uploaded session l is, or nil when l is not one.
func (s *Server) localUpload(l *scenarios.Lesson) *upload {
	if s.uploads == nil || !uploads.IsID(l.ID) {
		return nil
	}
	if u, ok := s.uploads.Local(l.ID); ok && u.lesson == l {
		return u
	}
	return nil
}

// uploadErr is the error a visitor gets for an error of the uploads store.
func uploadErr(err error) error {
	var ref *uploads.Refused
	switch {
	case errors.Is(err, uploads.ErrNotFound):
		return &httperr.Error{Code: httperr.NotFound, Key: "upload.gone", Msg: uploads.ErrNotFound.Error(),
			Args: map[string]string{"hours": strconv.Itoa(int(uploads.TTL / time.Hour))}}
	case errors.Is(err, uploads.ErrUnavailable):
		return &httperr.Error{Code: httperr.Unavailable, RetryAfter: 2, Key: "upload.err.unavailable", Msg: uploads.ErrUnavailable.Error()}
	case errors.Is(err, uploads.ErrTooLarge):
		return &httperr.Error{Code: httperr.TooLarge, Param: "file", Allowed: "a session this server can hold", Key: "upload.err.memory-size",
			Msg: "the session is larger than this server keeps in memory; run ctxsim on your own machine (ctxsim import FILE)"}
	case errors.As(err, &ref):
		secs := int((ref.RetryAfter + time.Second - 1) / time.Second)
		args := map[string]string{"s": strconv.Itoa(secs)}
		switch ref.Limit {
		case uploads.LimitRate:
			return &httperr.Error{Code: httperr.TooMany, RetryAfter: secs, Key: "upload.err.rate", Args: args,
				Msg: "too many uploads from this address; try again in " + args["s"] + " seconds"}
		case uploads.LimitClientBytes:
			return &httperr.Error{Code: httperr.TooMany, RetryAfter: secs, Key: "upload.err.client-bytes", Args: args,
				Msg: "this address holds as many uploaded bytes as this server keeps for one address; forget a session, or try again in " + args["s"] + " seconds"}
		}
		return &httperr.Error{Code: httperr.Unavailable, RetryAfter: secs, Key: "upload.err.memory", Args: args,
			Msg: "this server's memory for uploaded sessions is full of sessions in use; try again in " + args["s"] + " seconds"}
	}
	return err
}

// privateUploads marks every answer about an uploaded session (a path
// that names one) private: no shared cache stores it, no browser cache
// keeps it, no search engine lists it.
func privateUploads(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if uploads.Mentions(c.Request().URL.Path) {
			h := c.Response().Header()
			h.Set(echo.HeaderCacheControl, "private, no-store")
			h.Set("X-Robots-Tag", "noindex, nofollow")
		}
		return next(c)
	}
}

// serveUpload answers with the page of u kept under key, rendering it
// first when it is not kept: in u's own page cache, with the bar every
// page of an uploaded session shows in lang, unless bar is false.
func (s *Server) serveUpload(c echo.Context, u *upload, lang, key string, bar bool, build func() (templ.Component, error)) error {
	if bar {
		sb := s.sessionBar(u, lang)
		inner := build
		build = func() (templ.Component, error) {
			comp, err := inner()
			if err != nil {
				return nil, err
			}
			return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
				return comp.Render(views.WithSessionBar(ctx, sb), w)
			}), nil
		}
	}
	return s.serveFrom(c, u.pages, key, varyCoding, build)
}

// sessionBar is what every page of u says about it, in lang.
func (s *Server) sessionBar(u *upload, lang string) views.SessionBar {
	return views.SessionBar{UI: s.cat.For(lang), ReportURL: reportURL(lang, u.lesson.ID), ForgetURL: sessionURL(lang, u.lesson.ID),
		Redacted: u.report.Redacted}
}

// sessionURL is an uploaded session's own address: GET opens its first
// step, DELETE (or the form's POST) forgets it.
func sessionURL(lang, id string) string { return "/" + lang + "/" + id }

// reportURL is the address of an uploaded session's report.
func reportURL(lang, id string) string { return sessionURL(lang, id) + "/report" }

// firstStep is the address of l's first step under its default policy.
func firstStep(lang string, l *scenarios.Lesson) string {
	return page.LessonURL(page.State{Lang: lang, Lesson: l.ID, Policy: l.DefaultPolicy(), Step: 1})
}
