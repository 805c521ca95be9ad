package web

import "github.com/labstack/echo/v4"

// routes is the whole URL surface of ctxsim, one line per route. Every
// GET route answers HEAD too. Routes registered with own answer with bodies
// kept in memory in each content coding (pages, assets): the gzip
// middleware passes them by.
func (s *Server) routes(e *echo.Echo) {
	get := func(path string, h echo.HandlerFunc) { e.GET(path, h); e.HEAD(path, h) }
	own := func(path string, h echo.HandlerFunc) { get(path, h); s.encoded[path] = true }
	own("/", s.index)                           // lesson list, language from cookie or Accept-Language
	get("/healthz", s.healthz)                  // liveness for process supervisors
	get("/qr.svg", s.qrCode)                    // ?text=ADDRESS: a QR code of a room's join address
	own("/static/:file", s.static)              // content-hashed CSS and JS, immutable, precompressed
	get("/api/lessons", s.apiLessons)           // JSON [{id, title}]
	get("/api/lessons/:id/frames", s.apiFrames) // JSON frames of a lesson under a policy (query)
	r := s.rooms
	e.POST("/rooms", r.Create)                                     // presenter: open a room → {code, key, join_url, state, seq}; same-origin, rate limited
	get("/rooms/:code", r.Current)                                 // the room's current state: {code, state}
	e.PUT("/rooms/:code", r.Publish)                               // presenter: {key, state}; 404 once the room is gone
	e.DELETE("/rooms/:code", r.End)                                // presenter: {key}; ends the room for everyone
	e.GET("/rooms/:code/events", r.Events)                         // audience: text/event-stream, one "state" event per publish
	get("/join/:code", r.Join)                                     // audience: redirect to the current state + #follow=CODE
	own("/:lang", s.langOrLesson)                                  // /en, /ja: index; /<lesson>: redirect to a language
	own("/:lang/", s.langOrLesson)                                 // same, with a trailing slash
	get("/:lang/:lesson", s.lessonStart)                           // redirect to the default state, step 1
	get("/:lang/:lesson/:policy", s.lessonStart)                   // redirect to step 1 of that policy
	own("/:lang/:lesson/:policy/handout", s.handout)               // printable handout: key frames and narration
	own("/:lang/:lesson/:policy/:step", s.lessonState)             // one state of a lesson: the page
	own("/:lang/:lesson/:policy/:step/:view", s.lessonState)       // the same state: present | notes
	own("/:lang/:lesson/:policy/vs/:b/:step", s.lessonState)       // two policies side by side
	own("/:lang/:lesson/:policy/vs/:b/:step/:view", s.lessonState) // the comparison on a projector
}
