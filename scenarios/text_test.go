package scenarios_test

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf16"

	"ctxsim/scenarios"
)

// Bytes a page would show wrongly, and a placeholder left open, stop the
// loader with the file, the line, the field (the narration section, or
// the YAML key) and what to do; a byte-order mark at the start of any
// lesson file is read as nothing.
func TestLessonFileText(t *testing.T) {
	const bom = "\xef\xbb\xbf"
	withSection := func(body string) string {
		return strings.Replace(tinyNarration, "@@ @crossed\n# Crossed.\n", "@@ @crossed\n# Crossed.\n\n"+body+"\n", 1)
	}
	tests := []struct {
		name              string
		lesson, narration string
		// want: the file, line and field of the error and words of its
		// message; no file for a lesson that loads
		file, field, msg string
		line             int
	}{
		{name: "BOM in narration", lesson: tinyLesson, narration: bom + tinyNarration},
		{name: "BOM in lesson.yaml", lesson: bom + tinyLesson, narration: tinyNarration},
		{name: "UTF-16 lesson.yaml and narration", lesson: utf16LE(tinyLesson), narration: utf16LE(tinyNarration)},
		{name: "CRLF narration", lesson: tinyLesson, narration: strings.ReplaceAll(tinyNarration, "\n", "\r\n")},
		{name: "braces that are text", lesson: tinyLesson, narration: withSection(`A set \{a, b} and code "if x { y }", {"a": 1} and {{total}}.`)},
		{"invalid UTF-8 in narration", tinyLesson, withSection("Bad \xff\xfe byte."), "narration.en.md", "@crossed", "byte 0xff is not UTF-8", 12},
		{"NUL in narration", tinyLesson, withSection("A \x00 here."), "narration.en.md", "@crossed", "U+0000 (NUL)", 12},
		{"ESC in a headline", tinyLesson, strings.Replace(tinyNarration, "# Crossed.", "# \x1b[31mCrossed.", 1), "narration.en.md", "@crossed", "U+001B (ESC)", 10},
		{"C1 control in narration", tinyLesson, withSection("A \u0085 here."), "narration.en.md", "@crossed", "U+0085", 12},
		{"BOM inside narration", tinyLesson, withSection("A " + bom + " here."), "narration.en.md", "@crossed", "byte-order mark", 12},
		{"unclosed placeholder", tinyLesson, withSection("See {total for the size."), "narration.en.md", "@crossed", `"{total" is not closed`, 12},
		{"unclosed placeholder at the end", tinyLesson, withSection("See {window:tokens"), "narration.en.md", "@crossed", `"{window:tokens" is not closed`, 12},
		{"unclosed condition", tinyLesson, withSection("{?fact:f Shown."), "narration.en.md", "@crossed", `"{?fact:f" is not closed`, 12},
		{"unclosed placeholder in a headline", tinyLesson, strings.Replace(tinyNarration, "# Crossed.", "# Crossed at {total.", 1), "narration.en.md", "@crossed", `"{total" is not closed`, 10},
		{"unclosed placeholder before a comma", tinyLesson, withSection("{window, then more."), "narration.en.md", "@crossed", `"{window" is not closed`, 12},
		{"invalid UTF-8 in lesson.yaml", strings.Replace(tinyLesson, "content: You are a test.", "content: You are \xff test.", 1), tinyNarration, "lesson.yaml", "system.content", "byte 0xff is not UTF-8", 9},
		{"control character in lesson.yaml", strings.Replace(tinyLesson, "Use pnpm.", "Use \x07pnpm.", 1), tinyNarration, "lesson.yaml", "trace[0].messages[0].content", "U+0007", 13},
		{"invalid UTF-8 in a block value", strings.Replace(tinyLesson, "- id: a2\n", "- id: a2\n        # \xc3\n", 1), tinyNarration, "lesson.yaml", "trace[2].messages[1].id", "byte 0xc3 is not UTF-8", 20},
		{"an alias of no anchor", strings.Replace(tinyLesson, "window: 1000", "window: *w", 1), tinyNarration, "lesson.yaml", "", "unknown anchor", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scenarios.Load(tinyFS(tt.lesson, tt.narration), "lessons", words{})
			if tt.file == "" {
				if err != nil {
					t.Fatalf("Load: %v; want it to load", err)
				}
				return
			}
			var e *scenarios.Error
			if !errors.As(err, &e) {
				t.Fatalf("Load = %v; want a *scenarios.Error", err)
			}
			if e.File != "lessons/tiny/"+tt.file || e.Line != tt.line || e.Field != tt.field || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Load = %q (file %s, line %d, field %q); want %s:%d, field %q, %q", err, e.File, e.Line, e.Field, tt.file, tt.line, tt.field, tt.msg)
			}
		})
	}
}

// utf16LE is s in UTF-16, little endian, after its byte-order mark.
func utf16LE(s string) string {
	b := []byte{0xff, 0xfe}
	for _, u := range utf16.Encode([]rune(s)) {
		b = append(b, byte(u), byte(u>>8))
	}
	return string(b)
}

// resolver fills every placeholder with "42" and holds every condition.
type resolver struct{}

func (resolver) Value(name, arg string) (string, bool) { return "42", true }
func (resolver) Cond(name, arg string) (bool, bool)    { return true, true }

// \{ is a brace that is text, in a headline, a paragraph and code alike:
// it is never filled.
func TestTextBrace(t *testing.T) {
	n := strings.Replace(tinyNarration, "@@ @crossed\n# Crossed.\n", "@@ @crossed\n# Crossed \\{x} at {total}.\n\nBody \\{total} is {total}; `code \\{total}`.\n", 1)
	ls, err := scenarios.Load(tinyFS(tinyLesson, n), "lessons", words{})
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := ls[0].Section("en", "@crossed")
	head, body, err := sec.Render(resolver{})
	if err != nil {
		t.Fatal(err)
	}
	if head != "Crossed {x} at 42." {
		t.Errorf("headline %q; want %q", head, "Crossed {x} at 42.")
	}
	if want := "<p>Body &#123;total} is 42; <code>code &#123;total}</code>.</p>\n"; body != want {
		t.Errorf("body %q; want %q", body, want)
	}
}
