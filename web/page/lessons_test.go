package page

import (
	"testing"

	"ctxsim/scenarios"
	"ctxsim/web/internal/testlessons"
)

// TestNarrationTruthCombined: a lesson written as data only, combining the
// tiered compressor with memory across two sessions, is narrated truly in
// every state.
func TestNarrationTruthCombined(t *testing.T) {
	l, err := testlessons.Testdata("tiered-memory")
	if err != nil {
		t.Fatal(err)
	}
	checkTruthOf(t, l)
}

// TestNarrationTruthImported: the narration the importer writes for a
// session is true in every state of every preset policy (thresholds 1 to
// 100 too).
func TestNarrationTruthImported(t *testing.T) {
	ls, err := testlessons.Imported()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			checkTruthOf(t, l)
		})
	}
}

// TestNarrationTruthCalibrated: the narration the importer writes is
// true in every state of every preset policy of the sessions drawn as
// the provider counted them, at their own window and at small ones (the
// shared real session, the shapes fixtures, Codex compactions); the small
// ones at every threshold from 1 to 100 too, the real session at every
// threshold with compaction on.
func TestNarrationTruthCalibrated(t *testing.T) {
	ls, err := testlessons.Calibrated()
	if err != nil {
		t.Fatal(err)
	}
	b, err := testlessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		t.Run(l.ID, func(t *testing.T) {
			t.Parallel()
			s, err := prepare(b.Tokens, []*scenarios.Lesson{l})
			if err != nil {
				t.Fatalf("prepare %s: %v", l.ID, err)
			}
			checkTruthOver(t, s, l, truthPolicies(l))
		})
	}
}

// checkTruthOf prepares l as a server would and checks its narration.
func checkTruthOf(t *testing.T, l *scenarios.Lesson) {
	t.Helper()
	b, err := testlessons.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	s, err := prepare(b.Tokens, []*scenarios.Lesson{l})
	if err != nil {
		t.Fatalf("prepare %s: %v", l.ID, err)
	}
	checkLessonTruth(t, s, l)
}
