package page

import (
	"encoding/json"
	"testing"
)

// TestAppendJSON: the frames API writes its documents directly; every
// string and value must come out as encoding/json writes it.
func TestAppendJSON(t *testing.T) {
	strings := []string{
		"", "plain", `quote " and back\slash`, "tab\tnew\nline\rcr", "\b\f\x00\x01\x1f\x7f",
		"<script>&amp;</script>", "日本語のテキスト", "line\u2028para\u2029", "bad \xff\xfe utf-8", "\xe6\x97", "emoji 🙂 end",
	}
	for _, s := range strings {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("appendString(%q) = %s; want %s", s, got, want)
		}
	}
	doc := object{{"a", 1}, {"b", "x<y"}, {"c", []string{"p", "q"}}, {"d", []string(nil)}, {"e", true},
		{"f", nil}, {"g", []object{{{"h", -2}}}}, {"i", map[string]int{"z": 1, "a": 2}}}
	got, err := appendJSON(nil, doc)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"a":1,"b":"x\u003cy","c":["p","q"],"d":null,"e":true,"f":null,"g":[{"h":-2}],"i":{"a":2,"z":1}}`
	if string(got) != want {
		t.Errorf("appendJSON = %s; want %s", got, want)
	}
	if !json.Valid(got) {
		t.Errorf("appendJSON wrote invalid JSON: %s", got)
	}
}
