package lru

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type costly struct{ name string }

func keep(c *Cache[*costly], key string, cost int64) *costly {
	v := &costly{key}
	c.Put(key, v, cost)
	return v
}

func kept(c *Cache[*costly], keys ...string) []string {
	var out []string
	for _, k := range keys {
		c.mu.Lock()
		_, ok := c.byKey[k]
		c.mu.Unlock()
		if ok {
			out = append(out, k)
		}
	}
	return out
}

func TestLRUEvictsLeastRecentlyUsed(t *testing.T) {
	c := New[*costly](10)
	keep(c, "a", 4)
	keep(c, "b", 4)
	c.Get("a") // b is now the least recently used
	keep(c, "c", 4)
	if got := kept(c, "a", "b", "c"); len(got) != 2 || got[0] != "a" || got[1] != "c" {
		t.Errorf("kept = %v; want [a c]", got)
	}
	if n, used := c.Stats(); n != 2 || used != 8 {
		t.Errorf("stats = %d, %d; want 2, 8", n, used)
	}
	keep(c, "huge", 11)
	if got := kept(c, "huge", "a", "c"); len(got) != 2 {
		t.Errorf("kept = %v after a value larger than the limit; want [a c]", got)
	}
}

func TestLRUGrowCountsAndEvicts(t *testing.T) {
	c := New[*costly](10)
	a := keep(c, "a", 3)
	b := keep(c, "b", 3)
	c.Grow("a", a, 2)
	if _, used := c.Stats(); used != 8 {
		t.Fatalf("used = %d after growing a by 2; want 8", used)
	}
	c.Grow("a", b, 100) // not the value kept under a: ignored
	if _, used := c.Stats(); used != 8 {
		t.Fatalf("used = %d after growing a stale value; want 8", used)
	}
	c.Grow("b", b, 4) // 12 > 10: a, the least recently used, goes
	if got := kept(c, "a", "b"); len(got) != 1 || got[0] != "b" {
		t.Errorf("kept = %v; want [b]", got)
	}
	if _, used := c.Stats(); used != 7 {
		t.Errorf("used = %d; want 7", used)
	}
}

func TestLRUMakesOnceForConcurrentMisses(t *testing.T) {
	c := New[*costly](10)
	var calls atomic.Int32
	started, release := make(chan struct{}), make(chan struct{})
	mk := func() (*costly, int64, error) {
		if calls.Add(1) == 1 {
			close(started)
		}
		<-release
		return &costly{"v"}, 1, nil
	}
	var wg sync.WaitGroup
	got := make([]*costly, 20)
	for i := range got {
		wg.Go(func() {
			v, err := c.GetOrMake("k", mk)
			if err != nil {
				t.Errorf("getOrMake: %v", err)
			}
			got[i] = v
		})
	}
	<-started
	time.Sleep(20 * time.Millisecond) // let the others join the flight (or find the value after it)
	close(release)
	wg.Wait()
	if n := calls.Load(); n != 1 {
		t.Errorf("mk called %d times for 20 concurrent misses; want 1", n)
	}
	for i, v := range got {
		if v != got[0] {
			t.Fatalf("caller %d got another value", i)
		}
	}
}

func TestLRUKeepsNoErrors(t *testing.T) {
	c := New[*costly](10)
	calls := 0
	fail := func() (*costly, int64, error) { calls++; return nil, 0, errors.New("no") }
	for range 2 {
		if _, err := c.GetOrMake("k", fail); err == nil {
			t.Fatal("getOrMake = nil error; want the error of mk")
		}
	}
	if n, _ := c.Stats(); n != 0 || calls != 2 {
		t.Errorf("after two failures: %d kept, %d calls; want 0 kept, 2 calls", n, calls)
	}
}

func TestLRUDisabledKeepsNothing(t *testing.T) {
	c := New[*costly](-1)
	calls := 0
	mk := func() (*costly, int64, error) { calls++; return &costly{"v"}, 1, nil }
	for range 3 {
		if _, err := c.GetOrMake("k", mk); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := c.Stats(); n != 0 || calls != 3 {
		t.Errorf("disabled: %d kept, %d calls; want 0 kept, 3 calls", n, calls)
	}
}
