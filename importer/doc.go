// Package importer turns a recorded agent session (package transcript)
// into a lesson directory that `ctxsim serve -lessons DIR` serves like any
// other: the session's messages become the trace, its compactions recorded
// summaries (replayed where they happened by the default policy), its
// provider usage a panel beside each model call, and the narration is
// generated from the trace with every figure filled from the frame.
//
// An import is written to a temporary directory, loaded and replayed under
// every preset policy, and only then moved into place, so a failed import
// leaves nothing behind and never touches a lesson already there.
package importer
