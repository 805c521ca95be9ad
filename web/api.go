package web

import (
	"net/http"

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
// gives (the default's values for the parameters it leaves out).
func (s *Server) apiFrames(c echo.Context) error {
	l, err := s.lesson(c.Param("id"))
	if err != nil {
		return err
	}
	p, err := ApplyQuery(l.Lesson, l.DefaultPolicy(), c.QueryParams())
	if err != nil {
		return err
	}
	r, err := s.runs.Run(l, p)
	if err != nil {
		return err
	}
	doc, err := s.pages.Frames(l, p, r)
	if err != nil {
		return err
	}
	return c.JSONBlob(http.StatusOK, doc)
}
