package uploads

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id, err := NewID()
		if err != nil {
			t.Fatal(err)
		}
		if !IsID(id) || len(id) != 34 || !strings.HasPrefix(id, "u-") {
			t.Fatalf("NewID() = %q; want u- and 32 base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "u-", "context-memory", "u-abcdefghijklmnopqrstuvwxyz23456", "u-abcdefghijklmnopqrstuvwxyz2345678",
		"u-ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", "u-abcdefghijklmnopqrstuvwxyz234561", "x-abcdefghijklmnopqrstuvwxyz234567"} {
		if IsID(bad) {
			t.Errorf("IsID(%q) = true", bad)
		}
	}
	id := "u-abcdefghijklmnopqrstuvwxyz234567"
	if !IsID(id) {
		t.Fatalf("IsID(%q) = false", id)
	}
	for in, want := range map[string]string{
		"/en/" + id + "/p/1":                    "/en/" + Redacted + "/p/1",
		"run lesson " + id + " under x":         "run lesson " + Redacted + " under x",
		"menu-abcdefghijklmnopqrstuvwxyz234567": "menu-abcdefghijklmnopqrstuvwxyz234567", // not an id: inside a word
		"/en/context-memory/p/1":                "/en/context-memory/p/1",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q; want %q", in, got, want)
		}
		if got := Mentions(in); got != (want != in) {
			t.Errorf("Mentions(%q) = %v", in, got)
		}
	}
}

func TestSeal(t *testing.T) {
	id, other := "u-abcdefghijklmnopqrstuvwxyz234567", "u-bbcdefghijklmnopqrstuvwxyz234567"
	files := map[string][]byte{"lesson.yaml": []byte("id: x\nsecret words here\n"), "narration.en.md": bytes.Repeat([]byte("a"), 100_000)}
	blob, err := seal(id, files)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(blob, []byte("secret words")) {
		t.Error("the sealed blob holds the files' text")
	}
	got, err := unseal(id, blob)
	if err != nil {
		t.Fatalf("unseal = %v", err)
	}
	if len(got) != 2 || string(got["lesson.yaml"]) != string(files["lesson.yaml"]) || len(got["narration.en.md"]) != 100_000 {
		t.Errorf("unseal(seal(files)) = %d files; want the files back", len(got))
	}
	if _, err := unseal(other, blob); !errors.Is(err, errSealed) {
		t.Errorf("unseal with another id = %v; want errSealed", err)
	}
	blob[len(blob)-1] ^= 1
	if _, err := unseal(id, blob); !errors.Is(err, errSealed) {
		t.Errorf("unseal of a changed blob = %v; want errSealed", err)
	}
	if nameOf(id) == nameOf(other) || strings.Contains(nameOf(id), id[2:]) || len(nameOf(id)) != 32 {
		t.Errorf("nameOf(%s) = %s; want 32 hex digits that do not show the id", id, nameOf(id))
	}
}

// TestRedactHandler: no id reaches the handler a logger writes to, in
// the message, in attributes of any kind, or in attributes added before.
func TestRedactHandler(t *testing.T) {
	id := "u-abcdefghijklmnopqrstuvwxyz234567"
	var buf bytes.Buffer
	log := slog.New(RedactHandler(slog.NewTextHandler(&buf, nil))).With("session", id)
	log.Error("request failed for "+id, "path", "/en/"+id+"/p/1", "err", errors.New("run lesson "+id+": boom"),
		slog.Group("g", "inner", id), "n", 3, "any", struct{ S string }{id})
	out := buf.String()
	if strings.Contains(out, id) || strings.Count(out, Redacted) != 6 || !strings.Contains(out, "n=3") {
		t.Errorf("logged %q; want every id redacted (6) and the rest kept", out)
	}
}

// clock is a settable clock for the store's TTL and limits.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

func newID(t *testing.T) string {
	t.Helper()
	id, err := NewID()
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func memStore(lim Limits) (*Store[string], *clock) {
	c := &clock{t: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}
	return New(Config[string]{Limits: lim, Now: c.now}), c
}

// TestStoreTTL: a session lives TTL after its last use, each use starting
// it again; then it is gone.
func TestStoreTTL(t *testing.T) {
	ctx := context.Background()
	s, c := memStore(Limits{})
	id := newID(t)
	if err := s.Put(ctx, id, "1.2.3.4", 100, nil, "v", 1000); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		c.add(TTL - time.Minute)
		if v, err := s.Get(ctx, id); err != nil || v != "v" {
			t.Fatalf("Get after %s unused = %q, %v; want the session", TTL-time.Minute, v, err)
		}
	}
	c.add(TTL)
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get %s after the last use = %v; want ErrNotFound", TTL, err)
	}
	if n, cost := s.Held(); n != 0 || cost != 0 {
		t.Errorf("Held() = %d, %d after expiry; want nothing", n, cost)
	}
	// Sweep drops one no one asks for again.
	id2 := newID(t)
	if err := s.Put(ctx, id2, "1.2.3.4", 100, nil, "w", 1000); err != nil {
		t.Fatal(err)
	}
	c.add(TTL)
	if err := s.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Held(); n != 0 {
		t.Errorf("Held() = %d after a sweep past the TTL; want 0", n)
	}
	if err := s.Forget(ctx, id2); !errors.Is(err, ErrNotFound) {
		t.Errorf("Forget of an expired session = %v; want ErrNotFound", err)
	}
}

func TestStoreForget(t *testing.T) {
	ctx := context.Background()
	s, _ := memStore(Limits{ClientBytes: 150})
	id := newID(t)
	if err := s.Put(ctx, id, "a", 100, nil, "v", 10); err != nil {
		t.Fatal(err)
	}
	if err := s.Forget(ctx, id); err != nil {
		t.Fatalf("Forget = %v", err)
	}
	if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Forget = %v; want ErrNotFound", err)
	}
	if err := s.Forget(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Forget = %v; want ErrNotFound", err)
	}
	// The client's bytes are free again.
	if err := s.Put(ctx, newID(t), "a", 100, nil, "w", 10); err != nil {
		t.Errorf("Put after Forget freed the client's bytes = %v", err)
	}
	if _, err := s.Get(ctx, "context-memory"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a lesson id = %v; want ErrNotFound", err)
	}
}

// TestStoreLimits: the rate and the bytes of one client; the memory of
// the server: idle sessions leave, least recently used first, and with
// every session in use the next is refused.
func TestStoreLimits(t *testing.T) {
	ctx := context.Background()
	refused := func(err error, limit string) *Refused {
		t.Helper()
		var r *Refused
		if !errors.As(err, &r) || r.Limit != limit || r.RetryAfter < time.Second {
			t.Fatalf("err = %v; want Refused(%s) with a RetryAfter of a second or more", err, limit)
		}
		return r
	}
	t.Run("rate", func(t *testing.T) {
		s, c := memStore(Limits{Burst: 2, Every: 30 * time.Second})
		for i := range 2 {
			if err := s.Admit("a", 10); err != nil {
				t.Fatalf("upload %d: %v", i+1, err)
			}
		}
		if r := refused(s.Admit("a", 10), LimitRate); r.RetryAfter > 30*time.Second {
			t.Errorf("RetryAfter = %s; want at most 30 s", r.RetryAfter)
		}
		if err := s.Admit("b", 10); err != nil {
			t.Errorf("another client: %v", err)
		}
		c.add(30 * time.Second)
		if err := s.Admit("a", 10); err != nil {
			t.Errorf("after 30 s: %v", err)
		}
	})
	t.Run("client bytes", func(t *testing.T) {
		s, c := memStore(Limits{ClientBytes: 250})
		for range 2 {
			if err := s.Put(ctx, newID(t), "a", 100, nil, "v", 10); err != nil {
				t.Fatal(err)
			}
			c.add(time.Minute)
		}
		r := refused(s.Admit("a", 100), LimitClientBytes)
		if r.RetryAfter != TTL-2*time.Minute {
			t.Errorf("RetryAfter = %s; want %s, when the first session expires", r.RetryAfter, TTL-2*time.Minute)
		}
		refused(s.Put(ctx, newID(t), "a", 100, nil, "v", 10), LimitClientBytes)
		if err := s.Put(ctx, newID(t), "b", 100, nil, "v", 10); err != nil {
			t.Errorf("another client: %v", err)
		}
	})
	t.Run("memory", func(t *testing.T) {
		s, c := memStore(Limits{Memory: 1000, Idle: 10 * time.Minute})
		a, b, d := newID(t), newID(t), newID(t)
		for _, id := range []string{a, b} {
			if err := s.Put(ctx, id, "x", 1, nil, id, 400); err != nil {
				t.Fatal(err)
			}
			c.add(time.Minute)
		}
		r := refused(s.Put(ctx, d, "y", 1, nil, d, 400), LimitMemory)
		if r.RetryAfter != 8*time.Minute {
			t.Errorf("RetryAfter = %s; want 8m0s, when the oldest session is idle", r.RetryAfter)
		}
		c.add(9 * time.Minute) // a idle 10 min, b 9 min
		if _, err := s.Get(ctx, b); err != nil {
			t.Fatal(err)
		}
		if err := s.Put(ctx, d, "y", 1, nil, d, 400); err != nil {
			t.Fatalf("Put with an idle session to push out = %v", err)
		}
		if _, err := s.Get(ctx, a); !errors.Is(err, ErrNotFound) {
			t.Errorf("the least recently used idle session: %v; want it gone", err)
		}
		if _, err := s.Get(ctx, b); err != nil {
			t.Errorf("the session in use: %v; want it kept", err)
		}
		if n, cost := s.Held(); n != 2 || cost != 800 {
			t.Errorf("Held() = %d, %d; want 2, 800", n, cost)
		}
		if err := s.Put(ctx, newID(t), "z", 1, nil, "", 1001); !errors.Is(err, ErrTooLarge) {
			t.Errorf("a session costing more than the budget: %v; want ErrTooLarge", err)
		}
	})
}
