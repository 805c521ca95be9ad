package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// RoomStore keeps presenter rooms. A room is a short code, the presenter's
// key and one state URL: the page the presenter shows now. Nothing else is
// kept, so a room lost in a restart is rebuilt whole by the presenter's
// next publish (Ensure).
//
// The interface is small so that a shared pub/sub backend (Redis, NATS,
// Postgres LISTEN) can serve several replicas later: codes derive from keys
// (roomCodeOf), so any replica can check a presenter without shared state.
type RoomStore interface {
	// Create opens an empty room and returns its code and the presenter's
	// key.
	Create(ctx context.Context) (code, key string, err error)
	// Publish sets the room's state and sends it to every subscriber.
	Publish(ctx context.Context, code, key, state string) error
	// Current returns the room's state, "" before the first publish.
	Current(ctx context.Context, code string) (string, error)
	// Subscribe returns a channel that gets the current state (if any) and
	// then every published state. A slow reader only misses intermediate
	// states, never the latest one. The channel is closed when ctx ends or
	// the room is closed.
	Subscribe(ctx context.Context, code string) (<-chan string, error)
	// Ensure publishes state, first re-creating the room under code if it
	// is missing (a server restart): the presenter page keeps code and key.
	Ensure(ctx context.Context, code, key, state string) error
	// Close removes the room; its subscribers' channels are closed.
	Close(ctx context.Context, code, key string) error
}

// Errors of a RoomStore.
var (
	ErrNoRoom    = errors.New("room not found")
	ErrRoomKey   = errors.New("wrong key for this room")
	ErrRoomsFull = errors.New("too many rooms")
)

// Room codes are read off a projector and typed on phones: 6 symbols of an
// alphabet without 0/O and 1/I, 5 bits each.
const (
	roomAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	roomCodeLen  = 6
	roomKeyBytes = 16 // 128 random bits, hex in the API
)

// roomCodeOf derives a room's code from its key. Nobody can re-create a
// lost room under someone else's code without that room's key, short of
// hashing about 2^29 random keys while the room is missing; and the code
// is checked by hashing, so replicas need no shared table of keys.
func roomCodeOf(key string) string {
	sum := sha256.Sum256([]byte("ctxsim room code\x00" + key))
	v := binary.BigEndian.Uint64(sum[:8])
	b := make([]byte, roomCodeLen)
	for i := range b {
		b[i] = roomAlphabet[v>>(64-5*(i+1))&31]
	}
	return string(b)
}

// parseRoomCode accepts a code in either case and returns it upper case.
func parseRoomCode(v string) (string, bool) {
	if len(v) != roomCodeLen {
		return "", false
	}
	v = strings.ToUpper(v)
	for i := range len(v) {
		if strings.IndexByte(roomAlphabet, v[i]) < 0 {
			return "", false
		}
	}
	return v, true
}

// validRoomKey reports whether k looks like a key made by newRoomKey.
func validRoomKey(k string) bool {
	if len(k) != 2*roomKeyBytes {
		return false
	}
	for i := range len(k) {
		if c := k[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func newRoomKey(r io.Reader) (string, error) {
	b := make([]byte, roomKeyBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("room key: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// memoryRooms is a RoomStore in this process's memory.
//
// A room expires when nobody has published to it or subscribed to it for
// ttl and no subscriber is attached: an open presenter or audience tab
// keeps its room. Expired rooms are dropped on access and by a sweep that
// runs at most once a minute when rooms are created, so no goroutine
// outlives the store.
type memoryRooms struct {
	now   func() time.Time
	rand  io.Reader
	ttl   time.Duration
	limit int

	mu        sync.Mutex
	rooms     map[string]*memRoom
	nextSweep time.Time
}

type memRoom struct {
	key    [sha256.Size]byte // hash of the presenter's key
	state  string
	active time.Time // last create, publish, subscribe or unsubscribe
	subs   map[*memSub]struct{}
}

type memSub struct {
	ch   chan string // capacity 1: the latest state not yet read
	stop func() bool // unregisters the context.AfterFunc that unsubscribes
}

// newMemoryRooms returns an empty store. now is its only clock; limit caps
// the number of live rooms.
func newMemoryRooms(now func() time.Time, ttl time.Duration, limit int) *memoryRooms {
	return &memoryRooms{now: now, rand: rand.Reader, ttl: ttl, limit: limit, rooms: map[string]*memRoom{}}
}

func hashRoomKey(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

func (r *memRoom) keyMatches(key string) bool {
	h := hashRoomKey(key)
	return subtle.ConstantTimeCompare(h[:], r.key[:]) == 1
}

func (m *memoryRooms) idle(r *memRoom, now time.Time) bool {
	return len(r.subs) == 0 && now.Sub(r.active) >= m.ttl
}

// room returns the live room under code, dropping it if it has expired.
// The caller holds m.mu.
func (m *memoryRooms) room(code string, now time.Time) *memRoom {
	r := m.rooms[code]
	if r != nil && m.idle(r, now) {
		delete(m.rooms, code)
		return nil
	}
	return r
}

// makeRoom adds a room, sweeping expired ones first when it is time or
// when the store is full. The caller holds m.mu.
func (m *memoryRooms) makeRoom(code, key string, now time.Time) (*memRoom, error) {
	if !now.Before(m.nextSweep) || len(m.rooms) >= m.limit {
		for c, r := range m.rooms {
			if m.idle(r, now) {
				delete(m.rooms, c)
			}
		}
		m.nextSweep = now.Add(time.Minute)
	}
	if len(m.rooms) >= m.limit {
		return nil, ErrRoomsFull
	}
	r := &memRoom{key: hashRoomKey(key), active: now, subs: map[*memSub]struct{}{}}
	m.rooms[code] = r
	return r, nil
}

func (m *memoryRooms) Create(ctx context.Context) (string, string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	// A code collision needs another live room among 2^30 codes: retrying
	// a few times makes a failure practically impossible.
	for range 8 {
		key, err := newRoomKey(m.rand)
		if err != nil {
			return "", "", err
		}
		code := roomCodeOf(key)
		if m.room(code, now) != nil {
			continue
		}
		if _, err := m.makeRoom(code, key, now); err != nil {
			return "", "", err
		}
		return code, key, nil
	}
	return "", "", errors.New("room code: no free code after 8 tries")
}

func (m *memoryRooms) Publish(ctx context.Context, code, key, state string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r := m.room(code, now)
	if r == nil {
		return ErrNoRoom
	}
	if !r.keyMatches(key) {
		return ErrRoomKey
	}
	m.set(r, state, now)
	return nil
}

// set stores state and offers it to every subscriber without blocking:
// a full channel gives up its older state for this one.
func (m *memoryRooms) set(r *memRoom, state string, now time.Time) {
	r.state, r.active = state, now
	for s := range r.subs {
		offer(s.ch, state)
	}
}

func offer(ch chan string, v string) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch: // drop the state the reader has not taken yet
		default:
		}
	}
}

func (m *memoryRooms) Ensure(ctx context.Context, code, key, state string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r := m.room(code, now)
	if r == nil {
		if roomCodeOf(key) != code {
			return ErrRoomKey
		}
		var err error
		if r, err = m.makeRoom(code, key, now); err != nil {
			return err
		}
	} else if !r.keyMatches(key) {
		return ErrRoomKey
	}
	m.set(r, state, now)
	return nil
}

func (m *memoryRooms) Current(ctx context.Context, code string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.room(code, m.now())
	if r == nil {
		return "", ErrNoRoom
	}
	return r.state, nil
}

func (m *memoryRooms) Subscribe(ctx context.Context, code string) (<-chan string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	r := m.room(code, now)
	if r == nil {
		return nil, ErrNoRoom
	}
	s := &memSub{ch: make(chan string, 1)}
	if r.state != "" {
		s.ch <- r.state
	}
	r.subs[s] = struct{}{}
	r.active = now
	s.stop = context.AfterFunc(ctx, func() { m.unsubscribe(r, s) })
	return s.ch, nil
}

func (m *memoryRooms) unsubscribe(r *memRoom, s *memSub) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := r.subs[s]; !ok {
		return // the room was closed
	}
	delete(r.subs, s)
	close(s.ch)
	r.active = m.now()
}

func (m *memoryRooms) Close(ctx context.Context, code, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.room(code, m.now())
	if r == nil {
		return ErrNoRoom
	}
	if !r.keyMatches(key) {
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
