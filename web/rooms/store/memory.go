package store

import (
	"context"
	"crypto/rand"
	"io"
	"sync"
	"time"
)

// Memory is a Store in this process's memory: its rooms end with the
// process.
//
// A room expires when nobody has published to it or subscribed to it for
// TTL and no subscriber is attached: an open presenter or audience tab
// keeps its room. When the store is full, rooms idle for FullTTL go first.
// Expired rooms are dropped on access and by a sweep that runs at most
// once a minute when rooms are created, so no goroutine outlives the store.
type Memory struct {
	now    func() time.Time
	rand   io.Reader
	limits Limits

	mu        sync.Mutex
	rooms     map[string]*memRoom
	nextSweep time.Time
}

type memRoom struct {
	key    keyHash
	state  State
	active time.Time // last create, publish, subscribe or unsubscribe
	subs   map[*memSub]struct{}
}

type memSub struct {
	ch   chan State  // capacity 1: the latest state not yet read
	stop func() bool // unregisters the context.AfterFunc that unsubscribes
}

// NewMemory returns an empty store; now is its only clock (time.Now when
// nil).
func NewMemory(now func() time.Time, limits Limits) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, rand: rand.Reader, limits: limits, rooms: map[string]*memRoom{}}
}

// idleFor reports whether r has had nobody attached for at least d.
func idleFor(r *memRoom, now time.Time, d time.Duration) bool {
	return len(r.subs) == 0 && now.Sub(r.active) >= d
}

// room returns the live room under code, dropping it if it has expired.
// The caller holds m.mu.
func (m *Memory) room(code string, now time.Time) *memRoom {
	r := m.rooms[code]
	if r != nil && idleFor(r, now, m.limits.TTL) {
		delete(m.rooms, code)
		return nil
	}
	return r
}

// sweep drops expired rooms, and rooms idle for FullTTL when the store is
// full. The caller holds m.mu.
func (m *Memory) sweep(now time.Time) {
	full := len(m.rooms) >= m.limits.Rooms
	if now.Before(m.nextSweep) && !full {
		return
	}
	ttl := m.limits.TTL
	if full {
		ttl = min(ttl, m.limits.FullTTL)
	}
	for c, r := range m.rooms {
		if idleFor(r, now, ttl) {
			delete(m.rooms, c)
		}
	}
	m.nextSweep = now.Add(time.Minute)
}

// Create opens a room under a random free code.
func (m *Memory) Create(ctx context.Context) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	if len(m.rooms) >= m.limits.Rooms {
		return "", "", ErrRoomsFull
	}
	key, err := newKey(m.rand)
	if err != nil {
		return "", "", err
	}
	for range codeTries {
		code, err := newCode(m.rand)
		if err != nil {
			return "", "", err
		}
		if m.room(code, now) != nil {
			continue
		}
		m.rooms[code] = &memRoom{key: hashKey(key), active: now, subs: map[*memSub]struct{}{}}
		return code, key, nil
	}
	return "", "", errNoFreeCode
}

// Publish sets the room's state and offers it to every subscriber without
// blocking: a full channel gives up its older state for this one.
func (m *Memory) Publish(ctx context.Context, code, key, url string) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r := m.room(code, now)
	if r == nil {
		return State{}, ErrNoRoom
	}
	if !r.key.matches(key) {
		return State{}, ErrRoomKey
	}
	r.state = State{URL: url, Seq: r.state.Seq + 1}
	r.active = now
	for s := range r.subs {
		offer(s.ch, r.state)
	}
	return r.state, nil
}

// offer puts v in ch, replacing a value the reader has not taken yet.
func offer[T any](ch chan T, v T) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// Current returns the room's state.
func (m *Memory) Current(ctx context.Context, code string) (State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.room(code, m.now())
	if r == nil {
		return State{}, ErrNoRoom
	}
	return r.state, nil
}

// Subscribe follows the room until ctx ends or the room is closed.
func (m *Memory) Subscribe(ctx context.Context, code string) (<-chan State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r := m.room(code, now)
	if r == nil {
		return nil, ErrNoRoom
	}
	s := &memSub{ch: make(chan State, 1)}
	if r.state.Seq > 0 {
		s.ch <- r.state
	}
	r.subs[s] = struct{}{}
	r.active = now
	s.stop = context.AfterFunc(ctx, func() { m.unsubscribe(r, s) })
	return s.ch, nil
}

func (m *Memory) unsubscribe(r *memRoom, s *memSub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := r.subs[s]; !ok {
		return // the room was closed
	}
	delete(r.subs, s)
	close(s.ch)
	r.active = m.now()
}

// Close ends the room and closes its subscribers' channels.
func (m *Memory) Close(ctx context.Context, code, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.room(code, m.now())
	if r == nil {
		return ErrNoRoom
	}
	if !r.key.matches(key) {
		return ErrRoomKey
	}
	delete(m.rooms, code)
	for s := range r.subs {
		s.stop()
		close(s.ch)
	}
	clear(r.subs)
	return nil
}

// Health is always nil: the rooms are in this process.
func (m *Memory) Health(context.Context) error { return nil }
