package scenarios_test

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"ctxsim/scenarios"
)

// TestIssue24LessonDataErrors: a broken setting of the arms, layout,
// instructions and layers mechanisms stops loading with the file, the
// line and the field.
func TestIssue24LessonDataErrors(t *testing.T) {
	tok := tokenizer(t)
	tests := []struct {
		lesson, name, from, to string
		field                  string // the error names it, on the line of the change
	}{
		{"request-anatomy", "unknown step", "parallel: [calls]", "parallel: [callz]", "mechanisms.arms.steps.parallel[0]"},
		{"request-anatomy", "a step in two arms", "serial: [calls-time, calls-weather]", "serial: [calls, calls-weather]", "mechanisms.arms.steps.serial[0]"},
		{"request-anatomy", "one arm", "choices: [parallel, serial]", "choices: [parallel]", "mechanisms.arms.choices"},
		{"cache-antipatterns", "unknown pattern", "patterns: [stable, timestamp,", "patterns: [stable, timestanp,", "mechanisms.layout.patterns[1]"},
		{"cache-antipatterns", "a clock without the time", `clock: "Current time: {time}"`, `clock: "Current time"`, "mechanisms.layout.clock"},
		{"cache-antipatterns", "two users with the same conditions", "{values: [macOS, debug, Chinese]", "{values: [macOS, normal, English]", "mechanisms.layout.users[2].values"},
		{"cache-antipatterns", "a condition value it does not have", "{values: [Linux, debug, English]", "{values: [BSD, debug, English]", "mechanisms.layout.users[1].values[0]"},
		{"memory-after-compaction", "an edit of no result", "result: r-note", "result: r-nope", "mechanisms.instructions.edits[0]"},
		{"memory-after-compaction", "no trigger", "trigger: 80 ", "trigger: 0 ", "mechanisms.instructions.trigger"},
		{"memory-after-compaction", "unknown policy", "policies: [disk, last-prompt, none]", "policies: [disk, last-prompt, never]", "mechanisms.instructions.policies[2]"},
		{"production-layers", "no line", "line: 75 ", "line: 0 ", "mechanisms.layers.line"},
		{"production-layers", "no noise tools", "noise: [Grep, WebSearch]", "noise: []", "mechanisms.layers.noise"},
		{"production-layers", "no breaker limit", "failures: 3 ", "failures: 0 ", "mechanisms.layers.failures"},
	}
	for _, tc := range tests {
		t.Run(tc.lesson+"/"+tc.name, func(t *testing.T) {
			files := copyLesson(t, tc.lesson)
			name := tc.lesson + "/lesson.yaml"
			yaml := string(files[name].Data)
			at := strings.Index(yaml, tc.from)
			if at < 0 {
				t.Fatalf("fixture: %q not in %s", tc.from, name)
			}
			broken := yaml[:at] + tc.to + yaml[at+len(tc.from):]
			files[name] = &fstest.MapFile{Data: []byte(broken)}
			_, err := scenarios.LoadDir(files, tc.lesson, "scenarios", nil, tok)
			var e *scenarios.Error
			if !errors.As(err, &e) {
				t.Fatalf("LoadDir = %v; want a *scenarios.Error", err)
			}
			line := strings.Count(broken[:at], "\n") + 1
			if e.File != "scenarios/"+name || e.Field != tc.field || e.Line != line {
				t.Errorf("LoadDir error = %s (field %q, line %d); want %s, field %s, line %d", err, e.Field, e.Line, name, tc.field, line)
			}
		})
	}
}

// copyLesson copies a built-in lesson's files.
func copyLesson(t *testing.T, id string) fstest.MapFS {
	t.Helper()
	files := fstest.MapFS{}
	err := fs.WalkDir(scenarios.Builtin(), id, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(scenarios.Builtin(), p)
		files[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
