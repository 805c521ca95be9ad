package limit

import (
	"testing"
	"time"
)

// A limit left zero (or negative) takes its default; the others, and the
// fields that are not numbers, stay.
func TestDefaults(t *testing.T) {
	type limits struct {
		Streams int
		Bytes   int64
		Every   time.Duration
		Name    string
	}
	d := limits{Streams: 10, Bytes: 1 << 20, Every: time.Second, Name: "default"}
	for _, tt := range []struct{ in, want limits }{
		{limits{}, limits{Streams: 10, Bytes: 1 << 20, Every: time.Second}},
		{limits{Streams: 3, Bytes: -1, Every: 2 * time.Minute, Name: "x"}, limits{Streams: 3, Bytes: 1 << 20, Every: 2 * time.Minute, Name: "x"}},
		{limits{Streams: -5, Bytes: 7}, limits{Streams: 10, Bytes: 7, Every: time.Second}},
	} {
		if got := Defaults(tt.in, d); got != tt.want {
			t.Errorf("Defaults(%+v) = %+v; want %+v", tt.in, got, tt.want)
		}
	}
}

// A limiter table full of clients still serves a new one: the least
// recently seen client is forgotten.
func TestRateTableFull(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	l := NewRate(2, time.Hour, func() time.Time { return now })
	l.max = 3
	for _, c := range []string{"a", "b", "c"} {
		l.Allow(c)
		now = now.Add(time.Second)
	}
	if ok, _ := l.Allow("d"); !ok {
		t.Fatalf("a new client with the table full was refused")
	}
	if _, seen := l.m["a"]; seen || len(l.m) != 3 {
		t.Errorf("table %v; want a (least recent) forgotten and 3 clients", l.m)
	}
	l.Allow("b")
	if ok, wait := l.Allow("b"); ok || wait <= 0 {
		t.Errorf("b's third room within the hour = %v, %v; want refused with a wait", ok, wait)
	}
}

// A request that opened nothing gives its token back.
func TestRateRefund(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	l := NewRate(2, time.Hour, func() time.Time { return now })
	for range 2 {
		l.Allow("a")
	}
	l.Refund("a")
	if ok, _ := l.Allow("a"); !ok {
		t.Errorf("a refunded token is not there")
	}
	l.Refund("a")
	l.Refund("a")
	l.Refund("a")
	if l.m["a"].tokens != 2 {
		t.Errorf("refunds filled the bucket past its burst: %v", l.m["a"].tokens)
	}
}
