package lessonfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// File is a decoded YAML file that can say on which line a field is.
type File struct {
	name string
	root *yaml.Node
}

// Name is the file's name as errors give it.
func (f *File) Name() string { return f.name }

// Decode strictly decodes data, the file name, into v and keeps the node
// tree for lines. It refuses what decoding would quietly drop or change:
// unknown keys, a second document, an explicit tag, an anchor or alias, an
// empty value or list item, a fraction where the schema wants a whole
// number, a number past MaxNumber; and what CheckText refuses. A
// byte-order mark at the start is read as nothing. Errors are *Error, with
// the file, the line and the field.
func Decode(name string, data []byte, v any) (*File, error) {
	data = Text(data)
	if e := CheckText(name, data); e != nil {
		e.Field = fieldOnLine(data, e.Line)
		return nil, e
	}
	// One parse: the node tree is decoded into v, and kept for lines (a
	// second parse of a long session's 13 MB lesson.yaml was a third of
	// its load).
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: name, Msg: "file is empty"}
		}
		e := yamlError(name, err)
		if e.Line == 0 {
			e.Line = lineOfAlias(data, e.Msg)
		}
		return nil, e
	}
	var second yaml.Node
	if err := dec.Decode(&second); !errors.Is(err, io.EOF) {
		return nil, &Error{File: name, Line: second.Line, Msg: "a second YAML document: a lesson file holds one (remove the '---' line)"}
	}
	root := &doc
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	if err := doc.Decode(v); err != nil {
		e := yamlError(name, err)
		if e.Field == "" && e.Line > 0 {
			// A type error ("cannot unmarshal !!str `abc` into int") names
			// only the line; find the field whose value is on it.
			e.Field = pathAt(&doc, e.Line, "")
		}
		return nil, e
	}
	if err := plain(name, root, ""); err != nil {
		return nil, err
	}
	// Keys v has no field for (what a decoder's KnownFields would refuse,
	// here with the whole path) and numbers decoding would change.
	if err := check(name, root, reflect.TypeOf(v), ""); err != nil {
		return nil, err
	}
	return &File{name: name, root: root}, nil
}

// DecodeNode strictly decodes n, the value at path of f, into v, as Decode
// does a file: a part of the file its own type reads (a mechanism's
// configuration, a generated result).
func (f *File) DecodeNode(path string, n *yaml.Node, v any) error {
	if err := check(f.name, n, reflect.TypeOf(v), path); err != nil {
		return err
	}
	if err := n.Decode(v); err != nil {
		e := yamlError(f.name, err)
		e.Field = path
		if e.Line > 0 {
			if p := pathAt(n, e.Line, path); p != "" {
				e.Field = p
			}
		}
		return e
	}
	return nil
}

// plain refuses what the schema cannot mean and decoding would quietly
// change: an explicit tag ("!!float 1.5" read as 1), a null list item
// (dropped), an empty value (read as nothing), an anchor or alias.
func plain(name string, n *yaml.Node, path string) error {
	switch {
	case n.Style&yaml.TaggedStyle != 0:
		return &Error{File: name, Line: n.Line, Field: path, Msg: fmt.Sprintf("an explicit tag (%s) is not read: write the value plainly", n.Tag)}
	case n.Anchor != "" || n.Kind == yaml.AliasNode:
		return &Error{File: name, Line: n.Line, Field: path, Msg: "anchors and aliases are not read: write the value out"}
	}
	for i, c := range n.Content {
		p := path
		switch n.Kind {
		case yaml.SequenceNode:
			p = fmt.Sprintf("%s[%d]", path, i)
			if c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
				return &Error{File: name, Line: c.Line, Field: p, Msg: "an empty list item: remove it or give it a value"}
			}
		case yaml.MappingNode:
			if i%2 == 1 {
				p = JoinPath(path, n.Content[i-1].Value)
				if c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
					return &Error{File: name, Line: c.Line, Field: p, Msg: "is empty: give it a value ({} for a mechanism without settings) or remove the key"}
				}
			}
		}
		if err := plain(name, c, p); err != nil {
			return err
		}
	}
	return nil
}

// ErrorAt returns an *Error for the field at path ("trace[3].messages[0].id").
// The line is that of the deepest node of path that exists.
func (f *File) ErrorAt(path, msg string) *Error {
	return &Error{File: f.name, Line: f.line(path), Field: path, Msg: msg}
}

func (f *File) line(path string) int {
	n, line := f.root, f.root.Line
	for _, part := range splitPath(path) {
		key, next := child(n, part)
		if next == nil {
			break
		}
		n, line = next, next.Line
		if key != nil {
			// The line of "field:", not of a block value's first item.
			line = key.Line
		}
	}
	return line
}

// child returns the node for part of n and, when n is a mapping, its key.
func child(n *yaml.Node, part string) (key, value *yaml.Node) {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				return n.Content[i], n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(part); err == nil && i >= 0 && i < len(n.Content) {
			return nil, n.Content[i]
		}
	}
	return nil, nil
}

// fieldOnLine is the field of the YAML text data that holds line: the last
// key at or before it. data may hold bytes YAML refuses; they are read as
// spaces.
func fieldOnLine(data []byte, line int) string {
	clean := []rune(string(data)) // invalid bytes become U+FFFD
	for i, r := range clean {
		if r != '\n' && r != '\t' && r != '\r' && (r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfffd || r == 0xfeff || r == 0xfffe || r == 0xffff) {
			clean[i] = ' '
		}
	}
	var doc yaml.Node
	if yaml.Unmarshal([]byte(string(clean)), &doc) != nil {
		return ""
	}
	field := ""
	var walk func(n *yaml.Node, path string)
	walk = func(n *yaml.Node, path string) {
		switch n.Kind {
		case yaml.DocumentNode:
			for _, c := range n.Content {
				walk(c, path)
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Line > line {
					return
				}
				p := JoinPath(path, n.Content[i].Value)
				field = p
				walk(n.Content[i+1], p)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				if c.Line > line {
					return
				}
				p := fmt.Sprintf("%s[%d]", path, i)
				field = p
				walk(c, p)
			}
		}
	}
	walk(&doc, "")
	return field
}

// unknownAnchor is yaml.v3's message for an alias of no anchor, which
// names no line.
var unknownAnchor = regexp.MustCompile(`unknown anchor '([^']*)' referenced`)

// lineOfAlias is the line of the alias msg says refers to no anchor; 0
// when msg is about something else.
func lineOfAlias(data []byte, msg string) int {
	m := unknownAnchor.FindStringSubmatch(msg)
	if m == nil {
		return 0
	}
	i := bytes.Index(data, []byte("*"+m[1]))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// pathAt returns the path ("trace[1].messages[0].tokens") of the scalar
// value on line, or "" when there is none.
func pathAt(n *yaml.Node, line int, prefix string) string {
	at := func(v *yaml.Node, p string) string {
		if v.Kind == yaml.ScalarNode && v.Line == line {
			return p
		}
		return pathAt(v, line, p)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := pathAt(c, line, prefix); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if r := at(n.Content[i+1], JoinPath(prefix, n.Content[i].Value)); r != "" {
				return r
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if r := at(c, prefix+"["+strconv.Itoa(i)+"]"); r != "" {
				return r
			}
		}
	}
	return ""
}

// splitPath turns "trace[3].messages[0].id" into trace, 3, messages, 0, id.
func splitPath(path string) []string {
	path = strings.NewReplacer("[", ".", "]", "").Replace(path)
	return strings.Split(path, ".")
}

// check walks n beside the type t it decodes into. It refuses a number
// with a fraction where t wants a whole one (decoding would quietly drop
// the fraction: window: 1.5 read as 1), one past MaxNumber, and a key t
// has no field for.
func check(name string, n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nodeType || reflect.PointerTo(t).Implements(unmarshaler) {
		return nil // the type reads its own YAML
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind == yaml.ScalarNode && n.Tag == "!!float" {
			return &Error{File: name, Line: n.Line, Field: path, Msg: fmt.Sprintf("must be a whole number, got %s", n.Value)}
		}
		if v, err := strconv.ParseInt(n.Value, 0, 64); n.Kind == yaml.ScalarNode && n.Tag == "!!int" && (err != nil || v > MaxNumber || v < -MaxNumber) {
			return &Error{File: name, Line: n.Line, Field: path, Msg: fmt.Sprintf("must be a number from -%d to %d, got %s", MaxNumber, MaxNumber, n.Value)}
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, c := range n.Content {
			if err := check(name, c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 1; i < len(n.Content); i += 2 {
			if err := check(name, n.Content[i], t.Elem(), JoinPath(path, n.Content[i-1].Value)); err != nil {
				return err
			}
		}
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 1; i < len(n.Content); i += 2 {
			key := n.Content[i-1]
			f, ok := fieldByTag(t, key.Value)
			if !ok {
				return &Error{File: name, Line: key.Line, Field: JoinPath(path, key.Value), Msg: fmt.Sprintf("field %s not found in type %s", key.Value, t)}
			}
			if err := check(name, n.Content[i], f.Type, JoinPath(path, key.Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

var (
	unmarshaler = reflect.TypeFor[yaml.Unmarshaler]()
	nodeType    = reflect.TypeFor[yaml.Node]()
)

// MaxNumber bounds every whole number of a lesson file: sums of many of
// them stay far from overflow. Fields have their own, smaller ranges.
const MaxNumber = 1_000_000_000

// fieldByTag finds the field of struct t that the YAML key names.
func fieldByTag(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		if tag == key || (tag == "" && strings.EqualFold(f.Name, key)) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// JoinPath is the path of key within path: "mechanisms" and "tiered" make
// "mechanisms.tiered".
func JoinPath(path, key string) string { return strings.TrimPrefix(path+"."+key, ".") }
