package store

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"testing"
	"time"
)

// One contract, two stores: every test here runs against the memory store
// (on a fake clock) and the NATS store (on an embedded NATS server, in
// real time with short limits).

type harness struct {
	store   Store
	limits  Limits
	advance func(time.Duration) // lets time pass for the store
	restart func() Store        // a new store as after a server restart; nil when rooms end with the process
}

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func memoryHarness(t *testing.T, rooms int) harness {
	clk := &fakeClock{t: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	lim := Limits{TTL: time.Hour, FullTTL: 10 * time.Minute, Rooms: rooms}
	return harness{store: NewMemory(clk.now, lim), limits: lim, advance: clk.add}
}

func natsHarness(t *testing.T, rooms int) harness {
	url := startNATS(t)
	lim := Limits{TTL: 2 * time.Second, FullTTL: time.Second, Rooms: rooms}
	open := func() Store { return openNATS(t, url, lim) }
	return harness{store: open(), limits: lim, advance: time.Sleep, restart: open}
}

// contract runs f against each store, with a room limit of rooms.
func contract(t *testing.T, rooms int, f func(t *testing.T, h harness)) {
	t.Run("memory", func(t *testing.T) { f(t, memoryHarness(t, rooms)) })
	t.Run("nats", func(t *testing.T) {
		t.Parallel()
		f(t, natsHarness(t, rooms))
	})
}

var codeRE = regexp.MustCompile(`^[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}$`)

// recv reads one value from ch within 2 s.
func recv(t *testing.T, ch <-chan State) (State, bool) {
	t.Helper()
	select {
	case v, ok := <-ch:
		return v, ok
	case <-time.After(2 * time.Second):
		t.Fatalf("no value on the subscription within 2 s")
		return State{}, false
	}
}

// quiet reports a value arriving on ch within d.
func quiet(ch <-chan State, d time.Duration) (State, bool) {
	select {
	case v, ok := <-ch:
		return v, ok
	case <-time.After(d):
		return State{}, false
	}
}

func TestStoreCreatePublishSubscribe(t *testing.T) {
	contract(t, 100, func(t *testing.T, h harness) {
		ctx := t.Context()
		code, key, err := h.store.Create(ctx)
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if !codeRE.MatchString(code) || !ValidKey(key) {
			t.Fatalf("Create = %q, %q; want a 6-symbol code and a 32-hex-digit key", code, key)
		}
		if st, err := h.store.Current(ctx, code); err != nil || st != (State{}) {
			t.Fatalf("Current of a new room = %+v, %v; want the zero State", st, err)
		}
		ch, err := h.store.Subscribe(ctx, code)
		if err != nil {
			t.Fatalf("Subscribe: %v", err)
		}
		if v, ok := quiet(ch, 100*time.Millisecond); ok {
			t.Fatalf("a new room sent %+v before any publish", v)
		}
		if st, err := h.store.Publish(ctx, code, key, "/a"); err != nil || st != (State{"/a", 1}) {
			t.Fatalf("Publish = %+v, %v; want /a seq 1", st, err)
		}
		if v, _ := recv(t, ch); v != (State{"/a", 1}) {
			t.Errorf("subscriber got %+v; want /a seq 1", v)
		}
		if st, _ := h.store.Current(ctx, code); st != (State{"/a", 1}) {
			t.Errorf("Current = %+v; want /a seq 1", st)
		}
		ch2, _ := h.store.Subscribe(ctx, code) // a later subscriber gets the current state first
		if v, _ := recv(t, ch2); v != (State{"/a", 1}) {
			t.Errorf("second subscriber's first value = %+v; want /a seq 1", v)
		}
		if _, err := h.store.Publish(ctx, code, key, "/b"); err != nil {
			t.Fatalf("Publish: %v", err)
		}
		for i, c := range []<-chan State{ch, ch2} {
			if v, _ := recv(t, c); v != (State{"/b", 2}) {
				t.Errorf("subscriber %d got %+v; want /b seq 2", i+1, v)
			}
			if v, ok := quiet(c, 100*time.Millisecond); ok {
				t.Errorf("subscriber %d got a second value %+v for one publish", i+1, v)
			}
		}
		sctx, cancel := context.WithCancel(ctx)
		ch3, _ := h.store.Subscribe(sctx, code)
		recv(t, ch3)
		cancel()
		if _, ok := recv(t, ch3); ok {
			t.Errorf("subscription still open after its context ended")
		}
	})
}

func TestStoreCodesAreRandom(t *testing.T) {
	contract(t, 1000, func(t *testing.T, h harness) {
		seen := map[string]bool{}
		keys := map[string]bool{}
		for range 200 {
			code, key, err := h.store.Create(t.Context())
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			if !codeRE.MatchString(code) || seen[code] || keys[key] {
				t.Fatalf("Create = %q, %q: malformed or repeated", code, key)
			}
			seen[code], keys[key] = true, true
		}
		// 200 random codes use every symbol of the alphabet in each place
		// but a few: a code derived from few bits would not.
		for pos := range CodeLen {
			used := map[byte]bool{}
			for c := range seen {
				used[c[pos]] = true
			}
			if len(used) < 24 {
				t.Errorf("position %d of 200 codes uses %d of 32 symbols; want nearly all", pos, len(used))
			}
		}
	})
}

func TestStoreWrongKeyAndUnknownRoom(t *testing.T) {
	contract(t, 100, func(t *testing.T, h harness) {
		ctx := t.Context()
		code, key, _ := h.store.Create(ctx)
		_, other, _ := h.store.Create(ctx)
		if _, err := h.store.Publish(ctx, code, other, "/x"); !errors.Is(err, ErrRoomKey) {
			t.Errorf("Publish with another room's key = %v; want ErrRoomKey", err)
		}
		if err := h.store.Close(ctx, code, other); !errors.Is(err, ErrRoomKey) {
			t.Errorf("Close with another room's key = %v; want ErrRoomKey", err)
		}
		if st, _ := h.store.Current(ctx, code); st.URL != "" {
			t.Errorf("a refused publish changed the state to %+v", st)
		}
		nope := "ZZZZZZ"
		if nope == code {
			nope = "YYYYYY"
		}
		if _, err := h.store.Publish(ctx, nope, key, "/x"); !errors.Is(err, ErrNoRoom) {
			t.Errorf("Publish to an unknown room = %v; want ErrNoRoom (nothing creates a room under a chosen code)", err)
		}
		if _, err := h.store.Current(ctx, nope); !errors.Is(err, ErrNoRoom) {
			t.Errorf("Current of an unknown room = %v; want ErrNoRoom", err)
		}
		if _, err := h.store.Subscribe(ctx, nope); !errors.Is(err, ErrNoRoom) {
			t.Errorf("Subscribe to an unknown room = %v; want ErrNoRoom", err)
		}
		if err := h.store.Close(ctx, nope, key); !errors.Is(err, ErrNoRoom) {
			t.Errorf("Close of an unknown room = %v; want ErrNoRoom", err)
		}
	})
}

// After a restart a room either is gone for good (memory) or is still
// there under its own key only (NATS): no key claims a code.
func TestStoreRestart(t *testing.T) {
	contract(t, 100, func(t *testing.T, h harness) {
		ctx := t.Context()
		code, key, _ := h.store.Create(ctx)
		_, stranger, _ := h.store.Create(ctx)
		h.store.Publish(ctx, code, key, "/a")
		if h.restart == nil {
			after := NewMemory(nil, h.limits)
			if _, err := after.Publish(ctx, code, key, "/b"); !errors.Is(err, ErrNoRoom) {
				t.Errorf("Publish with the old key after a restart = %v; want ErrNoRoom: rooms end with the process", err)
			}
			return
		}
		after := h.restart()
		if st, err := after.Current(ctx, code); err != nil || st.URL != "/a" {
			t.Fatalf("Current after a restart = %+v, %v; want /a", st, err)
		}
		if _, err := after.Publish(ctx, code, stranger, "/evil"); !errors.Is(err, ErrRoomKey) {
			t.Errorf("Publish with a stranger's key after a restart = %v; want ErrRoomKey", err)
		}
		if st, err := after.Publish(ctx, code, key, "/b"); err != nil || st != (State{"/b", 2}) {
			t.Errorf("Publish with the room's key after a restart = %+v, %v; want /b seq 2", st, err)
		}
	})
}

func TestStoreExpiry(t *testing.T) {
	contract(t, 100, func(t *testing.T, h harness) {
		ctx := t.Context()
		ttl := h.limits.TTL
		code, key, _ := h.store.Create(ctx)
		h.advance(ttl * 3 / 4)
		if _, err := h.store.Publish(ctx, code, key, "/a"); err != nil {
			t.Fatalf("Publish at 3/4 TTL: %v", err)
		}
		h.advance(ttl * 3 / 4) // 3/4 TTL after the publish: still alive
		if _, err := h.store.Current(ctx, code); err != nil {
			t.Fatalf("Current 3/4 TTL after a publish: %v", err)
		}
		h.advance(ttl / 2)
		if _, err := h.store.Current(ctx, code); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("Current 5/4 TTL after the last publish = %v; want ErrNoRoom", err)
		}

		// An attached subscriber keeps its room; the TTL starts when it leaves.
		code, key, _ = h.store.Create(ctx)
		sctx, cancel := context.WithCancel(ctx)
		ch, _ := h.store.Subscribe(sctx, code)
		h.advance(ttl * 2)
		if _, err := h.store.Publish(ctx, code, key, "/b"); err != nil {
			t.Fatalf("Publish 2 TTL later with a subscriber attached: %v", err)
		}
		h.advance(ttl * 2)
		cancel()
		for ok := true; ok; _, ok = recv(t, ch) {
		}
		h.advance(ttl * 3 / 4)
		if _, err := h.store.Current(ctx, code); err != nil {
			t.Fatalf("Current 3/4 TTL after the last subscriber left: %v", err)
		}
		h.advance(ttl / 2)
		if _, err := h.store.Subscribe(ctx, code); !errors.Is(err, ErrNoRoom) {
			t.Fatalf("Subscribe 5/4 TTL after the last subscriber left = %v; want ErrNoRoom", err)
		}
	})
}

// A full store refuses new rooms until rooms have been idle for FullTTL,
// which is shorter than TTL; a followed room is never dropped.
func TestStoreFull(t *testing.T) {
	contract(t, 3, func(t *testing.T, h harness) {
		ctx := t.Context()
		var codes []string
		for range 3 {
			code, _, err := h.store.Create(ctx)
			if err != nil {
				t.Fatalf("Create: %v", err)
			}
			codes = append(codes, code)
		}
		ch, err := h.store.Subscribe(ctx, codes[0])
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.store.Create(ctx); !errors.Is(err, ErrRoomsFull) {
			t.Fatalf("fourth Create with a limit of 3 = %v; want ErrRoomsFull", err)
		}
		h.advance(h.limits.FullTTL + h.limits.FullTTL/2)
		if _, _, err := h.store.Create(ctx); err != nil {
			t.Fatalf("Create once rooms were idle for FullTTL: %v", err)
		}
		if _, err := h.store.Current(ctx, codes[0]); err != nil {
			t.Errorf("the followed room was dropped to make space: %v", err)
		}
		if _, ok := quiet(ch, 50*time.Millisecond); ok {
			t.Errorf("the followed room's subscriber got a value or was closed")
		}
	})
}

func TestStoreSlowSubscriberGetsLatest(t *testing.T) {
	contract(t, 100, func(t *testing.T, h harness) {
		ctx := t.Context()
		code, key, _ := h.store.Create(ctx)
		slow, _ := h.store.Subscribe(ctx, code) // not read until the end
		const n = 200
		done := make(chan error, 1)
		go func() {
			for i := 1; i <= n; i++ {
				if _, err := h.store.Publish(ctx, code, key, fmt.Sprintf("/s/%d", i)); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%d publishes did not finish in 20 s: a subscriber that does not read blocks Publish", n)
		}
		want := State{fmt.Sprintf("/s/%d", n), n}
		var last State
		for last != want {
			v, ok := recv(t, slow)
			if !ok {
				t.Fatalf("subscription closed")
			}
			if v.Seq <= last.Seq {
				t.Fatalf("got seq %d after %d; want increasing", v.Seq, last.Seq)
			}
			last = v
		}
		if v, ok := quiet(slow, 100*time.Millisecond); ok {
			t.Errorf("slow subscriber has another value %+v after the latest", v)
		}
	})
}

func TestStoreClose(t *testing.T) {
	contract(t, 100, func(t *testing.T, h harness) {
		ctx := t.Context()
		code, key, _ := h.store.Create(ctx)
		ch, _ := h.store.Subscribe(ctx, code)
		if err := h.store.Close(ctx, code, key); err != nil {
			t.Fatalf("Close: %v", err)
		}
		if _, ok := recv(t, ch); ok {
			t.Errorf("subscription still open after Close")
		}
		if _, err := h.store.Current(ctx, code); !errors.Is(err, ErrNoRoom) {
			t.Errorf("Current after Close = %v; want ErrNoRoom", err)
		}
	})
}

func TestParseCodeAndValidKey(t *testing.T) {
	for _, tt := range []struct {
		in, want string
		ok       bool
	}{
		{"ABC234", "ABC234", true},
		{"abc234", "ABC234", true},
		{"ABC23", "", false},
		{"ABC2345", "", false},
		{"ABC0O1", "", false}, // 0, O and 1 are not in the alphabet
		{"ABCI23", "", false},
		{"ABC 23", "", false},
		{"ÅBC234", "", false},
	} {
		if got, ok := ParseCode(tt.in); got != tt.want || ok != tt.ok {
			t.Errorf("ParseCode(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	for k, want := range map[string]bool{
		"0123456789abcdef0123456789abcdef":  true,
		"0123456789ABCDEF0123456789ABCDEF":  false,
		"0123456789abcdef0123456789abcde":   false,
		"0123456789abcdef0123456789abcdefa": false,
		"g123456789abcdef0123456789abcdef":  false,
	} {
		if got := ValidKey(k); got != want {
			t.Errorf("ValidKey(%q) = %v; want %v", k, got, want)
		}
	}
}
