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
	return encode(v, head, chunkItems)
}

// chunkItems is how many items of a long top-level list one encoder
// writes. yaml.v3's emitter keeps every event of a document until the
// encoder is done (its queue only grows), so a lesson of 10,000 messages
// made it copy that queue over and over: 1.1 s of an import's 4.7 s of
// CPU. Written one item (a trace step) at a time, the queue stays small.
const chunkItems = 1

// encode is Encode with a long top-level list written chunk items per encoder,
// the other items of the document by one encoder each: the same bytes as
// one encoder for the whole document.
func encode(v any, head string, chunk int) ([]byte, error) {
	n, err := nodeOf(reflect.ValueOf(v))
	if err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	var b bytes.Buffer
	b.WriteString(head)
	if err := encodeTop(&b, n, chunk); err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, err)
	}
	return b.Bytes(), nil
}

// encodeTop writes n. A mapping is written pair by pair; a pair whose
// value is a block list longer than chunk is written as its key and first
// chunk items, then the next items chunk at a time as lists of their own,
// indented under the key as yaml.v3 indents them (two spaces). Only
// documents yaml.v3 would write the same way in pieces are split: no
// comments, anchors or tags but the plain ones, block style.
func encodeTop(b *bytes.Buffer, n *yaml.Node, chunk int) error {
	if n.Kind != yaml.MappingNode || !plainNode(n) {
		return encodeDoc(b, n)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		pair := &yaml.Node{Kind: yaml.MappingNode, Tag: n.Tag, Content: []*yaml.Node{k, v}}
		if v.Kind != yaml.SequenceNode || len(v.Content) <= chunk || !plainNode(k) || !plainNode(v) {
			if err := encodeDoc(b, pair); err != nil {
				return err
			}
			continue
		}
		first := *v
		first.Content = v.Content[:chunk]
		pair.Content[1] = &first
		if err := encodeDoc(b, pair); err != nil {
			return err
		}
		for at := chunk; at < len(v.Content); at += chunk {
			rest := first
			rest.Content = v.Content[at:min(at+chunk, len(v.Content))]
			var part bytes.Buffer
			if err := encodeDoc(&part, &rest); err != nil {
				return err
			}
			indent(b, part.Bytes(), "  ")
		}
	}
	return nil
}

// plainNode reports whether n carries nothing yaml.v3 writes around a
// document's parts: no comments, no anchor, block style.
func plainNode(n *yaml.Node) bool {
	return n.HeadComment == "" && n.LineComment == "" && n.FootComment == "" && n.Anchor == "" &&
		n.Style&yaml.FlowStyle == 0 && (n.Tag == "" || n.Tag == "!!map" || n.Tag == "!!seq" || n.Tag == "!!str")
}

// encodeDoc writes n as one document with an encoder of its own.
func encodeDoc(b *bytes.Buffer, n *yaml.Node) error {
	enc := yaml.NewEncoder(b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return err
	}
	return enc.Close()
}

// indent writes text to b with pre before each line that is not empty
// (an empty line of a literal text stays empty, as yaml.v3 writes it).
func indent(b *bytes.Buffer, text []byte, pre string) {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line = text[:i+1]
		}
		if len(line) > 1 || line[0] != '\n' {
			b.WriteString(pre)
		}
		b.Write(line)
		text = text[len(line):]
	}
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
