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
	e.POST("/rooms", r.Create)           // presenter: open a room → {code, key, join_url, state, seq}; same-origin, rate limited
	get("/rooms/:code", r.Current)       // the room's current state: {code, state}
	e.PUT("/rooms/:code", r.Publish)     // presenter: {key, state}; 404 once the room is gone
	e.DELETE("/rooms/:code", r.End)      // presenter: {key}; ends the room for everyone
	get("/rooms/:code/events", r.Events) // audience: text/event-stream, one "state" event per publish (HEAD: the headers only)
	get("/join/:code", r.Join)           // audience: redirect to the current state + #follow=CODE
	e.POST("/sessions", s.createSession) // upload a session (multipart field file, or the raw body) → 303 to its step 1; same-origin, limited
	own("/:lang", s.langOrLesson)        // /en, /ja: index; /<lesson>: redirect to a language
	own("/:lang/", s.langOrLesson)       // same, with a trailing slash
	// Every lesson path answers DELETE too: it forgets an uploaded session (the path's :lesson), same-origin.
	forgets := func(reg func(string, echo.HandlerFunc)) func(string, echo.HandlerFunc) {
		return func(path string, h echo.HandlerFunc) { reg(path, h); e.DELETE(path, s.forgetSession) }
	}
	lget, lown := forgets(get), forgets(own)
	lget("/:lang/:lesson", s.lessonStart)                           // redirect to the default state, step 1
	e.POST("/:lang/:lesson", s.forgetForm)                          // an uploaded session's "Forget this session now" form (_method=DELETE)
	lget("/:lang/:lesson/report", s.sessionReportPage)              // an uploaded session: what was read and redacted, then step 1
	lget("/:lang/:lesson/:policy", s.lessonStart)                   // redirect to step 1 of that policy
	own("/:lang/:lesson/text/:file", s.blockText)                   // one block's text (page.TextURL), content-addressed; ?at= the page that shows it
	lown("/:lang/:lesson/:policy/handout", s.handout)               // printable handout: key frames and narration
	lown("/:lang/:lesson/:policy/:step", s.lessonState)             // one state of a lesson: the page
	lown("/:lang/:lesson/:policy/:step/:view", s.lessonState)       // the same state: present | notes
	lown("/:lang/:lesson/:policy/vs/:b/:step", s.lessonState)       // two policies side by side
	lown("/:lang/:lesson/:policy/vs/:b/:step/:view", s.lessonState) // the comparison on a projector
}
