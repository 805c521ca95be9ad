package scenarios

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"unicode/utf8"

	"ctxsim/scenarios/lessonfile"
)

// fill answers every placeholder and holds every condition.
type fill struct{}

func (fill) Value(name, arg string) (string, bool) { return "<&9>", true }
func (fill) Cond(name, arg string) (bool, bool)    { return true, true }

// FuzzNarration: whatever a narration file holds, it is refused with an
// *Error naming the file and a line, or read into sections that render,
// with every placeholder and condition answered, to UTF-8 text without
// control characters; a byte-order mark at the start changes nothing. The
// seeds (testdata/fuzz/FuzzNarration) hold the shapes that were accepted
// and served wrongly: bytes that are not UTF-8, NUL and ESC, a placeholder
// left open, a BOM.
//
//	go test ./scenarios -run '^$' -fuzz FuzzNarration -fuzztime 60s
func FuzzNarration(f *testing.F) {
	f.Add([]byte("@@ about:intro\n# Intro {total}.\n\n{?fact:f} Body {window}, {{now}} and \\{x}.\n"))
	md, lim := newMarkdown(), Authored()
	f.Fuzz(func(t *testing.T, data []byte) {
		bom, plain := data, data
		if b, ok := bytes.CutPrefix(data, []byte("\xef\xbb\xbf")); ok {
			plain = b
		} else {
			bom = append([]byte("\xef\xbb\xbf"), data...)
		}
		secs, order, err := parseNarration("n.md", plain, md, lim)
		bsecs, border, berr := parseNarration("n.md", bom, md, lim)
		if (err == nil) != (berr == nil) || err != nil && err.Error() != berr.Error() || !reflect.DeepEqual(order, border) || len(secs) != len(bsecs) {
			t.Fatalf("a BOM at the start changes the outcome: %v / %v", err, berr)
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.File != "n.md" || e.Line < 1 {
				t.Fatalf("error %q (%T) does not name the file and a line", err, err)
			}
			return
		}
		for key, s := range secs {
			head, body, err := s.Render(fill{})
			if err != nil {
				var re *RenderError
				if !errors.As(err, &re) || re.Line < 1 {
					t.Fatalf("section %s: render error %q names no line", key, err)
				}
				continue
			}
			for _, text := range []string{key, head, body} {
				if !utf8.ValidString(text) {
					t.Fatalf("section %s renders bytes that are not UTF-8: %q", key, text)
				}
				if e := lessonfile.CheckText("out", []byte(text)); e != nil {
					t.Fatalf("section %s renders %q: %v", key, text, e)
				}
			}
		}
	})
}
