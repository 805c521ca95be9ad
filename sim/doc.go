// Package sim is the simulation engine of ctxsim: it replays a lesson's trace
// under a Policy and returns one Frame per visible step.
//
// The engine is pure: it reads no clock, no files and no network, and it knows
// nothing of HTTP or HTML. Every outcome a lesson teaches (a threshold
// crossing, a compaction range, an overflow refusal, an answer that finds or
// misses a fact) is derived here from the state of the simulated window, never
// typed into the lesson data.
package sim
