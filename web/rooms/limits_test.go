package rooms

import (
	"testing"
	"time"
)

// A limiter table full of clients still serves a new one: the least
// recently seen client is forgotten.
func TestRateLimiterTableFull(t *testing.T) {
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	l := newRateLimiter(2, time.Hour, func() time.Time { return now })
	l.max = 3
	for _, c := range []string{"a", "b", "c"} {
		l.allow(c)
		now = now.Add(time.Second)
	}
	if ok, _ := l.allow("d"); !ok {
		t.Fatalf("a new client with the table full was refused")
	}
	if _, seen := l.m["a"]; seen || len(l.m) != 3 {
		t.Errorf("table %v; want a (least recent) forgotten and 3 clients", l.m)
	}
	l.allow("b")
	if ok, wait := l.allow("b"); ok || wait <= 0 {
		t.Errorf("b's third room within the hour = %v, %v; want refused with a wait", ok, wait)
	}
}
