package transcript

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Error is a problem with the content of a session file, with where it is.
type Error struct {
	File string // the path given to Read
	Line int    // 1-based line (JSONL) or message number (JSON array index + 1); 0 for the file as a whole
	Msg  string // what is wrong
	Err  error  // the underlying cause, if any (an addition to the agreed API)
}

// Error formats the problem as "file:line: msg".
func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// errTooLong is the cause of an *Error for a line or element over MaxLine.
var errTooLong = errors.New("longer than the maximum line length")

// describeJSON says what is wrong with a value that did not decode, in the
// words a person fixing the file needs.
func describeJSON(err error) string {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return "broken JSON: " + err.Error()
	case errors.As(err, &typ):
		if typ.Field == "" {
			return "not a JSON object but " + withArticle(typ.Value)
		}
		return fmt.Sprintf("field %s is a JSON %s, not a %s", typ.Field, typ.Value, typ.Type)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "broken JSON: it ends in the middle of a value"
	}
	return err.Error()
}

// lineError is the *Error for a JSONL line that did not decode; a syntax
// error says at which byte of the line.
func lineError(path string, line int, err error) *Error {
	msg := describeJSON(err)
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		msg += fmt.Sprintf(" (byte %d of the line)", syn.Offset)
	}
	return &Error{File: path, Line: line, Msg: msg, Err: err}
}

// withArticle puts "a" or "an" before a JSON kind: "an array", "a number".
func withArticle(kind string) string {
	if kind != "" && strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an " + kind
	}
	return "a " + kind
}
