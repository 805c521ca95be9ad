package web

import (
	"container/list"
	"sync"

	"golang.org/x/sync/singleflight"
)

// lru keeps values under string keys, up to a total cost, and evicts the
// least recently used first. Costs are whatever the owner bounds: bytes for
// pages, 1 for replays. Concurrent misses on one key make the value once
// (singleflight); errors are returned to every waiter and never kept. An lru
// with a limit of 0 or less keeps nothing: every miss makes its value.
type lru[V comparable] struct {
	limit  int64
	flight singleflight.Group

	mu    sync.Mutex
	used  int64
	byKey map[string]*list.Element
	order list.List // of *lruEntry[V], most recently used first
}

type lruEntry[V comparable] struct {
	key  string
	val  V
	cost int64
}

func newLRU[V comparable](limit int64) *lru[V] {
	return &lru[V]{limit: limit, byKey: map[string]*list.Element{}}
}

// get returns the value kept under key and marks it as just used.
func (c *lru[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*lruEntry[V]).val, true
}

// getOrMake returns the value kept under key, or makes it with mk, keeps it
// at the cost mk gives, and returns it. While mk runs, other callers asking
// for the same key wait for its result instead of making their own.
func (c *lru[V]) getOrMake(key string, mk func() (V, int64, error)) (V, error) {
	if v, ok := c.get(key); ok {
		return v, nil
	}
	if c.limit <= 0 {
		v, _, err := mk()
		return v, err
	}
	r, err, _ := c.flight.Do(key, func() (any, error) {
		if v, ok := c.get(key); ok { // made by a flight that ended after our get
			return v, nil
		}
		v, cost, err := mk()
		if err != nil {
			return nil, err
		}
		c.put(key, v, cost)
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return r.(V), nil
}

// put keeps v under key, replacing any value there, then evicts down to the
// limit. A value costing more than the whole limit is not kept.
func (c *lru[V]) put(key string, v V, cost int64) {
	if cost > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	c.byKey[key] = c.order.PushFront(&lruEntry[V]{key: key, val: v, cost: cost})
	c.used += cost
	c.evict()
}

// grow adds n to the cost of v, if v is still kept under key: a page's
// compressed encodings are made after it is kept, when first asked for.
func (c *lru[V]) grow(key string, v V, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok || el.Value.(*lruEntry[V]).val != v {
		return
	}
	el.Value.(*lruEntry[V]).cost += n
	c.used += n
	c.evict()
}

// evict drops the least recently used values until the rest fit the limit.
// The caller holds mu.
func (c *lru[V]) evict() {
	for c.used > c.limit && c.order.Len() > 0 {
		c.remove(c.order.Back())
	}
}

// remove drops one entry. The caller holds mu.
func (c *lru[V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*lruEntry[V])
	delete(c.byKey, e.key)
	c.used -= e.cost
}

// reset drops every value, for benchmarks of first visits.
func (c *lru[V]) reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byKey)
	c.order.Init()
	c.used = 0
}

// stats reports how many values are kept and their total cost.
func (c *lru[V]) stats() (n int, used int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.used
}
