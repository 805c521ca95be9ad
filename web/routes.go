package web

import "github.com/labstack/echo/v4"

// routes is the whole URL surface of ctxsim, one line per route.
func (s *Server) routes(e *echo.Echo) {
	e.GET("/", s.index)                           // lesson list, language from cookie or Accept-Language
	e.GET("/healthz", s.healthz)                  // liveness for process supervisors
	e.GET("/static/:file", s.static)              // content-hashed CSS and JS, immutable
	e.GET("/api/lessons", s.apiLessons)           // JSON [{id, title}]
	e.GET("/api/lessons/:id/frames", s.apiFrames) // JSON frames of a lesson under a policy (query)
	// rooms: presenter and audience (web/rooms.go)
	s.roomRoutes(e)
	e.GET("/:lang", s.langOrLesson)                                        // /en, /ja: index; /<lesson>: redirect to a language
	e.GET("/:lang/", s.langOrLesson)                                       // same, with a trailing slash
	e.GET("/:lang/:lesson", s.lessonStart)                                 // redirect to the default state, step 1
	e.GET("/:lang/:lesson/:policy", s.lessonStart)                         // redirect to step 1 of that policy
	e.GET("/:lang/:lesson/:policy/handout", s.handout)                     // printable handout: key frames and narration
	e.GET("/:lang/:lesson/:policy/:step", s.lessonState)                   // one state of a lesson: the page
	e.GET("/:lang/:lesson/:policy/:step/:view", s.lessonState)             // the same state: present | notes
	e.GET("/:lang/:lesson/:policy/vs/:policyB/:step", s.lessonState)       // two policies side by side
	e.GET("/:lang/:lesson/:policy/vs/:policyB/:step/:view", s.lessonState) // the comparison on a projector
}
