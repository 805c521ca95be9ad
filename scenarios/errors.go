package scenarios

import "ctxsim/scenarios/lessonfile"

// Error is a problem in a lesson file, with where it is: the file, the
// line and the field (lessonfile.Error).
type Error = lessonfile.Error
