// Package httperr is the error every handler returns on purpose (pages, the
// frames API and the rooms alike): what went wrong, for whom, and the
// parameter at fault. Package web turns one into a response, in one place.
package httperr

import (
	"net/http"
	"strconv"

	"ctxsim/internal/textcut"
)

// Code is the kind of an error; Status maps it to its HTTP status.
type Code int

// Error codes.
const (
	Internal    Code = iota // a bug: 500, logged, never shown
	Invalid                 // bad input: 400, names the parameter and what it allows
	NotFound                // no such lesson, page or room: 404
	Forbidden               // a room's key does not match: 403
	Unavailable             // full for now: 503 with Retry-After
	TooMany                 // over a client's limit: 429 with Retry-After
	Misdirected             // a request for a host this server does not answer to: 421
	BadMethod               // a method the route does not take: 405 with Allow
	TooLarge                // a request body over the limit: 413
)

var statusOf = map[Code]int{
	Internal: http.StatusInternalServerError, Invalid: http.StatusBadRequest, NotFound: http.StatusNotFound,
	Forbidden: http.StatusForbidden, Unavailable: http.StatusServiceUnavailable, TooMany: http.StatusTooManyRequests,
	Misdirected: http.StatusMisdirectedRequest, BadMethod: http.StatusMethodNotAllowed,
	TooLarge: http.StatusRequestEntityTooLarge,
}

// Status is the HTTP status of an error of kind c.
func (c Code) Status() int { return statusOf[c] }

// Error is every error a handler returns on purpose: pages, the frames API
// and rooms alike.
type Error struct {
	Code    Code
	Param   string // the bad parameter (Invalid)
	Allowed string // what it allows (Invalid)
	Msg     string // for the user; a 500 never shows its cause
	// RetryAfter is the Retry-After of a 503 or 429, in seconds: 60 when 0.
	RetryAfter int
	// Reload asks a browser to load the page again after RetryAfter (a
	// Refresh header on the HTML page): the wait is short and certain.
	Reload bool
	// Key names the catalog message an HTML page shows in its language
	// instead of Msg, filled with Args; Msg is its English text.
	Key  string
	Args map[string]string
}

// Error is the message a user sees.
func (e *Error) Error() string { return e.Msg }

// BadParam is the 400 of a parameter: its name and what it allows.
func BadParam(name, allowed string) error {
	return &Error{Code: Invalid, Param: name, Allowed: allowed, Msg: "parameter " + name + ": allowed " + allowed}
}

// NoSuch is the 404 of what was asked for ("lesson \"x\" not found").
func NoSuch(what string) error { return &Error{Code: NotFound, Msg: what + " not found"} }

// Quote shows a user's value in a message, cut to 80 bytes on a rune
// boundary.
func Quote(s string) string {
	return strconv.Quote(textcut.Mark(s, 80, "…"))
}
