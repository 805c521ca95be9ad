package lessonfile

import (
	"fmt"
	"regexp"
	"strconv"
)

// Error is a problem in a lesson file, with where it is.
type Error struct {
	File  string // path of the file, as given to the loader
	Line  int    // 1-based; 0 when the problem is not on one line
	Field string // e.g. trace[3].messages[1].tokens
	Msg   string
}

// Error formats the problem as file:line: field F: message.
func (e *Error) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc += ":" + strconv.Itoa(e.Line)
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: field %s: %s", loc, e.Field, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}

var yamlLine = regexp.MustCompile(`line (\d+): (.*)`)

// yamlError turns a yaml.v3 error ("yaml: line 12: ...") into an *Error.
func yamlError(file string, err error) *Error {
	e := &Error{File: file, Msg: err.Error()}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = m[2]
		if f := fieldName.FindStringSubmatch(m[2]); f != nil {
			e.Field = f[1]
		}
	}
	return e
}

var fieldName = regexp.MustCompile(`field (\S+) not found`)
