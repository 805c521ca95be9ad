package importer

import (
	"strconv"

	"ctxsim/authoring/summarizer"
	"ctxsim/authoring/transcript"
	"ctxsim/scenarios"
	"ctxsim/scenarios/lessonfile"
	"ctxsim/sim"
)

// words writes the texts of an import's lesson.yaml and summaries.yaml in
// every language (the templates of narration.LANG.md.tmpl). The first
// template that fails is kept in err: the files are not written then.
type words struct {
	t     *lessonfile.Texts
	file  string // the session file
	model string // the session's model
	err   error
}

// text is template name with data, in every language.
func (w *words) text(name string, data any) sim.Text {
	t, err := w.t.Text(name, data)
	if err != nil && w.err == nil {
		w.err = err
	}
	return t
}

// line is template name with data in the first language: a text the
// lesson holds in one language only (a card's text).
func (w *words) line(name string, data any) string {
	t, err := w.t.In(scenarios.Languages[0], name, data)
	if err != nil && w.err == nil {
		w.err = err
	}
	return t
}

// compaction says where a recorded summary comes from: the file and
// line, the session's model, and the model call that wrote it where the
// file beside the session records it.
func (w *words) compaction(c transcript.Compaction) sim.Text {
	data := struct {
		File, Trigger, Time, Model, PreTokens string
		Line                                  int
		Call                                  *compactCall
	}{File: w.file, Trigger: c.Trigger, Line: c.Line, Model: w.model}
	if c.PreTokens > 0 {
		data.PreTokens = thousands(c.PreTokens)
	}
	if data.Trigger == "" {
		data.Trigger = "unknown"
	}
	if !c.Time.IsZero() {
		data.Time = c.Time.UTC().Format("2006-01-02 15:04 UTC")
	}
	if cc := c.Call; cc != nil {
		data.Call = &compactCall{File: cc.File, Model: cc.Model, Sent: len(cc.Prompt)}
		if u := cc.Usage; u != nil {
			data.Call.Tokens, data.Call.Read, data.Call.Written = thousands(u.InputTotal()), thousands(u.CacheRead), thousands(u.CacheCreation)
		}
	}
	return w.text("compaction-provenance", data)
}

// compactCall is what a summary's provenance says of the model call that
// wrote it.
type compactCall struct {
	File, Model           string
	Tokens, Read, Written string // its request by the provider's count ("": not recorded)
	Sent                  int    // the messages it was sent after the session's
}

// thousands writes n with a comma between thousands, as the pages write
// an exact count (170,251).
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// summarizer says where a summary the summarizer wrote at import comes
// from.
func (w *words) summarizer(sum summarizer.Summary) sim.Text {
	return w.text("summarizer-provenance", struct{ Model, Endpoint, API, Day string }{
		sum.Model, sum.Endpoint, string(sum.API), sum.Date.UTC().Format("2006-01-02")})
}
