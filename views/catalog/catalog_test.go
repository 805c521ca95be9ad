package catalog

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestBuiltinCatalog(t *testing.T) {
	c, err := Load()
	if err != nil {
		t.Fatalf("Load() = %v", err)
	}
	en, ja := c.For("en"), c.For("ja")
	if en.T("ui.next") == ja.T("ui.next") || en.T("ui.next") == "ui.next" {
		t.Errorf("ui.next: en %q, ja %q; want two different words", en.T("ui.next"), ja.T("ui.next"))
	}
	if got := en.F("ui.step-of", map[string]string{"step": "3", "total": "14"}); got != "Step 3 of 14" {
		t.Errorf("ui.step-of = %q; want Step 3 of 14 (the step-label contract)", got)
	}
	if c.For("fr").Lang != "en" {
		t.Errorf("For(fr) is not the English fallback")
	}
	if got := en.T("no.such.key"); got != "no.such.key" {
		t.Errorf("a missing key reads %q; want the key itself", got)
	}
	js := string(c.Script())
	if !strings.Contains(js, "window.ctxsimMessages") || !strings.Contains(js, `"paused"`) || strings.Contains(js, `"ui.`) {
		t.Errorf("Script() = %.200s…; want the js.* messages only, as window.ctxsimMessages", js)
	}
}

func TestCatalogParity(t *testing.T) {
	tests := []struct {
		name, en, ja, want string
	}{
		{"same keys", "a: \"x\"\nb: \"y {n}\"\n", "a: \"X\"\nb: \"Y {n}\"\n", ""},
		{"missing in ja", "a: \"x\"\nb: \"y\"\n", "a: \"X\"\n", "missing [b]"},
		{"extra in ja", "a: \"x\"\n", "a: \"X\"\nc: \"Z\"\n", "extra [c]"},
		{"placeholders differ", "b: \"y {n}\"\n", "b: \"Y {m}\"\n", "b uses {m}"},
		{"not YAML", "a: [\n", "a: \"X\"\n", "en.yaml"},
	}
	for _, tc := range tests {
		_, err := LoadFS(fstest.MapFS{"en.yaml": {Data: []byte(tc.en)}, "ja.yaml": {Data: []byte(tc.ja)}})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: LoadFS = %v; want nil", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: LoadFS = %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}

// TestLanguages: the languages are the catalog files present, English
// first: a third language is one more file.
func TestLanguages(t *testing.T) {
	got := languages(fstest.MapFS{"ja.yaml": {}, "fr.yaml": {}, "en.yaml": {}, "README.md": {}})
	if strings.Join(got, " ") != "en fr ja" {
		t.Errorf("languages = %v; want [en fr ja]", got)
	}
	if strings.Join(Languages, " ") != "en ja" {
		t.Errorf("Languages = %v; want the built-in catalogs [en ja]", Languages)
	}
}
