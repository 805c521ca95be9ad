package web

import "ctxsim/views"

// tieredExtras adds the tiered-compaction lesson's badges and panels.
func (s *Server) tieredExtras(in pageInput, p *views.LessonPage) {}
