// Package importer turns a recorded agent session (package transcript)
// into a lesson directory that `ctxsim serve -lessons DIR` serves like any
// other: the session's messages become the trace, its compactions recorded
// summaries (replayed where they happened by the default policy), its
// provider usage a panel beside each model call, and the narration is
// generated from the trace with every figure filled from the frame. Its
// words are narration.LANG.md.tmpl, one file per language; its compressor
// is compressor.yaml.
//
// Build makes the lesson's files in memory and checks them: loaded and
// replayed as serve would. Write is Build and then the disk: the files go
// into a temporary directory moved into place, so a failed import leaves
// nothing behind and never touches a lesson already there.
package importer
