package web

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"ctxsim/scenarios"
)

const langCookie = "lang"

// langKey is where a handler puts the language a request says in its body
// (an upload's form) for the pages that answer it.
const langKey = "ctxsim.lang"

// langOf picks the page language: the path's (or the form's), then the
// cookie a previous page set, then Accept-Language; English otherwise.
func (s *Server) langOf(c echo.Context) string {
	if l := c.Param("lang"); slices.Contains(scenarios.Languages, l) {
		return l
	}
	if l, ok := c.Get(langKey).(string); ok {
		return l
	}
	if ck, err := c.Cookie(langCookie); err == nil && slices.Contains(scenarios.Languages, ck.Value) {
		return ck.Value
	}
	return acceptLanguage(c.Request().Header.Get("Accept-Language"))
}

// acceptLanguage returns the supported language the header prefers most.
func acceptLanguage(header string) string {
	best, bestQ := scenarios.Languages[0], 0.0
	for _, part := range strings.Split(header, ",") {
		tag, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		base, _, _ := strings.Cut(strings.ToLower(tag), "-")
		q := 1.0
		if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if slices.Contains(scenarios.Languages, base) && q > bestQ {
			best, bestQ = base, q
		}
	}
	return best
}

// rememberLang keeps the language of the page just shown for the next visit
// to "/". Over HTTPS (TLS here, or X-Forwarded-Proto: https from a proxy
// in front, as echo's Scheme reads it) the cookie is Secure. A client that
// sends the header over plain HTTP only gets a cookie its browser will not
// keep: it holds no secret.
func rememberLang(c echo.Context, lang string) {
	c.SetCookie(&http.Cookie{Name: langCookie, Value: lang, Path: "/", MaxAge: 365 * 24 * 3600, SameSite: http.SameSiteLaxMode, HttpOnly: true,
		Secure: c.Scheme() == "https"})
}
