package scenarios

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// Languages every lesson is written in; the first is the fallback.
var Languages = []string{"en", "ja"}

// Section is one narration section: a one-sentence headline (plain text, may
// hold {placeholders}) and a body already rendered from Markdown to HTML.
type Section struct {
	Key      string
	Headline string
	Body     string // HTML, rendered once at load; raw HTML in the source is dropped
}

// newMarkdown returns the one goldmark instance used for lesson text. It keeps
// goldmark's safe defaults: raw HTML is omitted and unsafe links are dropped.
func newMarkdown() goldmark.Markdown {
	return goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()),
	)
}

// parseNarration reads sections of the form:
//
//	@@ key
//	# Headline
//	Markdown body...
func parseNarration(name string, data []byte, md goldmark.Markdown) (map[string]Section, error) {
	out := map[string]Section{}
	lines := strings.Split(string(data), "\n")
	type open struct {
		key, headline string
		line          int
		body          []string
	}
	var cur *open
	finish := func() error {
		if cur == nil {
			return nil
		}
		if cur.headline == "" {
			return &Error{File: name, Line: cur.line, Field: cur.key, Msg: "section has no '# headline' line"}
		}
		var buf bytes.Buffer
		if err := md.Convert([]byte(strings.Join(cur.body, "\n")), &buf); err != nil {
			return &Error{File: name, Line: cur.line, Field: cur.key, Msg: fmt.Sprintf("markdown: %v", err)}
		}
		out[cur.key] = Section{Key: cur.key, Headline: cur.headline, Body: buf.String()}
		return nil
	}
	for i, line := range lines {
		n := i + 1
		if key, ok := strings.CutPrefix(line, "@@ "); ok {
			if err := finish(); err != nil {
				return nil, err
			}
			key = strings.TrimSpace(key)
			if key == "" {
				return nil, &Error{File: name, Line: n, Msg: "'@@' needs a section key"}
			}
			if _, dup := out[key]; dup {
				return nil, &Error{File: name, Line: n, Field: key, Msg: "section key appears twice"}
			}
			cur = &open{key: key, line: n}
			continue
		}
		switch {
		case cur == nil:
			if strings.TrimSpace(line) != "" && !strings.HasPrefix(strings.TrimSpace(line), "<!--") {
				return nil, &Error{File: name, Line: n, Msg: "text before the first '@@ key' line"}
			}
		case cur.headline == "" && strings.TrimSpace(line) == "":
		case cur.headline == "":
			h, ok := strings.CutPrefix(line, "# ")
			if !ok || strings.TrimSpace(h) == "" {
				return nil, &Error{File: name, Line: n, Field: cur.key, Msg: "the first line of a section must be '# headline'"}
			}
			cur.headline = strings.TrimSpace(h)
		default:
			cur.body = append(cur.body, line)
		}
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}
