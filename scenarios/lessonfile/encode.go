package lessonfile

import (
	"bytes"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Encode writes v (a Lesson, Summaries, Recordings) as YAML after head (a
// comment, or ""): fields in the order of their types (yaml tags: a name,
// omitempty, "-"), map keys sorted, two spaces an indent, each text as
// yaml.v3 writes it. The same value always gives the same bytes, and
// Decode reads them back to an equal value.
func Encode(v any, head string) ([]byte, error) {
	n, err := nodeOf(reflect.ValueOf(v))
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	var b bytes.Buffer
	b.WriteString(head)
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b.Bytes(), nil
}

// nodeOf is the YAML node of v: what yaml.v3 writes for it, but for the
// texts it would not read back (textNode).
func nodeOf(v reflect.Value) (*yaml.Node, error) {
	if !v.IsValid() {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	if n, ok := v.Interface().(yaml.Node); ok {
		return fixed(&n), nil
	}
	if m, ok := v.Interface().(yaml.Marshaler); ok && !(v.Kind() == reflect.Pointer && v.IsNil()) {
		out, err := m.MarshalYAML()
		if err != nil {
			return nil, err
		}
		if n, ok := out.(*yaml.Node); ok {
			return fixed(n), nil
		}
		return nodeOf(reflect.ValueOf(out))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nodeOf(reflect.Value{})
		}
		return nodeOf(v.Elem())
	case reflect.String:
		return textNode(v.String()), nil
	case reflect.Bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Bool())}, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v.Int(), 10)}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatUint(v.Uint(), 10)}, nil
	case reflect.Float32, reflect.Float64:
		// A whole value keeps its ".0": written as "3" it would read back as an int.
		f := strconv.FormatFloat(v.Float(), 'f', -1, 64)
		if !strings.Contains(f, ".") {
			f += ".0"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: f}, nil
	case reflect.Slice, reflect.Array:
		n := &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		for i := range v.Len() {
			c, err := nodeOf(v.Index(i))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	case reflect.Map:
		n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		keys := v.MapKeys()
		slices.SortFunc(keys, func(a, b reflect.Value) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		for _, k := range keys {
			c, err := nodeOf(v.MapIndex(k))
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, textNode(fmt.Sprint(k)), c)
		}
		return n, nil
	case reflect.Struct:
		return structNode(v)
	}
	return nil, fmt.Errorf("cannot encode a %s", v.Type())
}

// structNode is a struct as a mapping of its exported fields, by their
// yaml tags.
func structNode(v reflect.Value) (*yaml.Node, error) {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, flags, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if flags == "omitempty" && isZero(v.Field(i)) {
			continue
		}
		c, err := nodeOf(v.Field(i))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		n.Content = append(n.Content, textNode(name), c)
	}
	return n, nil
}

// isZero is what omitempty leaves out, as yaml.v3 decides it.
func isZero(v reflect.Value) bool {
	if z, ok := v.Interface().(interface{ IsZero() bool }); ok {
		return (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() || z.IsZero()
	}
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String:
		return v.Len() == 0
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !isZero(v.Field(i)) {
				return false
			}
		}
		return true
	}
	return v.IsZero()
}

// textNode is a text as yaml.v3 writes a string (plain when it reads back
// as the string, literal when it has lines, else double-quoted), but
// double-quoted where a literal block would not read back: a text whose
// first line starts with a tab (a reader takes it for indentation, which
// YAML forbids) or with a line break (yaml.v3 drops it).
func textNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	plain := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
	switch {
	case strings.Contains(s, "\n"):
		if s[0] == '\t' || s[0] == '\n' {
			n.Style = yaml.DoubleQuotedStyle
		}
	case plain.ShortTag() != "!!str" || base60.MatchString(s) || oldBool(s):
		// A YAML 1.1 reader would take these for numbers and booleans.
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

var base60 = regexp.MustCompile(`^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`)

func oldBool(s string) bool {
	switch s {
	case "y", "Y", "yes", "Yes", "YES", "on", "On", "ON", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return true
	}
	return false
}

// fixed is a copy of n whose texts read back (textNode).
func fixed(n *yaml.Node) *yaml.Node {
	c := *n
	if c.Kind == yaml.ScalarNode && c.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 && c.Value != "" && (c.Value[0] == '\t' || c.Value[0] == '\n') {
		c.Style = yaml.DoubleQuotedStyle
	}
	c.Content = nil
	for _, x := range n.Content {
		c.Content = append(c.Content, fixed(x))
	}
	return &c
}
