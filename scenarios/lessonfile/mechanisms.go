package lessonfile

import (
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// Mechanisms are the mechanisms a lesson names, each with its
// configuration, in the order of the file: the lesson's narration
// precedence. The file's shape of each configuration belongs to the
// mechanism: the loader decodes it (File.DecodeNode) with the type its
// builder declares, so a new mechanism needs no change here.
type Mechanisms []Mechanism

// Mechanism is one mechanism of a lesson. A decoded one holds its
// configuration as the file has it (Node); to encode one, set Config to
// the configuration (the type the loader decodes it with).
type Mechanism struct {
	Name   string
	Config any
	Node   *yaml.Node
}

// Get returns the mechanism called name.
func (ms Mechanisms) Get(name string) (Mechanism, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Mechanism{}, false
}

// UnmarshalYAML keeps each mechanism's configuration as its node, in file
// order.
func (ms *Mechanisms) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("line %d: mechanisms must be a mapping of mechanism names to their settings", n.Line)
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if prev, ok := seen[k.Value]; ok {
			return fmt.Errorf("line %d: mapping key %q already defined at line %d", k.Line, k.Value, prev)
		}
		seen[k.Value] = k.Line
		*ms = append(*ms, Mechanism{Name: k.Value, Node: n.Content[i+1]})
	}
	return nil
}

// MarshalYAML writes each mechanism's Config (or, when it has none, the
// node it was decoded from), in order.
func (ms Mechanisms) MarshalYAML() (any, error) {
	out := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, m := range ms {
		var v *yaml.Node
		switch {
		case m.Config != nil:
			c, err := nodeOf(reflect.ValueOf(m.Config))
			if err != nil {
				return nil, fmt.Errorf("mechanism %s: %w", m.Name, err)
			}
			v = c
		case m.Node != nil:
			v = fixed(m.Node)
		default:
			return nil, fmt.Errorf("mechanism %s has no configuration (use struct{}{} for none)", m.Name)
		}
		out.Content = append(out.Content, textNode(m.Name), v)
	}
	return out, nil
}
