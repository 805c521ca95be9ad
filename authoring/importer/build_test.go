package importer

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"

	"ctxsim/scenarios"
	"ctxsim/sim"
)

// TestBuildInMemory: Build makes the lesson without touching disk (its
// Dir does not exist and is not created), and its files, as a file system,
// load to a lesson that plays the session as Write's does.
func TestBuildInMemory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "never")
	l, err := Build(context.Background(), read(t, "cc_compaction.jsonl"), Options{Dir: dir, Redacted: true, Now: now, Tokens: counter(t)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("Build touched %s: %v", dir, err)
	}
	names, err := fs.Glob(l.FS(), path.Join(l.ID, "*"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"lesson.yaml", "narration.en.md", "narration.ja.md", "summaries.yaml"}
	for i := range names {
		names[i] = path.Base(names[i])
	}
	if !slices.Equal(names, want) {
		t.Errorf("files %v; want %v", names, want)
	}
	got, err := scenarios.LoadDir(l.FS(), l.ID, "mem", nil, counter(t))
	if err != nil {
		t.Fatal(err)
	}
	wrote := t.TempDir()
	if _, err := Write(context.Background(), read(t, "cc_compaction.jsonl"), Options{Dir: wrote, Redacted: true, Now: now, Tokens: counter(t)}); err != nil {
		t.Fatal(err)
	}
	for name, data := range l.Files {
		disk, err := os.ReadFile(filepath.Join(wrote, l.ID, name))
		if err != nil || string(disk) != string(data) {
			t.Errorf("%s: Write wrote other bytes than Build made (%v)", name, err)
		}
	}
	a, _ := sim.Run(got.Lesson, got.DefaultPolicy(), counter(t))
	b, _ := sim.Run(l.Lesson.Lesson, l.Lesson.DefaultPolicy(), counter(t))
	if len(a.Frames) == 0 || len(a.Frames) != len(b.Frames) || a.Frames[len(a.Frames)-1].Total != b.Frames[len(b.Frames)-1].Total {
		t.Errorf("the loaded files replay to %d frames, the built lesson to %d", len(a.Frames), len(b.Frames))
	}
}

// TestCompressorRules: an import's tiered compressor has the rules of the
// lesson compressor.yaml names, as that lesson's file gives them, with the
// import's own tool lists.
func TestCompressorRules(t *testing.T) {
	ls, err := scenarios.Load(scenarios.Builtin(), "scenarios", counter(t))
	if err != nil {
		t.Fatal(err)
	}
	var shipped sim.TierRules
	for _, l := range ls {
		if m, ok := l.Mechanism("tiered"); ok && l.ID == "tiered-compaction" {
			shipped = m.(sim.Tiered).Rules
		}
	}
	c, err := compressor()
	if err != nil {
		t.Fatal(err)
	}
	got := c.Rules
	if got.KeepRecent != shipped.KeepRecent || got.Tier1Distance != shipped.Tier1Distance || got.SemanticMinChars != shipped.SemanticMinChars ||
		got.ExcerptChars != shipped.ExcerptChars || got.HeadPercent != shipped.HeadPercent || got.MaxSemanticPerPass != shipped.MaxSemanticPerPass ||
		got.ArgsChars != shipped.ArgsChars || shipped.KeepRecent == 0 {
		t.Errorf("import rules %+v; want the numbers of tiered-compaction's %+v", got, shipped)
	}
	if !slices.Contains(got.FloorTools, "Read") || slices.Equal(got.FloorTools, shipped.FloorTools) || len(got.SkipTools) != 0 {
		t.Errorf("import floor %v, skip %v; want the agents' tools of compressor.yaml", got.FloorTools, got.SkipTools)
	}
}
