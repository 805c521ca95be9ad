package testlessons

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// catalogKey is the pattern catalogKeys stands for, run over the whole
// text.
var catalogKey = regexp.MustCompile(`\b(ui|panel|event|badge|kind|role|param|value|origin|cache|diff|legend|line|rules|counters|pass|cost|block|help|js)\.[a-z][a-z0-9_=-]*(\.[a-z0-9_=-]+)*`)

// TestCatalogKeys: catalogKeys finds what the pattern finds, on texts
// with keys at the start and the end, inside words and identifiers, after
// other keys, and beside dots that start none.
func TestCatalogKeys(t *testing.T) {
	texts := []string{
		"ui.step_next",
		"Step 3. ui.step_next and panel.cost.row-1 end.",
		"xui.foo 9ui.foo _ui.foo Xui.foo ui.Foo ui.9 ui. ui..x",
		"line.line_number.x.y. cache.hit= (kind.summary) 「role.user」",
		"ui.a.b.c.ui.d block.x-y.z.. js.ok",
		"a.b.c ... ..ui.x ui.x.panel.y cost.",
		"プロンプトui.x と event.look-up",
		"",
		"no dots at all",
		"ends with a prefix ui",
		"ends with a dot.",
	}
	// and texts made of the pieces keys and their neighbours are made of
	pieces := []string{"ui", "panel", "js", "cost", "counters", ".", ".", "x", "9", "_", "-", "=", " ", "A", "é", "..", "line"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		texts = append(texts, b.String())
	}
	for _, s := range texts {
		want := catalogKey.FindAllString(s, -1)
		if got := catalogKeys(s); !slices.Equal(got, want) {
			t.Errorf("catalogKeys(%q) = %q; the pattern finds %q", s, got, want)
		}
	}
}

// TestMissingKey: a key is missing unless one of the lesson's texts holds
// it; tags are not text.
func TestMissingKey(t *testing.T) {
	page := `<p class="ui.not-text">Press <b>ui.step_next</b> &amp; line.line_number</p>`
	if got := MissingKey(page); got != "ui.step_next" {
		t.Errorf("MissingKey = %q; want ui.step_next", got)
	}
	if got := MissingKey(page, "see ui.step_next"); got != "line.line_number" {
		t.Errorf("MissingKey with the first key in a text = %q; want line.line_number", got)
	}
	if got := MissingKey(page, strings.Join([]string{"ui.step_next", "line.line_number"}, " ")); got != "" {
		t.Errorf("MissingKey with both keys in texts = %q; want none", got)
	}
}

// TestPageText: a tag, or a > on its own, is a space; a tag open to the
// end takes the rest; entities are decoded.
func TestPageText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<p>a <b>b</b></p>", " a  b  "},
		{"x > y", "x   y"},
		{`<a title="x>y">z</a>`, ` y" z `},
		{"プロンプト<br>ui.x &amp; <i", "プロンプト ui.x & "},
		{"<a<b>c", " c"},
	}
	for _, tc := range tests {
		if got := pageText(tc.in); got != tc.want {
			t.Errorf("pageText(%q) = %q; want %q", tc.in, got, tc.want)
		}
	}
}
