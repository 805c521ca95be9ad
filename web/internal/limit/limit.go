// Package limit holds what the site's per-client limits share: a rate per
// client (the rooms' creation, the uploads) and the rule that a limit left
// zero takes its default.
package limit

import (
	"reflect"
	"sync"
	"time"
)

// Defaults is l with each of its number fields (durations included) that
// is not positive taken from d: in a configuration of limits, zero means
// the default.
func Defaults[L any](l, d L) L {
	lv, dv := reflect.ValueOf(&l).Elem(), reflect.ValueOf(d)
	for i := range lv.NumField() {
		if f := lv.Field(i); f.CanInt() && f.Int() <= 0 {
			f.Set(dv.Field(i))
		}
	}
	return l
}

// Rate is a token bucket per client, in a bounded table: burst requests
// at once, then one more per interval. It is safe for concurrent use.
type Rate struct {
	burst float64
	every time.Duration // one token per every
	max   int           // clients tracked
	now   func() time.Time

	mu sync.Mutex
	m  map[string]*bucket
}

type bucket struct {
	tokens float64
	at     time.Time
}

// NewRate returns a Rate of burst requests at once, one more per every;
// now is the clock.
func NewRate(burst int, every time.Duration, now func() time.Time) *Rate {
	return &Rate{burst: float64(burst), every: every, max: 10_000, now: now, m: map[string]*bucket{}}
}

// Allow takes a token of client's bucket; if there is none it says how
// long until there is.
func (l *Rate) Allow(client string) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	b := l.m[client]
	if b == nil {
		if len(l.m) >= l.max {
			l.forget(now)
		}
		b = &bucket{tokens: l.burst, at: now}
		l.m[client] = b
	}
	b.tokens = min(l.burst, b.tokens+float64(now.Sub(b.at))/float64(l.every))
	b.at = now
	if b.tokens < 1 {
		return false, time.Duration((1 - b.tokens) * float64(l.every))
	}
	b.tokens--
	return true, 0
}

// Refund gives back the token of a request that opened nothing (the store
// failed): a presenter retrying while the store is down is not locked out
// once it is back.
func (l *Rate) Refund(client string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.m[client]; b != nil {
		b.tokens = min(l.burst, b.tokens+1)
	}
}

// forget drops the buckets that have refilled (those clients start full
// again anyway), or else the one used least recently, so that many
// clients at once cannot lock out a new one. The caller holds l.mu.
func (l *Rate) forget(now time.Time) {
	var oldest string
	for k, b := range l.m {
		if b.tokens+float64(now.Sub(b.at))/float64(l.every) >= l.burst {
			delete(l.m, k)
		} else if oldest == "" || b.at.Before(l.m[oldest].at) {
			oldest = k
		}
	}
	if len(l.m) >= l.max {
		delete(l.m, oldest)
	}
}
