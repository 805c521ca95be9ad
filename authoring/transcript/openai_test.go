package transcript

import (
	"testing"
)

// TestReadOpenAIFixtures reads the OpenAI fixtures.
func TestReadOpenAIFixtures(t *testing.T) {
	tests := []struct {
		file     string
		system   string
		messages []string
		model    string
		usage    *Usage
	}{
		{
			file:   "oa_tools.json",
			system: "You are a weather assistant.\n\nAnswer in one sentence.",
			messages: []string{
				`user "Weather in Paris and Oslo?"`,
				`assistant "" call=[call_p get_weather {"city":"Paris"}] call=[call_o get_weather {"city":"Oslo"}] usage=56/64/0/40`,
				`tool call_p "18°C, sunny"`,
				`tool call_o "4°C, snow"`,
				`assistant "Paris is sunny at 18°C; Oslo has snow at 4°C." usage=190/0/0/18`,
			},
			model: "gpt-4o-2024-08-06",
			usage: &Usage{Input: 190, Output: 18},
		},
		{
			file:   "oa_array.json",
			system: "You are terse.",
			messages: []string{
				`user "What is in this picture?\n\n[image]"`,
				`assistant "A cat."`,
				`user "Count the files."`,
				`assistant "" call=[call_1 shell {"cmd":["ls","-1"]}]`,
				`tool call_1 "a\nb\nc"`,
				`assistant "Three."`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			s := mustRead(t, fixture(tt.file), Options{})
			if d := diffLines(shape(s), tt.messages); d != "" {
				t.Errorf("Read(%s) messages differ at %s", tt.file, d)
			}
			if s.Format != OpenAIChat || s.System != tt.system || s.Model != tt.model || s.Records != 7 {
				t.Errorf("Read(%s) = format %q system %q model %q records %d; want %q %q %q 7",
					tt.file, s.Format, s.System, s.Model, s.Records, OpenAIChat, tt.system, tt.model)
			}
			if (s.Usage == nil) != (tt.usage == nil) || (s.Usage != nil && *s.Usage != *tt.usage) {
				t.Errorf("Read(%s).Usage = %+v; want %+v", tt.file, s.Usage, tt.usage)
			}
			for i, m := range s.Messages {
				if m.Line < 1 || m.Line > s.Records || !m.Time.IsZero() {
					t.Errorf("Read(%s).Messages[%d] Line, Time = %d, %v; want an element number and no time", tt.file, i, m.Line, m.Time)
				}
			}
		})
	}
}

// TestOpenAIMessages checks single rules of the OpenAI reader.
func TestOpenAIMessages(t *testing.T) {
	tests := []struct {
		name string
		json string
		want []string
	}{
		{"null content", `[{"role":"user","content":null}]`, []string{`user ""`}},
		{"refusal part", `[{"role":"assistant","content":[{"type":"refusal","refusal":"No."}]}]`, []string{`assistant "No."`}},
		{"arguments that are not JSON are kept", `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":"not json"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]`,
			[]string{`assistant "" call=[c f not json]`, `tool c "ok"`}},
		{"arguments as an object", `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":{"a": 1}}}]}]`,
			[]string{`assistant "" call=[c f {"a":1}]`}},
		{"empty arguments", `[{"role":"assistant","tool_calls":[{"id":"c","function":{"name":"f","arguments":""}}]}]`,
			[]string{`assistant "" call=[c f {}]`}},
		{"custom tool", `[{"role":"assistant","tool_calls":[{"id":"c","type":"custom","custom":{"name":"patch","input":"*** Begin"}}]}]`,
			[]string{`assistant "" call=[c patch *** Begin]`}},
		{"cached tokens above the prompt are capped", `[{"role":"assistant","content":"x","usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":50}}}]`,
			[]string{`assistant "x" usage=0/10/0/1`}},
		{"unknown keys and roles are skipped", `{"id":"x","messages":[{"role":"function","name":"f","content":"1"},{"role":"user","content":"hi","extra":{"a":[1]}}],"metadata":{"a":[{"b":null}]}}`,
			[]string{`user "hi"`}},
		{"an empty array", `[]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := mustRead(t, writeTemp(t, "s.json", tt.json), Options{Format: OpenAIChat})
			if d := diffLines(shape(s), tt.want); d != "" {
				t.Errorf("Read(%s) messages differ at %s", tt.json, d)
			}
		})
	}
}

// TestOpenAISkippedRoles checks that unknown roles are counted.
func TestOpenAISkippedRoles(t *testing.T) {
	s := mustRead(t, writeTemp(t, "s.json", `[{"role":"function","content":"1"},{"content":"2"},{"role":"function"}]`), Options{})
	want := map[string]int{"function": 2, "untyped": 1}
	if !equalCounts(s.Skipped, want) || s.Records != 3 {
		t.Errorf("Read().Skipped, Records = %v, %d; want %v, 3", s.Skipped, s.Records, want)
	}
}
