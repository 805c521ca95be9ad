package sim_test

import (
	"errors"
	"strings"
	"testing"

	"ctxsim/sim"
)

func TestPolicyValidate(t *testing.T) {
	ok := sim.Policy{Compaction: true, Memory: true, ThresholdPercent: 92, Recording: 1}
	tests := []struct {
		name  string
		p     sim.Policy
		field string // "" when the policy is valid
	}{
		{"default", ok, ""},
		{"threshold 1", sim.Policy{ThresholdPercent: 1, Recording: 1}, ""},
		{"threshold 100", sim.Policy{ThresholdPercent: 100, Recording: 5}, ""},
		{"threshold 0", sim.Policy{Compaction: true, Memory: true, ThresholdPercent: 0, Recording: 1}, "threshold"},
		{"threshold 101", sim.Policy{Compaction: true, Memory: true, ThresholdPercent: 101, Recording: 1}, "threshold"},
		{"threshold -5", sim.Policy{ThresholdPercent: -5, Recording: 1}, "threshold"},
		{"rec 0", sim.Policy{Compaction: true, Memory: true, ThresholdPercent: 92, Recording: 0}, "rec"},
		{"rec 6", sim.Policy{Compaction: true, Memory: true, ThresholdPercent: 92, Recording: sim.Recordings + 1}, "rec"},
		{"both bad reports threshold first", sim.Policy{ThresholdPercent: 0, Recording: 0}, "threshold"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tinyLesson(100, 1000).ValidatePolicy(tc.p)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("Validate(%+v) = %v; want nil", tc.p, err)
				}
				return
			}
			var pe *sim.PolicyError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate(%+v) = %v (%T); want *sim.PolicyError", tc.p, err, err)
			}
			if pe.Field != tc.field {
				t.Errorf("Validate(%+v) field = %q; want %q", tc.p, pe.Field, tc.field)
			}
			if pe.Allowed == "" || !strings.Contains(pe.Error(), tc.field) {
				t.Errorf("Validate(%+v) error %q must name the field %q and what is allowed", tc.p, pe.Error(), tc.field)
			}

			// Run refuses the same policy with the same error and no frames.
			frames, err := sim.Run(tinyLesson(100, 1000), tc.p, wordCounter{})
			if !errors.As(err, &pe) || pe.Field != tc.field {
				t.Errorf("Run(%+v) error = %v; want *sim.PolicyError for %q", tc.p, err, tc.field)
			}
			if frames != nil {
				t.Errorf("Run(%+v) returned %d frames with an error; want none", tc.p, len(frames))
			}
		})
	}
}
