package lessonfile

import (
	"strings"
	"testing"
)

// TestPlainYAML: what decoding would quietly change is refused with the
// line and the field: a second document, an explicit tag, a null list
// item, an alias.
func TestPlainYAML(t *testing.T) {
	type doc struct {
		Window int      `yaml:"window"`
		Sizes  []int    `yaml:"sizes"`
		Names  []string `yaml:"names"`
	}
	tests := []struct {
		name, yaml string
		line       int
		field, msg string
	}{
		{"second document", "window: 5\n---\nwindow: 6\n", 2, "", "second YAML document"},
		{"explicit float", "window: !!float 1.5\n", 1, "window", "explicit tag"},
		{"null item", "sizes:\n  - 1\n  -\n  - 3\n", 3, "sizes[1]", "empty list item"},
		{"alias", "names: &n [a]\nsizes: [1]\n", 1, "names", "anchors"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d doc
			_, err := Decode("demo/lesson.yaml", []byte(tt.yaml), &d)
			e, ok := err.(*Error)
			if !ok || e.Line != tt.line || e.Field != tt.field || !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("Decode = %v; want line %d, field %q, %q", err, tt.line, tt.field, tt.msg)
			}
		})
	}
	var d doc
	if _, err := Decode("demo/lesson.yaml", []byte("window: 5\nsizes: [1, 2]\nnames: [\"1.5\", null-ish]\n"), &d); err != nil {
		t.Errorf("a plain file: %v", err)
	}
}
