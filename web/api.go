package web

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"ctxsim/web/httperr"
	"ctxsim/web/page"

	"github.com/labstack/echo/v4"
)

// The frames API: instructors' tooling and the tests read it. Field names
// are a contract; extend, never rename. The document of a run is written
// by the page builder (page.Builder.Frames), where each typed payload of a
// frame is rendered for the API and the page from one place.

type lessonJSON struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

func (s *Server) lessonsJSON() []lessonJSON {
	out := make([]lessonJSON, 0, len(s.lib().list))
	for _, l := range s.lib().list {
		out = append(out, lessonJSON{ID: l.ID, Title: l.Title.In("en")})
	}
	return out
}

func (s *Server) apiLessons(c echo.Context) error {
	return c.JSON(http.StatusOK, s.lessonsJSON())
}

// apiFrames answers the frames of a lesson under the policy its query
// gives (the default's values for the parameters it leaves out), or the
// frames from and to name (1-based steps, both included). The answer is
// written frame by frame as it is made: a request holds one frame's
// blocks at a time, whatever the session's length.
func (s *Server) apiFrames(c echo.Context) error {
	l, err := s.lesson(c.Param("id"))
	if err != nil {
		return err
	}
	q := c.QueryParams()
	p, err := ApplyQuery(l.Lesson, l.DefaultPolicy(), q)
	if err != nil {
		return err
	}
	from, to, err := spanQuery(q)
	if err != nil {
		return err
	}
	r, err := s.runs.Run(l, p)
	if err != nil {
		return err
	}
	sp, err := spanOf(from, to, len(r.Frames))
	if err != nil {
		return err
	}
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, echo.MIMEApplicationJSON)
	res.Header().Set(headerFrameCount, strconv.Itoa(len(r.Frames)))
	out := &streamWriter{res: res, rc: http.NewResponseController(res)}
	if err := s.pages.WriteFrames(out, l, p, r, sp); err != nil {
		if !res.Committed {
			return err
		}
		s.log.Error("frames API: the answer stopped", "lesson", l.ID, "policy", p.String(), "err", err)
	}
	return nil
}

// headerFrameCount names the header that gives the run's frame count on
// every answer of the frames API.
const headerFrameCount = "X-Frame-Count"

// spanQuery reads the from and to parameters of the frames API: 1-based
// frame steps, each 0 when not given.
func spanQuery(q url.Values) (from, to int, err error) {
	for _, pr := range []struct {
		name string
		v    *int
	}{{"from", &from}, {"to", &to}} {
		vs, ok := q[pr.name]
		if !ok {
			continue
		}
		n, err := strconv.Atoi(vs[0])
		if len(vs) != 1 || err != nil || n < 1 || strconv.Itoa(n) != vs[0] {
			return 0, 0, httperr.BadParam(pr.name, "a frame step: an integer from 1")
		}
		*pr.v = n
	}
	return from, to, nil
}

// spanOf is the span of frames from to to of a run of n frames: from 1 and
// to n when not given (both 0: the whole run, as it has always been
// written).
func spanOf(from, to, n int) (page.Span, error) {
	if from == 0 && to == 0 {
		return page.Span{}, nil
	}
	from, to = cmp.Or(from, 1), cmp.Or(to, n)
	switch {
	case from > n:
		return page.Span{}, httperr.BadParam("from", fmt.Sprintf("a frame step from 1 to %d", n))
	case to < from || to > n:
		return page.Span{}, httperr.BadParam("to", fmt.Sprintf("a frame step from %d to %d", from, n))
	}
	return page.Span{From: from, To: to}, nil
}

// streamWriter writes an answer as it is made: the status line goes out
// with the first bytes, and each write gives the client another
// streamTimeout (the server's own write timeout bounds a whole answer, a
// long one takes longer).
type streamWriter struct {
	res *echo.Response
	rc  *http.ResponseController
}

// streamTimeout bounds how long one write of a streamed answer may take.
const streamTimeout = 30 * time.Second

func (w *streamWriter) Write(b []byte) (int, error) {
	if err := w.rc.SetWriteDeadline(time.Now().Add(streamTimeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return 0, err
	}
	return w.res.Write(b)
}
