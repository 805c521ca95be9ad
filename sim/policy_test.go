package sim_test

import (
	"errors"
	"testing"

	"ctxsim/sim"
)

func TestParsePolicy(t *testing.T) {
	l, _ := setup(t)
	tests := []struct {
		seg   string
		param string // the parameter the error names; "" when valid
		want  string // the canonical segment when valid
	}{
		{"compaction-on.memory-on.threshold-92.rec-1", "", "compaction-on.memory-on.threshold-92.rec-1"},
		{"rec-5.threshold-1.memory-off.compaction-off", "", "compaction-off.memory-off.threshold-1.rec-5"},
		{"compaction-on.memory-on.threshold-100.rec-1", "", "compaction-on.memory-on.threshold-100.rec-1"},
		{"compaction-on.memory-on.threshold-0.rec-1", "threshold", ""},
		{"compaction-on.memory-on.threshold-101.rec-1", "threshold", ""},
		{"compaction-on.memory-on.threshold--5.rec-1", "threshold", ""},
		{"compaction-on.memory-on.threshold-092.rec-1", "threshold", ""},
		{"compaction-on.memory-on.threshold-92.rec-0", "rec", ""},
		{"compaction-on.memory-on.threshold-92.rec-6", "rec", ""},
		{"compaction-maybe.memory-on.threshold-92.rec-1", "compaction", ""},
		{"compaction-on.memory-on.threshold-92", "rec", ""},
		{"compaction-on.compaction-on.memory-on.threshold-92.rec-1", "compaction", ""},
		{"compaction-on.memory-on.threshold-92.rec-1.status-off", "policy", ""},
		{"", "policy", ""},
	}
	for _, tc := range tests {
		p, err := l.ParsePolicy(tc.seg)
		var pe *sim.PolicyError
		switch {
		case tc.param == "" && (err != nil || p.String() != tc.want):
			t.Errorf("ParsePolicy(%q) = %q, %v; want %q", tc.seg, p, err, tc.want)
		case tc.param != "" && (!errors.As(err, &pe) || pe.Param != tc.param):
			t.Errorf("ParsePolicy(%q) error = %v; want one naming %s", tc.seg, err, tc.param)
		}
	}
}

func TestPolicyValues(t *testing.T) {
	l, _ := setup(t)
	p := l.DefaultPolicy()
	if p.Get("threshold") != "92" || p.Int("threshold") != 92 || !p.On("compaction") || p.Get("nope") != "" {
		t.Errorf("DefaultPolicy() = %s; want threshold 92, compaction on", p)
	}
	q, err := l.With(p, "threshold", "73")
	if err != nil || q.String() != "compaction-on.memory-on.threshold-73.rec-1" || q == p {
		t.Errorf("With(threshold=73) = %s, %v; want the 73%% policy", q, err)
	}
	if _, err := l.With(p, "threshold", "7.5"); err == nil {
		t.Errorf("With(threshold=7.5) succeeded; want an error")
	}
	if l.IsPreset(q) || !l.IsPreset(p) {
		t.Errorf("IsPreset(73%%) = %v, IsPreset(default) = %v; want false, true", l.IsPreset(q), l.IsPreset(p))
	}
	if err := l.CheckPolicy(q); err != nil {
		t.Errorf("CheckPolicy(%s) = %v", q, err)
	}
	if _, err := sim.Run(l, sim.Policy{}, wordCounter{}); err == nil {
		t.Errorf("Run with the zero Policy succeeded; want an error")
	}
}

func TestSetParamOrder(t *testing.T) {
	l := tinyLesson(10, 100)
	tests := []struct {
		order []string
		ok    bool
	}{
		{nil, true},
		{[]string{"memory", "compaction", "threshold", "rec"}, true},
		{[]string{"memory", "compaction", "threshold"}, false},
		{[]string{"memory", "compaction", "threshold", "rec", "rec"}, false},
		{[]string{"memory", "compaction", "threshold", "alpha"}, false},
	}
	for _, tc := range tests {
		if err := l.SetParamOrder(tc.order); (err == nil) != tc.ok {
			t.Errorf("SetParamOrder(%v) = %v; want ok=%v", tc.order, err, tc.ok)
		}
	}
}
