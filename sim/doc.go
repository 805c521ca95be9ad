// Package sim is the simulation engine of ctxsim: one replay loop (the
// harness) that replays a lesson's trace under a Policy and returns one
// Frame per visible step.
//
// A lesson names the mechanisms its harness runs (memory, compaction, a
// status bar, a tool-call counter, a clock, the tiered compressor, a
// workspace, tool-pair integrity, the prompt cache) and gives their data.
// The harness owns what every mechanism shares: the request, totals,
// sessions, frames and their kinds, events, prompt-cache metering and the
// refusal of a request above the window. Mechanisms plug into it through a
// few hooks (before a model call, after a tool result, at a session
// boundary, on every frame) and declare the URL parameters they read.
//
// The engine is pure: it reads no clock, no files and no network, and it
// knows nothing of HTTP, HTML or languages of the page. Every outcome a
// lesson teaches (a threshold crossing, a compaction range, a refusal, an
// answer that finds or misses a fact, a re-read) is derived here from the
// state of the simulated window, never typed into the lesson data. Frames
// carry neutral data (figures, annotations, panels with keys); the page
// turns keys into words.
package sim
