package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATS is a Store shared by every server on one NATS server: each room is
// a key of a JetStream key-value bucket (whose TTL is the room's expiry),
// and each publish is broadcast on a subject per room, which every server
// with followers of that room subscribes to. Rooms survive a restart of
// any ctxsim server. After a lost NATS connection the client reconnects
// forever, with backoff, re-subscribes, and re-reads the current state of
// every room it has followers for, so none of them ends on a stale state.
//
// A room with a follower on any server is kept alive by that server, which
// rewrites its key (a touch) every FullTTL/4.
type NATS struct {
	nc      *nats.Conn
	js      jetstream.JetStream
	bcfg    jetstream.KeyValueConfig // the bucket, as it is made again if NATS loses it
	bucket  atomic.Pointer[kvBucket] // the rooms' key-value bucket
	limits  Limits
	log     *slog.Logger
	rand    io.Reader
	subject string        // prefix of the per-room subjects
	timeout time.Duration // one store operation
	touch   time.Duration

	mu        sync.Mutex
	watches   map[string]*watch // rooms with followers on this server
	nextSweep time.Time
	repairing bool      // a repair of the bucket runs
	repaired  time.Time // when the last one started
	health    health    // the last health check
	shut      bool
	stop      chan struct{}
	wg        sync.WaitGroup
}

// watch is this server's end of one room's broadcast.
type watch struct {
	sub  *nats.Subscription
	subs map[*natsSub]struct{}
	last State // the newest state seen
}

type natsSub struct {
	ch   chan State
	sent uint64 // Seq of the last state offered
	stop func() bool
}

// NATSConfig configures OpenNATS.
type NATSConfig struct {
	URL    string // nats://HOST:PORT
	Bucket string // key-value bucket; "ctxsim_rooms" when empty
	Limits Limits
	Log    *slog.Logger // connection events; discarded when nil
}

// record is a room as the bucket holds it.
type record struct {
	Key string `json:"key"` // hex of the key's hash
	URL string `json:"url,omitempty"`
	Seq uint64 `json:"seq"`
}

// kvBucket holds the bucket handle, replaced whole when the bucket is
// made again.
type kvBucket struct{ jetstream.KeyValue }

// health is the outcome of a health check and when it was made.
type health struct {
	err error
	at  time.Time
}

// message is a room's broadcast.
type message struct {
	URL    string `json:"url,omitempty"`
	Seq    uint64 `json:"seq,omitempty"`
	Closed bool   `json:"closed,omitempty"`
}

// OpenNATS connects to the NATS server at cfg.URL and opens (or creates)
// the rooms bucket. The NATS server must run JetStream (nats-server -js).
func OpenNATS(ctx context.Context, cfg NATSConfig) (*NATS, error) {
	if cfg.Bucket == "" {
		cfg.Bucket = "ctxsim_rooms"
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	s := &NATS{limits: cfg.Limits, log: cfg.Log, rand: rand.Reader, subject: "ctxsim.rooms." + cfg.Bucket + ".",
		timeout: 3 * time.Second, touch: max(min(cfg.Limits.TTL, cfg.Limits.FullTTL)/4, 10*time.Millisecond),
		watches: map[string]*watch{}, stop: make(chan struct{})}
	s.bcfg = jetstream.KeyValueConfig{
		Bucket: cfg.Bucket, Description: "ctxsim rooms", History: 1, TTL: cfg.Limits.TTL,
		MaxValueSize: 4096, Storage: jetstream.FileStorage,
	}
	nc, err := nats.Connect(cfg.URL,
		nats.Name("ctxsim"),
		nats.Timeout(5*time.Second),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(reconnectDelay),
		nats.ReconnectBufSize(-1), // while disconnected, fail at once (503) instead of queueing
		nats.PingInterval(5*time.Second),
		nats.MaxPingsOutstanding(3),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { s.log.Warn("rooms: NATS connection lost", "err", err) }),
		nats.ReconnectHandler(func(*nats.Conn) {
			s.log.Info("rooms: NATS connection back")
			s.wg.Go(s.resync)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("rooms: connect to NATS at %s: %w", cfg.URL, err)
	}
	s.nc = nc
	if s.js, err = jetstream.New(nc); err != nil {
		nc.Close()
		return nil, fmt.Errorf("rooms: JetStream: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := s.openBucket(cctx); err != nil {
		nc.Close()
		return nil, err
	}
	s.wg.Go(s.toucher)
	return s, nil
}

// openBucket opens the rooms' bucket, making it if NATS has none.
func (s *NATS) openBucket(ctx context.Context) error {
	kv, err := s.js.CreateOrUpdateKeyValue(ctx, s.bcfg)
	if err != nil {
		return fmt.Errorf("rooms: key-value bucket %s (is JetStream on? nats-server -js): %w", s.bcfg.Bucket, err)
	}
	s.bucket.Store(&kvBucket{kv})
	return nil
}

// kv is the rooms' bucket.
func (s *NATS) kv() jetstream.KeyValue { return s.bucket.Load().KeyValue }

// bucketGone reports whether err says NATS answers but holds no rooms'
// bucket: it restarted without its stored data (or JetStream is off).
func bucketGone(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrStreamNotFound) ||
		errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// repairEvery spaces the attempts to make the bucket again.
const repairEvery = time.Second

// repair makes the rooms' bucket again, in the background, when NATS lost
// it: one attempt at a time, at most one every repairEvery. The rooms it
// held are gone; new ones can be opened again at once.
func (s *NATS) repair() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut || s.repairing || time.Since(s.repaired) < repairEvery {
		return
	}
	s.repairing, s.repaired = true, time.Now()
	s.wg.Go(func() {
		defer func() { s.mu.Lock(); s.repairing = false; s.mu.Unlock() }()
		if err := s.ensureBucket(); err != nil {
			s.log.Warn("rooms: the key-value bucket is gone and cannot be made again yet", "err", err)
		}
	})
}

// ensureBucket makes the rooms' bucket again if NATS lost it.
func (s *NATS) ensureBucket() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*s.timeout)
	defer cancel()
	if _, err := s.kv().Status(ctx); !bucketGone(err) {
		return nil
	}
	if err := s.openBucket(ctx); err != nil {
		return err
	}
	s.log.Warn("rooms: NATS had lost the rooms' key-value bucket (restarted without its store?); made it again: the rooms it held are gone", "bucket", s.bcfg.Bucket)
	return nil
}

// Health reports whether rooms can be used now: the connection is up and
// the bucket answers (made again if NATS lost it). A check is kept for a
// second, so probes cost NATS at most one request a second.
func (s *NATS) Health(ctx context.Context) error {
	s.mu.Lock()
	if h := s.health; !h.at.IsZero() && time.Since(h.at) < time.Second {
		s.mu.Unlock()
		return h.err
	}
	s.mu.Unlock()
	err := s.check(ctx)
	s.mu.Lock()
	s.health = health{err: err, at: time.Now()}
	s.mu.Unlock()
	return err
}

func (s *NATS) check(ctx context.Context) error {
	if !s.nc.IsConnected() {
		return unavailable(nats.ErrDisconnected)
	}
	ctx, cancel := s.op(ctx)
	defer cancel()
	if _, err := s.kv().Status(ctx); err != nil {
		return s.failed(err)
	}
	return nil
}

// reconnectDelay backs off from 250 ms to 2 s, with up to 50% jitter, so a
// fleet of servers does not reconnect in step.
func reconnectDelay(attempts int) time.Duration {
	d := min(time.Duration(attempts)*250*time.Millisecond, 2*time.Second)
	return d + mrand.N(d/2+1)
}

// Shutdown closes the connection and every subscriber's channel.
func (s *NATS) Shutdown() {
	s.mu.Lock()
	if s.shut {
		s.mu.Unlock()
		return
	}
	s.shut = true
	close(s.stop)
	for code := range s.watches {
		s.closeWatch(code)
	}
	s.mu.Unlock()
	s.nc.Close()
	s.wg.Wait()
}

func (s *NATS) op(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// unavailable wraps a NATS failure; not-found and conflicts are handled
// before.
func unavailable(err error) error { return fmt.Errorf("%w: %w", ErrUnavailable, err) }

// failed is unavailable(err), and starts a repair when err says the
// bucket is gone: the request fails, the next ones find the bucket again.
func (s *NATS) failed(err error) error {
	if bucketGone(err) {
		s.repair()
	}
	return unavailable(err)
}

// get reads a live room: missing, deleted or past its TTL is ErrNoRoom.
func (s *NATS) get(ctx context.Context, code string) (jetstream.KeyValueEntry, record, error) {
	var rec record
	e, err := s.kv().Get(ctx, code)
	if errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
		return nil, rec, ErrNoRoom
	} else if err != nil {
		return nil, rec, s.failed(err)
	}
	if e.Operation() != jetstream.KeyValuePut || time.Since(e.Created()) >= s.limits.TTL {
		return nil, rec, ErrNoRoom
	}
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return nil, rec, fmt.Errorf("rooms: room %s: %w", code, err)
	}
	return e, rec, nil
}

func (rec record) state() State { return State{URL: rec.URL, Seq: rec.Seq} }

func (rec record) keyMatches(key string) bool {
	var h keyHash
	b, err := hex.DecodeString(rec.Key)
	if err != nil || len(b) != len(h) {
		return false
	}
	copy(h[:], b)
	return h.matches(key)
}

// Create opens a room under a random code that no live room holds.
func (s *NATS) Create(ctx context.Context) (string, string, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	if err := s.makeSpace(ctx); err != nil {
		return "", "", err
	}
	key, err := newKey(s.rand)
	if err != nil {
		return "", "", err
	}
	h := hashKey(key)
	val, _ := json.Marshal(record{Key: hex.EncodeToString(h[:])})
	for range codeTries {
		code, err := newCode(s.rand)
		if err != nil {
			return "", "", err
		}
		_, err = s.kv().Create(ctx, code, val)
		if errors.Is(err, jetstream.ErrKeyExists) {
			continue
		} else if err != nil {
			return "", "", s.failed(err)
		}
		return code, key, nil
	}
	return "", "", errNoFreeCode
}

// makeSpace refuses a new room when the bucket holds Limits.Rooms rooms,
// after dropping rooms idle for FullTTL (a room with a follower anywhere is
// touched more often than that). It lists the bucket only when the
// bucket's message count says it may be full, and at most once every
// FullTTL/4.
func (s *NATS) makeSpace(ctx context.Context) error {
	st, err := s.kv().Status(ctx)
	if err != nil {
		return s.failed(err)
	}
	if st.Values() < uint64(s.limits.Rooms) {
		return nil
	}
	s.mu.Lock()
	now := time.Now()
	sweep := !now.Before(s.nextSweep)
	if sweep {
		s.nextSweep = now.Add(s.touch)
	}
	s.mu.Unlock()
	if !sweep {
		return ErrRoomsFull
	}
	live, err := s.sweep(ctx)
	if err != nil {
		return err
	}
	if live >= s.limits.Rooms {
		return ErrRoomsFull
	}
	return nil
}

// sweep deletes rooms idle for FullTTL and returns how many live rooms are
// left.
func (s *NATS) sweep(ctx context.Context) (int, error) {
	keys, err := s.kv().Keys(ctx)
	if errors.Is(err, jetstream.ErrNoKeysFound) {
		return 0, nil
	} else if err != nil {
		return 0, s.failed(err)
	}
	live := 0
	for _, k := range keys {
		e, err := s.kv().Get(ctx, k)
		if err != nil {
			continue // gone meanwhile
		}
		if time.Since(e.Created()) < s.limits.FullTTL {
			live++
			continue
		}
		_ = s.kv().Delete(ctx, k, jetstream.LastRevision(e.Revision()))
	}
	_ = s.kv().PurgeDeletes(ctx, jetstream.DeleteMarkersOlderThan(-1))
	return live, nil
}

// Publish sets the room's state (compare-and-set on the key's revision, so
// Seq counts every publish once), then broadcasts it.
func (s *NATS) Publish(ctx context.Context, code, key, url string) (State, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	for range 8 {
		e, rec, err := s.get(ctx, code)
		if err != nil {
			return State{}, err
		}
		if !rec.keyMatches(key) {
			return State{}, ErrRoomKey
		}
		rec.URL, rec.Seq = url, rec.Seq+1
		val, _ := json.Marshal(rec)
		if _, err := s.kv().Update(ctx, code, val, e.Revision()); errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // another publish or a touch came first
		} else if err != nil {
			return State{}, s.failed(err)
		}
		st := rec.state()
		s.broadcast(code, message{URL: st.URL, Seq: st.Seq})
		s.deliver(code, st)
		return st, nil
	}
	return State{}, unavailable(errors.New("publish: too many concurrent updates"))
}

// broadcast sends m on the room's subject. A lost broadcast is recovered:
// every server re-reads its rooms after a reconnect.
func (s *NATS) broadcast(code string, m message) {
	b, _ := json.Marshal(m)
	if err := s.nc.Publish(s.subject+code, b); err != nil {
		s.log.Warn("rooms: broadcast", "room", code, "err", err)
	}
}

// Current returns the room's state.
func (s *NATS) Current(ctx context.Context, code string) (State, error) {
	ctx, cancel := s.op(ctx)
	defer cancel()
	_, rec, err := s.get(ctx, code)
	return rec.state(), err
}

// Subscribe follows the room: this server subscribes to the room's subject
// (once for all its followers of that room), then reads its current state.
func (s *NATS) Subscribe(ctx context.Context, code string) (<-chan State, error) {
	sub, err := s.attach(code)
	if err != nil {
		return nil, err
	}
	octx, cancel := s.op(ctx)
	defer cancel()
	_, rec, err := s.get(octx, code)
	if err != nil {
		s.detach(code, sub)
		return nil, err
	}
	s.deliver(code, rec.state())
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.watches[code]; w != nil && w.last.Seq > 0 {
		s.offer(sub, w.last)
	}
	sub.stop = context.AfterFunc(ctx, func() { s.detach(code, sub) })
	return sub.ch, nil
}

// attach registers a follower of code, subscribing to its subject first.
func (s *NATS) attach(code string) (*natsSub, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shut {
		return nil, unavailable(nats.ErrConnectionClosed)
	}
	w := s.watches[code]
	if w == nil {
		ns, err := s.nc.Subscribe(s.subject+code, func(m *nats.Msg) { s.onMessage(code, m.Data) })
		if err != nil {
			return nil, unavailable(err)
		}
		w = &watch{sub: ns, subs: map[*natsSub]struct{}{}}
		s.watches[code] = w
	}
	sub := &natsSub{ch: make(chan State, 1), stop: func() bool { return false }}
	w.subs[sub] = struct{}{}
	return sub, nil
}

// detach removes a follower; the last one of a room ends the subscription
// and touches the room, whose TTL counts from then.
func (s *NATS) detach(code string, sub *natsSub) {
	s.mu.Lock()
	w := s.watches[code]
	if w == nil {
		s.mu.Unlock()
		return
	}
	if _, ok := w.subs[sub]; !ok {
		s.mu.Unlock()
		return
	}
	delete(w.subs, sub)
	close(sub.ch)
	last := len(w.subs) == 0
	if last {
		_ = w.sub.Unsubscribe()
		delete(s.watches, code)
	}
	shut := s.shut
	s.mu.Unlock()
	if last && !shut {
		ctx, cancel := s.op(context.Background())
		defer cancel()
		s.touchRoom(ctx, code, 0)
	}
}

func (s *NATS) onMessage(code string, data []byte) {
	var m message
	if json.Unmarshal(data, &m) != nil {
		return
	}
	if m.Closed {
		s.mu.Lock()
		s.closeWatch(code)
		s.mu.Unlock()
		return
	}
	s.deliver(code, State{URL: m.URL, Seq: m.Seq})
}

// deliver hands st to the room's followers on this server if it is newer
// than what they have.
func (s *NATS) deliver(code string, st State) {
	s.mu.Lock()
	defer s.mu.Unlock()
	w := s.watches[code]
	if w == nil || st.Seq <= w.last.Seq {
		return
	}
	w.last = st
	for sub := range w.subs {
		s.offer(sub, st)
	}
}

// offer gives st to sub unless it had it. The caller holds s.mu.
func (s *NATS) offer(sub *natsSub, st State) {
	if st.Seq > sub.sent {
		sub.sent = st.Seq
		offer(sub.ch, st)
	}
}

// closeWatch ends every follower of code on this server. The caller holds
// s.mu.
func (s *NATS) closeWatch(code string) {
	w := s.watches[code]
	if w == nil {
		return
	}
	delete(s.watches, code)
	_ = w.sub.Unsubscribe()
	for sub := range w.subs {
		sub.stop()
		close(sub.ch)
	}
}

// Close ends the room: the key goes, and every server's followers hear it.
func (s *NATS) Close(ctx context.Context, code, key string) error {
	ctx, cancel := s.op(ctx)
	defer cancel()
	for range 8 {
		e, rec, err := s.get(ctx, code)
		if err != nil {
			return err
		}
		if !rec.keyMatches(key) {
			return ErrRoomKey
		}
		if err := s.kv().Delete(ctx, code, jetstream.LastRevision(e.Revision())); errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			continue // a publish or a touch came first
		} else if err != nil {
			return s.failed(err)
		}
		s.broadcast(code, message{Closed: true})
		s.mu.Lock()
		s.closeWatch(code)
		s.mu.Unlock()
		return nil
	}
	return unavailable(errors.New("close: too many concurrent updates"))
}

// resync runs after a reconnect: the NATS server may have restarted
// without its store, so the bucket is made again if it is gone; and
// broadcasts sent meanwhile were lost, so every room with followers here
// is read again.
func (s *NATS) resync() {
	if err := s.ensureBucket(); err != nil {
		s.log.Warn("rooms: the key-value bucket is gone and cannot be made again yet", "err", err)
	}
	for _, code := range s.watched() {
		ctx, cancel := s.op(context.Background())
		_, rec, err := s.get(ctx, code)
		cancel()
		switch {
		case errors.Is(err, ErrNoRoom):
			s.mu.Lock()
			s.closeWatch(code)
			s.mu.Unlock()
		case err != nil:
			s.log.Warn("rooms: re-read after reconnect", "room", code, "err", err)
		default:
			s.deliver(code, rec.state())
		}
	}
}

// watched is the codes of the rooms with followers here.
func (s *NATS) watched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	codes := make([]string, 0, len(s.watches))
	for c := range s.watches {
		codes = append(codes, c)
	}
	return codes
}

// toucher keeps rooms with followers here from expiring.
func (s *NATS) toucher() {
	t := time.NewTicker(s.touch)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		for _, code := range s.watched() {
			ctx, cancel := s.op(context.Background())
			s.touchRoom(ctx, code, s.touch)
			cancel()
		}
	}
}

// touchRoom rewrites the room's key unchanged if it was written at least
// olderThan ago, which restarts its TTL.
func (s *NATS) touchRoom(ctx context.Context, code string, olderThan time.Duration) {
	e, err := s.kv().Get(ctx, code)
	if err != nil || e.Operation() != jetstream.KeyValuePut || time.Since(e.Created()) < olderThan {
		return
	}
	_, _ = s.kv().Update(ctx, code, e.Value(), e.Revision())
}
