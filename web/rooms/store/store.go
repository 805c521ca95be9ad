// Package store keeps presenter rooms: a short code the audience
// types, the hash of the presenter's secret key, and the state URL the
// presenter shows now. Two stores implement Store: Memory (one process;
// its rooms end with the process) and NATS (JetStream key-value, shared
// by every server on one NATS; rooms survive a server restart).
//
// A room's code is random and independent of its key: the key is only
// ever compared, in constant time, with the hash the store holds, and no
// request can claim a code that is not its own.
package store

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
)

// State is a room's current state.
type State struct {
	URL string `json:"url"` // the presenter's state URL; "" before the first publish
	Seq uint64 `json:"seq"` // 1 at the first publish, one more at each; 0 before
}

// Store keeps rooms. Every method is safe for concurrent use.
type Store interface {
	// Create opens an empty room under a new random code and returns the
	// code and the presenter's new random key.
	Create(ctx context.Context) (code, key string, err error)
	// Publish sets the room's state and sends it to every subscriber.
	Publish(ctx context.Context, code, key, url string) (State, error)
	// Current returns the room's state.
	Current(ctx context.Context, code string) (State, error)
	// Subscribe returns a channel that gets the current state (if any has
	// been published) and then every later one, in increasing Seq. A slow
	// reader only misses intermediate states, never the latest one. The
	// channel is closed when ctx ends, the room is closed, or the store
	// shuts down. A subscriber keeps its room from expiring.
	Subscribe(ctx context.Context, code string) (<-chan State, error)
	// Close ends the room; its subscribers' channels are closed.
	Close(ctx context.Context, code, key string) error
	// Health is nil when rooms can be used now, else an ErrUnavailable.
	// It may repair what it finds broken (NATS: a bucket lost with the
	// NATS server's store).
	Health(ctx context.Context) error
}

// Errors of a Store.
var (
	ErrNoRoom      = errors.New("room not found")
	ErrRoomKey     = errors.New("wrong key for this room")
	ErrRoomsFull   = errors.New("too many rooms")
	ErrUnavailable = errors.New("room store unavailable")
)

// Limits bound a store's rooms.
type Limits struct {
	// TTL: a room nobody publishes to and nobody follows expires this long
	// after its last publish (or its last subscriber leaving).
	TTL time.Duration
	// FullTTL: when the store holds Rooms rooms, rooms idle this long
	// (nobody attached) are dropped to make room; shorter than TTL.
	FullTTL time.Duration
	// Rooms caps the live rooms.
	Rooms int
}

// DefaultLimits are the limits of `ctxsim serve`.
func DefaultLimits() Limits {
	return Limits{TTL: 2 * time.Hour, FullTTL: 10 * time.Minute, Rooms: 10_000}
}

// Room codes are read off a projector and typed on phones: 6 symbols of an
// alphabet without 0/O and 1/I, 5 bits each (30 bits, drawn at random).
const (
	Alphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
	CodeLen  = 6
	keyBytes = 16 // 128 random bits, hex in the API
)

// ParseCode accepts a code in either case and returns it upper case.
func ParseCode(v string) (string, bool) {
	if len(v) != CodeLen {
		return "", false
	}
	v = strings.ToUpper(v)
	for i := range len(v) {
		if strings.IndexByte(Alphabet, v[i]) < 0 {
			return "", false
		}
	}
	return v, true
}

// ValidKey reports whether k looks like a key made by Create: 32 lower-case
// hex digits.
func ValidKey(k string) bool {
	if len(k) != 2*keyBytes {
		return false
	}
	for i := range len(k) {
		if c := k[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// newCode draws a random code from r. The alphabet has 32 symbols, so the
// low 5 bits of a random byte pick one without bias.
func newCode(r io.Reader) (string, error) {
	b := make([]byte, CodeLen)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("room code: %w", err)
	}
	for i := range b {
		b[i] = Alphabet[b[i]&31]
	}
	return string(b), nil
}

func newKey(r io.Reader) (string, error) {
	b := make([]byte, keyBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("room key: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// keyHash is what a store keeps of a key.
type keyHash [sha256.Size]byte

func hashKey(key string) keyHash { return sha256.Sum256([]byte("ctxsim room key\x00" + key)) }

// matches compares key with h in constant time.
func (h keyHash) matches(key string) bool {
	k := hashKey(key)
	return subtle.ConstantTimeCompare(k[:], h[:]) == 1
}

// codeTries bounds the draws of a free code: with 30 bits and at most a
// few ten thousand rooms, 8 collisions in a row do not happen.
const codeTries = 8

var errNoFreeCode = errors.New("room code: no free code after 8 tries")
