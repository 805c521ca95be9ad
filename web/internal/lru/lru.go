// Package lru is the bounded least-recently-used cache the web server
// keeps its pages, replays and drawn windows in.
package lru

import (
	"container/list"
	"sync"

	"golang.org/x/sync/singleflight"
)

// Cache keeps values under string keys, up to a total cost, and evicts the
// least recently used first. Costs are whatever the owner bounds: bytes for
// pages, 1 for replays. Concurrent misses on one key make the value once
// (singleflight); errors are returned to every waiter and never kept. A
// Cache with a limit of 0 or less keeps nothing: every miss makes its value.
type Cache[V comparable] struct {
	limit  int64
	flight singleflight.Group

	mu    sync.Mutex
	used  int64
	byKey map[string]*list.Element
	order list.List // of *entry[V], most recently used first
}

type entry[V comparable] struct {
	key  string
	val  V
	cost int64
}

// New returns a Cache that keeps values up to a total cost of limit.
func New[V comparable](limit int64) *Cache[V] {
	return &Cache[V]{limit: limit, byKey: map[string]*list.Element{}}
}

// Get returns the value kept under key and marks it as just used.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*entry[V]).val, true
}

// GetOrMake returns the value kept under key, or makes it with mk, keeps it
// at the cost mk gives, and returns it. While mk runs, other callers asking
// for the same key wait for its result instead of making their own.
func (c *Cache[V]) GetOrMake(key string, mk func() (V, int64, error)) (V, error) {
	if v, ok := c.Get(key); ok {
		return v, nil
	}
	if c.limit <= 0 {
		v, _, err := mk()
		return v, err
	}
	r, err, _ := c.flight.Do(key, func() (any, error) {
		if v, ok := c.Get(key); ok { // made by a flight that ended after our get
			return v, nil
		}
		v, cost, err := mk()
		if err != nil {
			return nil, err
		}
		c.Put(key, v, cost)
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return r.(V), nil
}

// Put keeps v under key, replacing any value there, then evicts down to the
// limit. A value costing more than the whole limit is not kept.
func (c *Cache[V]) Put(key string, v V, cost int64) {
	if cost > c.limit {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[key]; ok {
		c.remove(el)
	}
	c.byKey[key] = c.order.PushFront(&entry[V]{key: key, val: v, cost: cost})
	c.used += cost
	c.evict()
}

// Grow adds n to the cost of v, if v is still kept under key: a page's
// compressed encodings are made after it is kept, when first asked for.
func (c *Cache[V]) Grow(key string, v V, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok || el.Value.(*entry[V]).val != v {
		return
	}
	el.Value.(*entry[V]).cost += n
	c.used += n
	c.evict()
}

// evict drops the least recently used values until the rest fit the limit.
// The caller holds mu.
func (c *Cache[V]) evict() {
	for c.used > c.limit && c.order.Len() > 0 {
		c.remove(c.order.Back())
	}
}

// remove drops one entry. The caller holds mu.
func (c *Cache[V]) remove(el *list.Element) {
	e := c.order.Remove(el).(*entry[V])
	delete(c.byKey, e.key)
	c.used -= e.cost
}

// Reset drops every value, for benchmarks of first visits.
func (c *Cache[V]) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.byKey)
	c.order.Init()
	c.used = 0
}

// Stats reports how many values are kept and their total cost.
func (c *Cache[V]) Stats() (n int, used int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len(), c.used
}

// Limit is the total cost the Cache keeps values up to.
func (c *Cache[V]) Limit() int64 { return c.limit }

// Cost is the cost counted for the value kept under key, if one is.
func (c *Cache[V]) Cost(key string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return 0, false
	}
	return el.Value.(*entry[V]).cost, true
}
