package web

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"mime"
	"mime/multipart"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"ctxsim/authoring/importer"
	"ctxsim/authoring/transcript"
	"ctxsim/scenarios"
	"ctxsim/sim"
	"ctxsim/views"
	"ctxsim/web/httperr"
	"ctxsim/web/internal/lru"
	"ctxsim/web/page"
	"ctxsim/web/rooms"
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

// The handlers of uploaded sessions: POST /sessions reads a session file
// (with the files a Claude Code session keeps beside it), imports it in
// memory as `ctxsim import` does, and answers 303 See Other to its first
// step (or, from the index's form, to its report); DELETE on any of its
// addresses, or the pages' "Forget this session now" form, forgets it.

// uploadForm is what POST /sessions sent.
type uploadForm struct {
	files transcript.Files // the session at main, the files beside it where the reader looks for them
	main  string
	size  int64  // bytes of the files
	keep  bool   // keep as recorded: no redaction, the uploader's explicit choice
	lang  string // the page's language ("" when not said)
	next  string // "report": answer with the report (the index's form)
}

// maxUploadBody bounds a request's body: the files (uploads.MaxBytes) and
// the form's parts around them.
const maxUploadBody = uploads.MaxBytes + 64<<10

// Limits on what an uploaded session may hold, besides its bytes: past
// one, the reader refuses it at the line where it went over (413).
const (
	maxUploadRecords  = 200_000
	maxUploadMessages = 20_000
)

// maxReceiving bounds the uploads a server reads and imports at once: each
// holds its files (up to 32 MiB) in memory meanwhile.
const maxReceiving = 8

// uploadTime bounds reading an upload and answering it: 32 MiB at 300
// KB/s, a slow classroom network, and the import after it.
const uploadTime = 2 * time.Minute

// createSession is POST /sessions.
func (s *Server) createSession(c echo.Context) error {
	if s.uploads == nil {
		return httperr.NoSuch("page \"/sessions\"")
	}
	r := c.Request()
	if lang := r.URL.Query().Get("lang"); slices.Contains(languages(), lang) {
		c.Set(langKey, lang) // the pages that answer speak the form's language (its action says it)
	}
	if !rooms.SameSite(r, s.trusted) {
		return &httperr.Error{Code: httperr.Forbidden, Param: "origin", Key: "upload.err.origin",
			Msg: "sessions are uploaded from this site's own pages only"}
	}
	if r.ContentLength > maxUploadBody {
		return tooLarge(c, r.ContentLength)
	}
	client := rooms.Client(c)
	if err := s.uploads.Admit(client, max(r.ContentLength, 0)); err != nil {
		return uploadErr(err)
	}
	select {
	case s.receiving <- struct{}{}:
		defer func() { <-s.receiving }()
	default:
		return &httperr.Error{Code: httperr.Unavailable, RetryAfter: 5, Key: "upload.err.busy",
			Msg: "this server is receiving as many sessions as it takes at once; try again in 5 seconds"}
	}
	rc := http.NewResponseController(c.Response())
	_ = rc.SetReadDeadline(time.Now().Add(uploadTime)) // not every ResponseWriter can; the server's own deadlines stay then
	_ = rc.SetWriteDeadline(time.Now().Add(uploadTime))
	r.Body = http.MaxBytesReader(c.Response(), r.Body, maxUploadBody)
	form, err := readUpload(r)
	if form != nil && slices.Contains(languages(), form.lang) {
		c.Set(langKey, form.lang)
	}
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return tooLarge(c, r.ContentLength)
		}
		return err
	}
	lang := s.langOf(c)
	ctx := r.Context()
	select {
	case s.importing <- struct{}{}:
	case <-ctx.Done():
		return nil // the uploader left
	}
	defer func() { <-s.importing }()
	id, err := uploads.NewID()
	if err != nil {
		return err
	}
	u, files, cost, err := s.importUpload(ctx, id, form)
	if err != nil {
		return err
	}
	if err := s.uploads.Put(ctx, id, client, form.size, files, u, cost); err != nil {
		return uploadErr(err)
	}
	to := firstStep(lang, u.lesson)
	if form.next == "report" {
		to = reportURL(lang, id)
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "private, no-store")
	return c.Redirect(http.StatusSeeOther, to)
}

// tooLarge is the 413 of an upload of size bytes (-1: not said, more
// than the limit). A browser shows the answer only once it has
// sent the body, so what is left of a body of a sensible size is read and
// dropped first (from memory: nothing is kept).
func tooLarge(c echo.Context, size int64) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(c.Request().Body, 2*maxUploadBody))
	mib := strconv.Itoa(uploads.MaxBytes >> 20)
	args := map[string]string{"max": mib}
	key := "upload.err.too-large"
	if size > 0 {
		args["size"] = fmt.Sprintf("%.1f", math.Ceil(float64(size)*10/(1<<20))/10) // over 32 MiB reads over 32.0
		key = "upload.err.too-large-size"
	}
	return &httperr.Error{Code: httperr.TooLarge, Param: "file", Allowed: "at most " + mib + " MiB", Key: key, Args: args,
		Msg: "an upload may be at most " + mib + " MiB; run ctxsim on your own machine for a larger session (ctxsim import FILE)"}
}

// readUpload reads the session files of a POST /sessions: the parts named
// file of a multipart form (streamed: nothing is written to disk, unlike
// ParseMultipartForm), or else the whole body as one file (?name=,
// ?keep=1, ?next= stand for the form's fields; ?lang= serves both).
func readUpload(r *http.Request) (*uploadForm, error) {
	f := &uploadForm{}
	var got []namedFile
	mr, err := r.MultipartReader()
	if errors.Is(err, http.ErrNotMultipart) {
		q := r.URL.Query()
		f.keep, f.lang, f.next = isOn(q.Get("keep")), q.Get("lang"), q.Get("next")
		data, err := io.ReadAll(io.LimitReader(r.Body, uploads.MaxBytes+1))
		if err != nil {
			return f, err
		}
		if len(data) > 0 {
			got = append(got, namedFile{cmp.Or(cleanName(q.Get("name")), "session.jsonl"), data})
		}
	} else if err != nil {
		return f, badBody()
	} else if got, err = readParts(mr, f); err != nil {
		return f, err
	}
	for _, nf := range got {
		f.size += int64(len(nf.data))
	}
	if f.size > uploads.MaxBytes {
		return f, &http.MaxBytesError{Limit: uploads.MaxBytes}
	}
	return f, f.place(got)
}

// namedFile is one uploaded file.
type namedFile struct {
	name string
	data []byte
}

// readParts reads a multipart form's parts into f; the files, in order.
// Fields other than file, keep, lang and next are read and dropped.
func readParts(mr *multipart.Reader, f *uploadForm) ([]namedFile, error) {
	var got []namedFile
	var size int64
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			return got, nil
		}
		if err != nil {
			return got, bodyErr(err)
		}
		switch part.FormName() {
		case "file":
			name := cleanName(part.FileName())
			data, err := io.ReadAll(io.LimitReader(part, uploads.MaxBytes-size+1))
			if err != nil {
				return got, bodyErr(err)
			}
			if size += int64(len(data)); size > uploads.MaxBytes {
				return got, &http.MaxBytesError{Limit: uploads.MaxBytes}
			}
			if name != "" || len(data) > 0 { // an empty file field sends a part without a name
				got = append(got, namedFile{cmp.Or(name, "session.jsonl"), data})
			}
		case "keep":
			f.keep = isOn(fieldValue(part))
		case "lang":
			f.lang = fieldValue(part)
		case "next":
			f.next = fieldValue(part)
		default:
			if _, err := io.Copy(io.Discard, part); err != nil {
				return got, bodyErr(err)
			}
		}
	}
}

// bodyErr is the error of a body that did not read: too large, or not a
// form.
func bodyErr(err error) error {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return err
	}
	return badBody()
}

func badBody() error {
	return &httperr.Error{Code: httperr.Invalid, Param: "body", Allowed: "a multipart/form-data form with the session file as field file, or the file itself",
		Key: "upload.err.body", Msg: "the upload is not a form with a file field, nor a file"}
}

// fieldValue is a short form field's value.
func fieldValue(p *multipart.Part) string {
	b, _ := io.ReadAll(io.LimitReader(p, 64))
	return strings.TrimSpace(string(b))
}

func isOn(v string) bool { return v == "1" || v == "on" || v == "true" }

// cleanName is an uploaded file's base name, or "" when it has none (a
// browser sends base names; a folder upload, paths).
func cleanName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" || len(name) > 255 || strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return ""
	}
	return name
}

// isSidecar reports whether an uploaded file is one a Claude Code
// session keeps beside it, in <session>/subagents/: a sub-agent's
// transcript (the compaction call's too) or its meta file.
func isSidecar(name string) bool {
	return strings.HasPrefix(name, "agent-") && (strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ".meta.json"))
}

// place puts the uploaded files where the reader looks for them: the one
// session file, and the sub-agent files beside it (transcript.SidecarName).
func (f *uploadForm) place(got []namedFile) error {
	var mains, sides []namedFile
	for _, nf := range got {
		if isSidecar(nf.name) {
			sides = append(sides, nf)
		} else {
			mains = append(mains, nf)
		}
	}
	if len(mains) == 0 && len(sides) == 1 { // a sub-agent's transcript, opened as a session
		mains, sides = sides, nil
	}
	switch {
	case len(mains) == 0:
		return &httperr.Error{Code: httperr.Invalid, Param: "file", Allowed: "one session file", Key: "upload.err.no-file",
			Msg: "choose a session file to upload"}
	case len(mains) > 1:
		return &httperr.Error{Code: httperr.Invalid, Param: "file", Allowed: "one session file (and the files of its subagents/ folder)",
			Key: "upload.err.two", Args: map[string]string{"a": mains[0].name, "b": mains[1].name},
			Msg: "upload one session at a time: " + mains[0].name + " and " + mains[1].name + " are both session files"}
	}
	f.main = mains[0].name
	f.files = transcript.Files{f.main: mains[0].data}
	for _, nf := range sides {
		name := transcript.SidecarName(f.main, nf.name)
		if _, dup := f.files[name]; dup {
			return &httperr.Error{Code: httperr.Invalid, Param: "file", Allowed: "each file once", Key: "upload.err.twice",
				Args: map[string]string{"file": nf.name}, Msg: nf.name + " was uploaded twice"}
		}
		f.files[name] = nf.data
	}
	return nil
}

// importUpload reads f's session as `ctxsim import` does (with redaction
// unless f keeps it as recorded) and builds its lesson in memory: what
// the server serves (u, which may hold cost bytes of memory) and the files
// stored for it (the lesson directory and its report).
func (s *Server) importUpload(ctx context.Context, id string, f *uploadForm) (*upload, map[string][]byte, int64, error) {
	opt := s.uploadRead
	opt.Redact, opt.Home = !f.keep, homeOf(f.files[f.main])
	sess, err := transcript.ReadFS(f.files, f.main, opt)
	if err != nil {
		return nil, nil, 0, readErr(f.main, err)
	}
	im, err := importer.Build(ctx, sess, importer.Options{ID: id, Redacted: !f.keep, Now: time.Now(), Tokens: s.tok})
	if err != nil {
		return nil, nil, 0, importErr(sess.File, err)
	}
	rep := sessionReport{File: sess.File, Format: string(sess.Format), Model: sess.Model, Files: len(f.files), Bytes: f.size,
		Records: sess.Records, Messages: im.Report.Messages, Calls: im.Report.Calls, Compactions: im.Report.Compactions,
		Subagents: len(sess.Subagents), Redacted: !f.keep, Redactions: sess.Redactions, Uploaded: time.Now().UTC()}
	u, cost, err := s.newUpload(im.Lesson, filesSize(im.Files), rep)
	if err != nil {
		return nil, nil, 0, importErr(sess.File, err)
	}
	files := maps.Clone(im.Files)
	if files[reportFile], err = json.Marshal(u.report); err != nil {
		return nil, nil, 0, err
	}
	return u, files, cost, nil
}

// cwdPattern finds the first working directory a session records (Claude
// Code records and Codex's session_meta both name it "cwd").
var cwdPattern = regexp.MustCompile(`"cwd"\s*:\s*("(?:[^"\\]|\\.)*")`)

// homePattern is a home directory at the start of a path: Linux, macOS,
// Windows.
var homePattern = regexp.MustCompile(`^(/home/[^/]+|/Users/[^/]+|/root|[A-Za-z]:[\\/]Users[\\/][^\\/]+)`)

// homeOf is the uploader's home directory as their session shows it (the
// home the redactor replaces with ~), or "/" (none: the server's own home
// has nothing to do with theirs) when the session does not show one.
func homeOf(data []byte) string {
	m := cwdPattern.FindSubmatch(data)
	if m == nil {
		return "/"
	}
	var cwd string
	if json.Unmarshal(m[1], &cwd) != nil {
		return "/"
	}
	if h := homePattern.FindString(cwd); h != "" {
		return h
	}
	return "/"
}

// readErr is what the uploader is told of a session file that did not
// read, in the page's language: the file and line, and what is wrong
// there (the reader's words).
func readErr(main string, err error) error {
	var te *transcript.Error
	if !errors.As(err, &te) {
		return fmt.Errorf("read an uploaded session: %w", err)
	}
	args := map[string]string{"file": cmp.Or(te.File, main), "line": strconv.Itoa(te.Line), "detail": te.Msg}
	e := &httperr.Error{Code: httperr.Invalid, Param: "file", Allowed: "a Claude Code, Codex CLI or Gemini CLI session (JSON Lines), or OpenAI chat messages (JSON)",
		Args: args, Msg: err.Error()}
	switch {
	case errors.Is(err, transcript.ErrTooLarge):
		e.Code, e.Key = httperr.TooLarge, "upload.err.limit"
	case te.Msg == "empty file":
		e.Key = "upload.err.empty"
	case strings.HasPrefix(te.Msg, "unknown format"):
		e.Key = "upload.err.format"
	case te.Line > 0 && strings.HasPrefix(te.Msg, "message "+args["line"]+":"):
		e.Key = "upload.err.message" // a JSON file's messages are counted, not its lines
	case te.Line > 0:
		e.Key = "upload.err.line"
	default:
		e.Key = "upload.err.read"
	}
	return e
}

// importErr is what the uploader is told of a session that read but did
// not become a lesson.
func importErr(file string, err error) error {
	return &httperr.Error{Code: httperr.Invalid, Param: "file", Allowed: "a session with at least one user and one assistant message",
		Key: "upload.err.import", Args: map[string]string{"file": file, "detail": uploads.Redact(err.Error())}, Msg: uploads.Redact(err.Error())}
}

// sessionReportPage is GET /{lang}/{id}/report: what was read of an uploaded
// session and what was redacted, then its first step.
func (s *Server) sessionReportPage(c echo.Context) error {
	lang, l, err := s.langAndLesson(c.Param("lang"), c.Param("lesson"))
	if err != nil {
		return err
	}
	u := s.localUpload(l)
	if u == nil {
		return httperr.NoSuch("uploaded session " + httperr.Quote(l.ID))
	}
	rememberLang(c, lang)
	ui := s.cat.For(lang)
	p := views.SessionReportPage{Lang: lang, UI: ui, Assets: s.assets.urls, Title: l.Title.In(lang), StartURL: firstStep(lang, l),
		ForgetURL: sessionURL(lang, l.ID), IndexURL: "/" + lang + "/", AltLang: views.Link{Label: ui.T("ui.other-lang"), URL: reportURL(page.OtherLang(lang), l.ID)},
		Redacted: u.report.Redacted, Shared: s.uploads.Shared(), Hours: int(s.uploads.TTL() / time.Hour)}
	p.Read, p.Redactions = reportFacts(ui, u.report), redactionRows(ui, u.report.Redactions)
	raw, err := s.renderPage(c.Request().Context(), views.SessionReport(p))
	if err != nil {
		return err
	}
	return c.HTMLBlob(http.StatusOK, raw)
}

// reportFacts are the lines of what was read, in ui's language.
func reportFacts(ui views.UI, r sessionReport) []views.Fact {
	n := func(v int) string { return strconv.Itoa(v) }
	facts := []views.Fact{
		{Label: ui.T("upload.report.file"), Value: r.File},
		{Label: ui.T("upload.report.format"), Value: ui.T("upload.format." + r.Format)},
		{Label: ui.T("upload.report.size"), Value: ui.F("upload.report.bytes", map[string]string{"files": n(r.Files), "size": fmt.Sprintf("%.1f", float64(r.Bytes)/(1<<20))})},
		{Label: ui.T("upload.report.records"), Value: n(r.Records)},
		{Label: ui.T("upload.report.messages"), Value: ui.F("upload.report.messages-v", map[string]string{"messages": n(r.Messages), "calls": n(r.Calls), "compactions": n(r.Compactions)})},
	}
	if r.Model != "" {
		facts = append(facts[:2], append([]views.Fact{{Label: ui.T("upload.report.model"), Value: r.Model}}, facts[2:]...)...)
	}
	if r.Subagents > 0 {
		facts = append(facts, views.Fact{Label: ui.T("upload.report.subagents"), Value: n(r.Subagents)})
	}
	return append(facts, views.Fact{Label: ui.T("upload.report.steps"), Value: n(r.Steps)})
}

// redactionRows are the redacted classes with their counts, in the order
// the redactor applies them.
func redactionRows(ui views.UI, counts map[string]int) []views.Fact {
	var out []views.Fact
	for _, c := range transcript.RedactionClasses {
		if n := counts[c]; n > 0 {
			out = append(out, views.Fact{Label: ui.T("upload.class." + c), Value: strconv.Itoa(n)})
		}
	}
	return out
}

// forgetSession is DELETE on any address of an uploaded session: it is
// forgotten, on every server (204).
func (s *Server) forgetSession(c echo.Context) error {
	if err := s.forget(c); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// forgetForm is the "Forget this session now" form: POST /{lang}/{id}
// with _method=DELETE, for pages without JavaScript. It answers a page
// that says the session is gone.
func (s *Server) forgetForm(c echo.Context) error {
	r := c.Request()
	if ct, _, _ := mime.ParseMediaType(r.Header.Get(echo.HeaderContentType)); ct != echo.MIMEApplicationForm {
		return httperr.BadParam("_method", "DELETE, in a form (application/x-www-form-urlencoded)")
	}
	if err := r.ParseForm(); err != nil || r.PostForm.Get("_method") != http.MethodDelete {
		return httperr.BadParam("_method", "DELETE")
	}
	if err := s.forget(c); err != nil {
		return err
	}
	lang := s.langOf(c)
	ui := s.cat.For(lang)
	raw, err := s.renderPage(r.Context(), views.Forgotten(views.ForgottenPage{Lang: lang, UI: ui, Assets: s.assets.urls, IndexURL: "/" + lang + "/"}))
	if err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderCacheControl, "private, no-store")
	return c.HTMLBlob(http.StatusOK, raw)
}

// forget forgets the uploaded session the request's path names: asked
// from this site only.
func (s *Server) forget(c echo.Context) error {
	r := c.Request()
	if !rooms.SameSite(r, s.trusted) {
		return &httperr.Error{Code: httperr.Forbidden, Param: "origin", Key: "upload.err.origin",
			Msg: "sessions are forgotten from this site's own pages only"}
	}
	id := c.Param("lesson")
	if s.uploads == nil || !uploads.IsID(id) {
		return httperr.NoSuch("uploaded session " + httperr.Quote(id))
	}
	if err := s.uploads.Forget(r.Context(), id); err != nil {
		return uploadErr(err)
	}
	return nil
}
