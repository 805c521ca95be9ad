package uploads

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"ctxsim/web/internal/limit"
)

// MaxBytes is the most one upload may send: its session file and the files
// beside it, together.
const MaxBytes = 32 << 20

// TTL is how long a session lives after its last use.
const TTL = 2 * time.Hour

// Limits bound what uploaded sessions may hold. Zero fields take the
// defaults of DefaultLimits.
type Limits struct {
	// Memory is what the sessions may hold in this server's memory, in
	// bytes, as their Put and load costs count it.
	Memory int64
	// ClientBytes is how many uploaded bytes one client address may have
	// in this server's memory at once.
	ClientBytes int64
	// Burst uploads a client may send at once, then one more per Every.
	Burst int
	Every time.Duration
	// Idle: a session used within Idle is in use, and never leaves memory
	// to make room for another (that one is refused, 503, instead).
	Idle time.Duration
}

// DefaultLimits: a workshop of thirty behind one address each uploads a
// session of a few MB in the same minute (Burst, ClientBytes); the real
// 3.3 MB session counts 14 MB with its caches full (the web package's
// cost model, checked by its BenchmarkUpload), so 1 GiB keeps about
// seventy such sessions in use.
func DefaultLimits() Limits {
	return Limits{Memory: 1 << 30, ClientBytes: 256 << 20, Burst: 30, Every: 2 * time.Second, Idle: 10 * time.Minute}
}

// Errors of a Store.
var (
	// ErrNotFound: no session has this id (forgotten, expired, pushed out
	// of memory, or never uploaded).
	ErrNotFound = errors.New("no such uploaded session: it was forgotten, it expired, or its address is wrong")
	// ErrUnavailable: the Remote did not answer.
	ErrUnavailable = errors.New("the shared store of uploaded sessions did not answer")
	// ErrTooLarge: one session costs more than the whole memory budget.
	ErrTooLarge = errors.New("the session is larger than this server keeps in memory")
)

// Refused is an upload (or a session's load) refused for a limit: Limit
// names which one; RetryAfter is when asking again may succeed.
type Refused struct {
	Limit      string // LimitRate, LimitClientBytes or LimitMemory
	RetryAfter time.Duration
}

// The limits a Refused names.
const (
	LimitRate        = "rate"         // uploads per client
	LimitClientBytes = "client-bytes" // bytes one client holds
	LimitMemory      = "memory"       // the server's budget, with every session in use
)

func (r *Refused) Error() string {
	return fmt.Sprintf("uploads: refused (%s); try again in %s", r.Limit, r.RetryAfter.Round(time.Second))
}

// Config is what a Store is built from.
type Config[V any] struct {
	Limits Limits
	TTL    time.Duration // TTL when 0
	// Remote, when set, shares sessions with every server on it; nil keeps
	// them in this process only.
	Remote Remote
	// Load rebuilds a session's value from the files it was Put with, on a
	// server that holds it only in the Remote; cost is what it holds in
	// memory, in bytes.
	Load func(id string, files map[string][]byte) (v V, cost int64, err error)
	Now  func() time.Time // time.Now when nil
	Log  *slog.Logger     // evictions and sweeps; none when nil
}

// Store keeps uploaded sessions, each a V (what the server serves it
// from) under its id. It is safe for concurrent use.
type Store[V any] struct {
	lim    Limits
	ttl    time.Duration
	remote Remote
	load   func(string, map[string][]byte) (V, int64, error)
	now    func() time.Time
	log    *slog.Logger
	rate   *limit.Rate

	mu      sync.Mutex
	entries map[string]*entry[V]
	lru     *list.List // of *entry[V], most recently used first
	used    int64      // cost of the entries
	clients map[string]int64
	loading map[string]*flight[V]
}

// entry is one session in this server's memory.
type entry[V any] struct {
	id      string
	v       V
	cost    int64
	client  string // who uploaded it to this server; "" when loaded from the Remote
	size    int64  // the bytes they uploaded
	used    time.Time
	touched time.Time // the Remote's lease was last renewed (or found alive)
	el      *list.Element
}

// flight is a load from the Remote that concurrent requests share.
type flight[V any] struct {
	done chan struct{}
	v    V
	err  error
}

// touchEvery is how often a session in use renews its lease in the
// Remote: its TTL runs from its last use to within this.
const touchEvery = time.Minute

// New returns a Store over cfg.
func New[V any](cfg Config[V]) *Store[V] {
	lim := limit.Defaults(cfg.Limits, DefaultLimits())
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ttl := cfg.TTL
	if ttl <= 0 {
		ttl = TTL
	}
	return &Store[V]{lim: lim, ttl: ttl, remote: cfg.Remote, load: cfg.Load, now: now, log: log,
		rate: limit.NewRate(lim.Burst, lim.Every, now), entries: map[string]*entry[V]{}, lru: list.New(),
		clients: map[string]int64{}, loading: map[string]*flight[V]{}}
}

// TTL is how long a session lives after its last use.
func (s *Store[V]) TTL() time.Duration { return s.ttl }

// Shared reports whether sessions are shared with other servers (a
// Remote).
func (s *Store[V]) Shared() bool { return s.remote != nil }

// Admit counts one upload of client, size bytes (0 when not yet known),
// against the client's rate and the bytes it holds, before the upload is
// read.
func (s *Store[V]) Admit(client string, size int64) error {
	s.mu.Lock()
	err := s.checkClient(client, size)
	s.mu.Unlock()
	if err != nil {
		return err
	}
	if ok, wait := s.rate.Allow(client); !ok {
		return &Refused{Limit: LimitRate, RetryAfter: wait}
	}
	return nil
}

// checkClient refuses size more bytes to a client that holds too many.
// The caller holds mu.
func (s *Store[V]) checkClient(client string, size int64) error {
	if s.clients[client]+size <= s.lim.ClientBytes {
		return nil
	}
	// The client's session that will expire first frees its bytes then.
	wait := s.ttl
	for e := range s.each {
		if e.client == client {
			wait = min(wait, e.used.Add(s.ttl).Sub(s.now()))
		}
	}
	return &Refused{Limit: LimitClientBytes, RetryAfter: max(wait, time.Second)}
}

// each yields the entries, least recently used first. The caller holds mu.
func (s *Store[V]) each(yield func(*entry[V]) bool) {
	for el := s.lru.Back(); el != nil; {
		prev := el.Prev() // yield may remove el
		if !yield(el.Value.(*entry[V])) {
			return
		}
		el = prev
	}
}

// Put keeps v, the session id that client uploaded (size bytes, built
// into files), costing cost bytes of memory: in this server, and in the
// Remote if there is one. Sessions unused for Limits.Idle leave memory,
// least recently used first, to make room; when that is not enough it is
// refused (*Refused, LimitMemory).
func (s *Store[V]) Put(ctx context.Context, id, client string, size int64, files map[string][]byte, v V, cost int64) error {
	if !IsID(id) {
		return fmt.Errorf("uploads: %q is not a session id", id)
	}
	s.mu.Lock()
	if err := s.checkClient(client, size); err != nil {
		s.mu.Unlock()
		return err
	}
	if err := s.makeRoom(cost); err != nil {
		s.mu.Unlock()
		return err
	}
	now := s.now()
	s.insert(&entry[V]{id: id, v: v, cost: cost, client: client, size: size, used: now, touched: now})
	s.mu.Unlock()
	if s.remote == nil {
		return nil
	}
	blob, err := seal(id, files)
	if err == nil {
		err = s.remote.Put(ctx, nameOf(id), blob)
	}
	if err != nil {
		s.drop(id)
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return nil
}

// makeRoom pushes sessions out of memory, least recently used first,
// until cost more fits; only sessions idle for Limits.Idle may leave. The
// caller holds mu.
func (s *Store[V]) makeRoom(cost int64) error {
	if cost > s.lim.Memory {
		return ErrTooLarge
	}
	now := s.now()
	for s.used+cost > s.lim.Memory {
		el := s.lru.Back()
		if el == nil {
			break
		}
		e := el.Value.(*entry[V])
		if idle := now.Sub(e.used); idle < s.lim.Idle {
			return &Refused{Limit: LimitMemory, RetryAfter: max(s.lim.Idle-idle, time.Second)}
		}
		s.remove(e)
		s.log.Info("uploads: an idle session left memory to make room", "shared", s.remote != nil, "held", s.used)
	}
	return nil
}

// insert adds e. The caller holds mu.
func (s *Store[V]) insert(e *entry[V]) {
	if old := s.entries[e.id]; old != nil {
		s.remove(old)
	}
	e.el = s.lru.PushFront(e)
	s.entries[e.id] = e
	s.used += e.cost
	if e.client != "" {
		s.clients[e.client] += e.size
	}
}

// remove drops e. The caller holds mu.
func (s *Store[V]) remove(e *entry[V]) {
	if s.entries[e.id] != e {
		return
	}
	delete(s.entries, e.id)
	s.lru.Remove(e.el)
	s.used -= e.cost
	if e.client != "" {
		if s.clients[e.client] -= e.size; s.clients[e.client] <= 0 {
			delete(s.clients, e.client)
		}
	}
}

// drop removes the entry of id, if any.
func (s *Store[V]) drop(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[id]; e != nil {
		s.remove(e)
	}
}

// Get returns the session id and counts this as its use. With a Remote,
// the Remote says whether it is still alive (another server may have
// forgotten it), and a session this server does not hold is loaded from
// it. ErrNotFound when there is none.
func (s *Store[V]) Get(ctx context.Context, id string) (V, error) {
	var zero V
	if !IsID(id) {
		return zero, ErrNotFound
	}
	now := s.now()
	s.mu.Lock()
	e := s.entries[id]
	if s.remote == nil {
		defer s.mu.Unlock()
		if e == nil || now.Sub(e.used) >= s.ttl {
			if e != nil {
				s.remove(e)
			}
			return zero, ErrNotFound
		}
		s.use(e, now)
		return e.v, nil
	}
	touch := e == nil || now.Sub(e.touched) >= touchEvery
	s.mu.Unlock()
	alive, err := s.remote.Alive(ctx, nameOf(id), touch)
	if err != nil {
		return zero, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	if !alive {
		s.drop(id)
		return zero, ErrNotFound
	}
	if e != nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.entries[id] == e {
			s.use(e, now)
			if touch {
				e.touched = now
			}
			return e.v, nil
		}
	}
	return s.loadShared(ctx, id)
}

// use marks e used at now. The caller holds mu.
func (s *Store[V]) use(e *entry[V], now time.Time) {
	e.used = now
	s.lru.MoveToFront(e.el)
}

// Local returns the session id if this server holds it, without counting
// a use or asking the Remote: for the rest of a request that Get already
// admitted.
func (s *Store[V]) Local(id string) (V, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e := s.entries[id]; e != nil {
		return e.v, true
	}
	var zero V
	return zero, false
}

// loadShared loads the session id from the Remote, once for concurrent
// requests, and keeps it in memory.
func (s *Store[V]) loadShared(ctx context.Context, id string) (V, error) {
	s.mu.Lock()
	if e := s.entries[id]; e != nil { // loaded meanwhile
		s.use(e, s.now())
		s.mu.Unlock()
		return e.v, nil
	}
	f, ok := s.loading[id]
	if !ok {
		f = &flight[V]{done: make(chan struct{})}
		s.loading[id] = f
	}
	s.mu.Unlock()
	if ok {
		select {
		case <-f.done:
			return f.v, f.err
		case <-ctx.Done():
			var zero V
			return zero, ctx.Err()
		}
	}
	defer func() {
		s.mu.Lock()
		delete(s.loading, id)
		s.mu.Unlock()
		close(f.done)
	}()
	f.v, f.err = s.loadRemote(context.WithoutCancel(ctx), id)
	return f.v, f.err
}

// loadRemote reads, opens and rebuilds the session id from the Remote.
func (s *Store[V]) loadRemote(ctx context.Context, id string) (V, error) {
	var zero V
	blob, err := s.remote.Get(ctx, nameOf(id))
	if errors.Is(err, ErrNotFound) {
		return zero, err
	} else if err != nil {
		return zero, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	files, err := unseal(id, blob)
	if err != nil {
		return zero, err
	}
	v, cost, err := s.load(id, files)
	if err != nil {
		return zero, fmt.Errorf("uploads: rebuild a shared session: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.makeRoom(cost); err != nil {
		return zero, err
	}
	now := s.now()
	s.insert(&entry[V]{id: id, v: v, cost: cost, used: now, touched: now})
	return v, nil
}

// Forget forgets the session id, here and in the Remote: ErrNotFound when
// there was none.
func (s *Store[V]) Forget(ctx context.Context, id string) error {
	if !IsID(id) {
		return ErrNotFound
	}
	s.mu.Lock()
	e := s.entries[id]
	if e != nil {
		s.remove(e)
	}
	s.mu.Unlock()
	found := e != nil && (s.remote != nil || s.now().Sub(e.used) < s.ttl)
	if s.remote != nil {
		had, err := s.remote.Delete(ctx, nameOf(id))
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		found = found || had
	}
	if !found {
		return ErrNotFound
	}
	return nil
}

// Held is how many sessions this server holds in memory and what they
// cost.
func (s *Store[V]) Held() (n int, cost int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries), s.used
}

// Sweep drops the sessions whose TTL has run out since their last use
// here; with a Remote, those it no longer holds (forgotten on another
// server, or expired there), and it asks the Remote to drop what is
// stored for sessions gone.
func (s *Store[V]) Sweep(ctx context.Context) error {
	now := s.now()
	var check []string
	s.mu.Lock()
	for e := range s.each {
		if now.Sub(e.used) >= s.ttl {
			s.remove(e)
		} else if s.remote != nil {
			check = append(check, e.id)
		}
	}
	s.mu.Unlock()
	if s.remote == nil {
		return nil
	}
	for _, id := range check {
		alive, err := s.remote.Alive(ctx, nameOf(id), false)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		if !alive {
			s.drop(id)
		}
	}
	return s.remote.Sweep(ctx)
}

// sweepEvery is how often Run sweeps.
const sweepEvery = time.Minute

// Run sweeps every minute until ctx ends.
func (s *Store[V]) Run(ctx context.Context) {
	t := time.NewTicker(sweepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := s.Sweep(ctx); err != nil && ctx.Err() == nil {
				s.log.Warn("uploads: sweep", "err", err)
			}
		}
	}
}

// Remote is where sessions are shared between servers: sealed blobs under
// names, each alive while its lease is. Every method is safe for
// concurrent use.
type Remote interface {
	// Put stores blob under name, alive for the TTL from now.
	Put(ctx context.Context, name string, blob []byte) error
	// Get returns the blob of a live session; ErrNotFound when it is gone.
	Get(ctx context.Context, name string) ([]byte, error)
	// Alive reports whether the session under name is alive; with touch,
	// its TTL starts again from now.
	Alive(ctx context.Context, name string, touch bool) (bool, error)
	// Delete forgets the session under name, reporting whether it was
	// alive.
	Delete(ctx context.Context, name string) (bool, error)
	// Sweep drops the blobs of sessions no longer alive.
	Sweep(ctx context.Context) error
}
