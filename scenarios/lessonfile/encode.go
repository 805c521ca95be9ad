package lessonfile

import (
	"bytes"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Encode writes v (a Lesson, Summaries, Recordings) as YAML after head (a
// comment, or ""): fields in the order of their types, maps by key, two
// spaces an indent. The same value always gives the same bytes, and Decode
// reads them back to an equal value.
func Encode(v any, head string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(head)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b.Bytes(), nil
}
