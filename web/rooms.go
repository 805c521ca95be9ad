package web

import "github.com/labstack/echo/v4"

// roomRoutes registers the presenter-room and audience-follow routes.
func (s *Server) roomRoutes(e *echo.Echo) {}
