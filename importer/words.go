package importer

import (
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
	"ctxsim/summarizer"
	"ctxsim/transcript"
)

// words writes the texts of an import's lesson.yaml and summaries.yaml in
// every language (the templates of narration.LANG.md.tmpl). The first
// template that fails is kept in err: the files are not written then.
type words struct {
	t    *lessonfile.Texts
	file string // the session file
	err  error
}

// text is template name with data, in every language.
func (w *words) text(name string, data any) sim.Text {
	t, err := w.t.Text(name, data)
	if err != nil && w.err == nil {
		w.err = err
	}
	return t
}

// compaction says where a recorded summary comes from.
func (w *words) compaction(c transcript.Compaction) sim.Text {
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
	return w.text("compaction-provenance", data)
}

// summarizer says where a summary the summarizer wrote at import comes
// from.
func (w *words) summarizer(sum summarizer.Summary) sim.Text {
	return w.text("summarizer-provenance", struct{ Model, Endpoint, API, Day string }{
		sum.Model, sum.Endpoint, string(sum.API), sum.Date.UTC().Format("2006-01-02")})
}
