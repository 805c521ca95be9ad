package importer

import (
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"

	"ctxsim/authoring/transcript"
	"ctxsim/scenarios/lessonfile"
)

// The narration of an imported session is generated: a section per step
// that names its blocks and fills every size from the frame, the
// mechanisms' sections (compaction, compressor, refusal) written once for
// any session, and about sections that say where the session comes from.
// Nothing in it is a claim about the session the frames do not show. The
// words are narration.LANG.md.tmpl, one file per language; this file
// decides what they say.

//go:embed narration.*.md.tmpl
var textFiles embed.FS

// texts are the words the importer writes, in every language.
var texts = sync.OnceValues(func() (*lessonfile.Texts, error) {
	return lessonfile.ParseTexts(textFiles, func(lang string) string { return "narration." + lang + ".md.tmpl" },
		template.FuncMap{"join": strings.Join})
})

// mechanismKeys are the sections of the frames the mechanisms make, for
// any session (templates of the same names).
var mechanismKeys = []string{"@step", "@crossed", "@selected", "selected@mechanical", "@summary", "summary@mechanical", "@replaced",
	"replaced@mechanical", "@overflow", "@refused", "@pass", "@decision"}

// aboutKeys are the about sections, in order (templates of the same names).
var aboutKeys = []string{"about:intro", "about:recording", "about:tokens-note", "about:simplifications", "figures"}

// narration writes the narration file of lang.
func narration(t *lessonfile.Texts, lang string, s *transcript.Session, tr *trace, info aboutInfo) (string, error) {
	var b strings.Builder
	section := func(key, name string, data any) error {
		text, err := t.In(lang, name, data)
		if err != nil {
			return fmt.Errorf("narration %s, %s: %w", lang, key, err)
		}
		fmt.Fprintf(&b, "@@ %s\n%s\n\n", key, text)
		return nil
	}
	about, err := aboutOf(t, lang, s, info)
	if err != nil {
		return "", err
	}
	for _, k := range aboutKeys {
		if err := section(k, k, about); err != nil {
			return "", err
		}
	}
	for _, st := range tr.steps {
		if st.Type != "" {
			continue
		}
		if err := section(st.Step, "step", stepOf(tr.kinds[st.Step])); err != nil {
			return "", err
		}
	}
	for _, k := range mechanismKeys {
		if err := section(k, k, nil); err != nil {
			return "", err
		}
	}
	return b.String(), nil
}

// stepView is what a step's section says. Its headline names only what
// every frame of the step holds or held (the step's user messages, what
// entered before the step began); its body names each other block under
// a condition that it is in the window.
type stepView struct {
	Carried   string   // a recorded summary the file starts from
	User      []string // the step's user messages
	Kept      []string // user messages a compaction kept
	End       bool     // the frame after the session's last answer
	Compacted bool     // the first frame after the point where the recorded session compacted
	Call      string   // the headline's call (what entered before the step), by call id
	Text      string   // the headline's answer text, when no call entered
	Items     []item   // the blocks the body names, up to groupItems
	More      bool     // and more than those
}

// groupItems is how many blocks a step's narration names.
const groupItems = 6

// stepOf decides what a step's section says.
func stepOf(k stepKind) stepView {
	v := stepView{Carried: k.carried, User: k.user, Kept: k.kept, End: k.end}
	for _, it := range k.carry {
		switch {
		case strings.HasPrefix(it.ID, "c") && it.Call == "":
			v.Compacted = true // a card: the summary the session compacted to
		case it.Call != "" && v.Call == "":
			v.Call = it.Call
		case it.Call == "" && v.Text == "" && strings.HasPrefix(it.ID, "a"):
			v.Text = it.ID
		}
	}
	for _, it := range append(slices.Clone(k.carry), k.earlier...) {
		if len(v.Items) == groupItems {
			v.More = true
			break
		}
		v.Items = append(v.Items, it)
	}
	return v
}

// aboutInfo is what the about sections state of the import.
type aboutInfo struct {
	window    int
	imported  time.Time
	calls     int
	redacted  bool
	generated int    // summaries a summarizer wrote at import
	origin    string // where the file comes from (Options.Origin)
}

// about is what the about sections say: the session, where it comes from
// and how it was recorded, how sizes are counted, what the replay leaves
// out. Every figure they quote from the file (counts, dates) is listed in
// Quoted, as the other lessons list what they quote from their sources;
// the frames show every other number.
type about struct {
	Title, File, Format, Model, Dates, Imported string
	Messages, Calls, Compactions                string // the counts, as the text quotes them
	Redacted                                    bool
	Redactions                                  []string // kind × n, by kind
	Usage, SystemRecorded                       bool
	Calibrated                                  bool   // the provider's counts size the blocks
	Requests                                    string // the recorded model calls, as the text quotes them
	Origin                                      string // where the file comes from (Options.Origin), "" if not given
	CompactionsN, Generated                     int
	Quoted                                      []string
}

func aboutOf(t *lessonfile.Texts, lang string, s *transcript.Session, info aboutInfo) (*about, error) {
	a := &about{Title: textBraces(titleOf(s)), File: textBraces(s.File), Format: string(s.Format), Model: textBraces(s.Model), Redacted: info.redacted,
		SystemRecorded: strings.TrimSpace(s.System) != "", CompactionsN: len(s.Compactions), Generated: info.generated}
	if !s.Started.IsZero() {
		a.Dates = fmt.Sprintf("%s – %s UTC", s.Started.UTC().Format("2006-01-02 15:04"), s.Ended.UTC().Format("2006-01-02 15:04"))
		a.Quoted = append(a.Quoted, a.Dates)
	}
	a.Imported = info.imported.UTC().Format("2006-01-02")
	a.Quoted = append(a.Quoted, a.Imported)
	if info.redacted {
		for _, k := range slices.Sorted(maps.Keys(s.Redactions)) {
			a.Redactions = append(a.Redactions, fmt.Sprintf("%s × %d", k, s.Redactions[k]))
		}
		a.Quoted = append(a.Quoted, a.Redactions...)
	}
	for _, c := range []struct {
		to   *string
		name string
		n    int
	}{{&a.Messages, "count-messages", len(s.Messages)}, {&a.Calls, "count-calls", info.calls}, {&a.Compactions, "count-compactions", len(s.Compactions)}} {
		text, err := t.In(lang, c.name, c.n)
		if err != nil {
			return nil, err
		}
		*c.to = text
		a.Quoted = append(a.Quoted, text)
	}
	for _, m := range s.Messages {
		a.Usage = a.Usage || m.Usage != nil
	}
	if n := len(s.Requests()); n > 0 {
		a.Calibrated = true
		text, err := t.In(lang, "count-requests", n)
		if err != nil {
			return nil, err
		}
		a.Requests = text
		a.Quoted = append(a.Quoted, text)
	}
	if a.Origin = info.origin; a.Origin != "" {
		a.Quoted = append(a.Quoted, a.Origin) // quoted as given: a commit, a path
	}
	return a, nil
}

// textBraces writes the braces of a value from the session as braces that
// are text in narration (\{), never a placeholder.
func textBraces(v string) string { return strings.ReplaceAll(v, "{", `\{`) }

func titleOf(s *transcript.Session) string {
	if s.Title != "" {
		return s.Title
	}
	if s.ID != "" {
		return s.ID
	}
	return s.File
}
