// Package draw lays out a context window to one exact scale: every block
// is tokens × scale tall, the box is the window's size at every step, and
// every label either fits inside its block or sits in a lane beside the
// column, joined to its block by a leader line, where no other label and
// no line crosses it. It knows no lesson, no HTML and no language: callers
// give the texts, it gives coordinates in the drawing's user units.
//
// Text widths are estimated from per-character widths measured in
// Chromium (widths.go, made by tools/fontwidths) with the fonts of a
// Debian machine, which are wider than most; the browser tests check that
// every label fits where it is drawn.
package draw
