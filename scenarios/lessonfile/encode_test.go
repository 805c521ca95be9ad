package lessonfile

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"ctxsim/sim"
)

// TestEncodeDecode: what Encode writes, Decode reads back to an equal
// value, texts the encoder cannot write plainly included (Go code that
// starts with a tab, leading spaces and breaks, quotes, colons, a
// trailing space); and encoding again gives the same bytes.
func TestEncodeDecode(t *testing.T) {
	texts := []string{"\tmu sync.Mutex\n\tn  int\n", "\tone line", "  spaces first\nthen\n", "\n\tafter a break\n",
		"key: value # not a comment", "'quoted' \"twice\"", "trailing space ", "yes", "1.5", "", "plain"}
	var s Summaries
	for i, text := range texts {
		s.Cards = append(s.Cards, Card{ID: "c", Covers: []string{text + "x"}, Versions: []Version{
			{Content: text, Provenance: sim.Text{"en": text, "ja": "日本語 " + text}, ModelWritten: i%2 == 0}}})
	}
	s.Prompts = map[string]string{"b": "\tb", "a": "a"}
	data, err := Encode(s, "# a head\n")
	if err != nil {
		t.Fatal(err)
	}
	var back Summaries
	if _, err := Decode("summaries.yaml", data, &back); err != nil {
		t.Fatalf("Decode(Encode) = %v\n%s", err, data)
	}
	for i := range s.Cards {
		if !reflect.DeepEqual(back.Cards[i], s.Cards[i]) {
			t.Errorf("card %d reads back as %#v; want %#v", i, back.Cards[i], s.Cards[i])
		}
	}
	if !reflect.DeepEqual(back.Prompts, s.Prompts) {
		t.Errorf("prompts read back as %q; want %q", back.Prompts, s.Prompts)
	}
	again, err := Encode(back, "# a head\n")
	if err != nil || string(again) != string(data) {
		t.Errorf("encoding the decoded value gave other bytes (%v)", err)
	}
}

// TestEncodeLesson: a lesson with a mechanism's configuration, a text
// result and nested tab-first texts in a sequence reads back.
func TestEncodeLesson(t *testing.T) {
	l := Lesson{ID: "demo", Order: 1, Title: sim.Text{"en": "Demo", "ja": "デモ"}, Window: 100, Sizes: "counted",
		Imported: &ImportedSession{File: "s.jsonl", Format: "claude-code", Imported: "2026-12-01T00:00:00Z", Redacted: "off"},
		Mechanisms: Mechanisms{{Name: "limit", Config: struct {
			Sizes []int `yaml:"sizes"`
		}{[]int{100, 50}}}, {Name: "usage", Config: struct{}{}}},
		System: Message{Content: "\tsystem", Origin: "authored"},
		Trace: []Step{{Step: "s1", Messages: []Message{{ID: "u1", Role: "user", Content: "\thello\n\tworld"},
			{Call: &Call{ID: "toolu_01", Tool: "Read", ArgsJSON: `{"path":"a.go"}`, Result: TextResult("\tpackage a\n")}}}}},
	}
	data, err := Encode(l, "")
	if err != nil {
		t.Fatal(err)
	}
	back, f, err := DecodeLesson("lesson.yaml", data)
	if err != nil {
		t.Fatalf("DecodeLesson(Encode) = %v\n%s", err, data)
	}
	if back.Trace[0].Messages[0].Content != "\thello\n\tworld" || back.System.Content != "\tsystem" || back.Trace[0].Messages[1].Call.Result.Value != "\tpackage a\n" {
		t.Errorf("texts read back as %q, %q, %q", back.Trace[0].Messages[0].Content, back.System.Content, back.Trace[0].Messages[1].Call.Result.Value)
	}
	var names []string
	for _, m := range back.Mechanisms {
		names = append(names, m.Name)
	}
	if strings.Join(names, " ") != "limit usage" {
		t.Errorf("mechanisms %v; want limit usage, in order", names)
	}
	var limit struct {
		Sizes []int `yaml:"sizes"`
	}
	m, _ := back.Mechanisms.Get("limit")
	if err := f.DecodeNode("mechanisms.limit", m.Node, &limit); err != nil || !reflect.DeepEqual(limit.Sizes, []int{100, 50}) {
		t.Errorf("limit = %v, %v; want sizes [100 50]", limit, err)
	}
}

// TestDecodeNode: a configuration decoded on its own is as strict as a
// file: an unknown key, a fraction, a wrong type, each with its line and
// its field's whole path.
func TestDecodeNode(t *testing.T) {
	type rules struct {
		Keep  int      `yaml:"keep_recent"`
		Tools []string `yaml:"floor_tools"`
	}
	type config struct {
		Pressure int   `yaml:"pressure"`
		Rules    rules `yaml:"rules"`
	}
	tests := []struct {
		yaml  string
		line  int
		field string
		msg   string
	}{
		{"tiered:\n  pressure: 5\n  colour: red\n", 3, "mechanisms.tiered.colour", "not found"},
		{"tiered:\n  rules:\n    keep_recent: 1.5\n", 3, "mechanisms.tiered.rules.keep_recent", "whole number"},
		{"tiered:\n  rules:\n    floor_tools: 3\n", 3, "mechanisms.tiered.rules.floor_tools", "cannot unmarshal"},
		{"tiered:\n  pressure: abc\n", 2, "mechanisms.tiered.pressure", "cannot unmarshal"},
	}
	for _, tt := range tests {
		var doc struct {
			Tiered yaml.Node `yaml:"tiered"`
		}
		f, err := Decode("lesson.yaml", []byte(tt.yaml), &doc)
		if err != nil {
			t.Fatal(err)
		}
		var c config
		err = f.DecodeNode("mechanisms.tiered", &doc.Tiered, &c)
		e, ok := err.(*Error)
		if !ok || e.Line != tt.line || e.Field != tt.field || !strings.Contains(e.Msg, tt.msg) {
			t.Errorf("DecodeNode(%q) = %v; want line %d, field %s, %q", tt.yaml, err, tt.line, tt.field, tt.msg)
		}
	}
}

// TestEncodeChunked: a document written a few list items per encoder is
// byte for byte the document one encoder writes, for every shipped
// lesson and its summaries (an imported session's among them).
func TestEncodeChunked(t *testing.T) {
	for _, name := range []string{"lesson.yaml", "summaries.yaml"} {
		paths, err := filepath.Glob(filepath.Join("..", "*", name))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no %s beside the package: %v", name, err)
		}
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			if name == "lesson.yaml" {
				l, _, err := DecodeLesson(path, data)
				if err != nil {
					t.Fatal(err)
				}
				v = l
			} else {
				var s Summaries
				if _, err := Decode(path, data, &s); err != nil {
					t.Fatal(err)
				}
				v = s
			}
			n, err := nodeOf(reflect.ValueOf(v))
			if err != nil {
				t.Fatal(err)
			}
			var one bytes.Buffer // the whole document by one encoder
			one.WriteString("# head\n")
			if err := encodeDoc(&one, n); err != nil {
				t.Fatal(err)
			}
			whole := one.Bytes()
			for _, chunk := range []int{1, 3, chunkItems, math.MaxInt} {
				parts, err := encode(v, "# head\n", chunk)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(parts, whole) {
					t.Errorf("%s written %d items per encoder differs from one encoder's (%d bytes, %d)", path, chunk, len(parts), len(whole))
				}
			}
		}
	}
}
