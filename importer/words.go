package importer

import (
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
	"ctxsim/summarizer"
	"ctxsim/transcript"
)

// words writes the texts of an import's files that name where a text came
// from, in every language (narration.LANG.md.tmpl).
type words struct {
	t    *lessonfile.Texts
	file string // the session file
}

// compaction says where a recorded summary comes from.
func (w *words) compaction(c transcript.Compaction) (sim.Text, error) {
	data := struct {
		File, Trigger, Time string
		Line, PreTokens     int
	}{File: w.file, Trigger: c.Trigger, Line: c.Line, PreTokens: max(c.PreTokens, 0)}
	if data.Trigger == "" {
		data.Trigger = "unknown"
	}
	if !c.Time.IsZero() {
		data.Time = c.Time.UTC().Format("2006-01-02 15:04 UTC")
	}
	return w.t.Text("compaction-provenance", data)
}

// summarizer says where a summary the summarizer wrote at import comes
// from.
func (w *words) summarizer(sum summarizer.Summary) (sim.Text, error) {
	return w.t.Text("summarizer-provenance", struct{ Model, Endpoint, API, Day string }{
		sum.Model, sum.Endpoint, string(sum.API), sum.Date.UTC().Format("2006-01-02")})
}
