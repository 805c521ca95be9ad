package uploads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATS is a Remote on a NATS server with JetStream: each session's sealed
// files are an object of an object store, and its lease a key of a
// key-value bucket whose TTL is the session's. Both are kept in the NATS
// server's memory (JetStream memory storage), never in its files. Using a
// session rewrites its lease (at most once a minute, by the server using
// it); an object a little older than an hour is written again then, so
// objects (which expire an hour after the lease would) outlive their
// leases, and a session's bytes leave NATS at most an hour after its
// lease, even when no ctxsim server is left to sweep.
type NATS struct {
	nc      *nats.Conn
	obj     jetstream.ObjectStore
	kv      jetstream.KeyValue
	refresh time.Duration // an object older than this is written again at a touch
	timeout time.Duration // one small operation
	blobOp  time.Duration // writing or reading a blob
	now     func() time.Time
}

// NATSConfig configures OpenNATS.
type NATSConfig struct {
	URL    string        // nats://HOST:PORT
	Bucket string        // the object store; its leases are Bucket+"_leases" ("ctxsim_uploads" when empty)
	TTL    time.Duration // a session's life after its last use (TTL when 0)
	// MaxBytes bounds the object store in the NATS server's memory (1 GiB
	// when 0).
	MaxBytes int64
	Log      *slog.Logger // connection events; none when nil
}

// lease is a session's key-value entry.
type lease struct {
	Put int64 `json:"put"` // when its object was last written, Unix ms
}

// OpenNATS connects to the NATS server at cfg.URL and opens (or creates)
// the object store and the lease bucket. The NATS server must run
// JetStream (nats-server -js).
func OpenNATS(ctx context.Context, cfg NATSConfig) (*NATS, error) {
	if cfg.Bucket == "" {
		cfg.Bucket = "ctxsim_uploads"
	}
	if cfg.TTL <= 0 {
		cfg.TTL = TTL
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = 1 << 30
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	nc, err := nats.Connect(cfg.URL,
		nats.Name("ctxsim uploads"),
		nats.Timeout(5*time.Second),
		nats.MaxReconnects(-1),
		nats.ReconnectBufSize(-1), // while disconnected, fail at once (503) instead of queueing
		nats.PingInterval(5*time.Second),
		nats.MaxPingsOutstanding(3),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { log.Warn("uploads: NATS connection lost", "err", err) }),
		nats.ReconnectHandler(func(*nats.Conn) { log.Info("uploads: NATS connection back") }),
	)
	if err != nil {
		return nil, fmt.Errorf("uploads: connect to NATS at %s: %w", cfg.URL, err)
	}
	n, err := openBuckets(ctx, nc, cfg)
	if err != nil {
		nc.Close()
		return nil, err
	}
	return n, nil
}

// refreshAfter is how old an object may get before a touch writes it
// again; objects live TTL + refreshAfter.
const refreshAfter = time.Hour

func openBuckets(ctx context.Context, nc *nats.Conn, cfg NATSConfig) (*NATS, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("uploads: JetStream: %w", err)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	obj, err := js.CreateOrUpdateObjectStore(cctx, jetstream.ObjectStoreConfig{
		Bucket: cfg.Bucket, Description: "ctxsim uploaded sessions, sealed", TTL: cfg.TTL + refreshAfter,
		MaxBytes: cfg.MaxBytes, Storage: jetstream.MemoryStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("uploads: object store %s (is JetStream on? nats-server -js): %w", cfg.Bucket, err)
	}
	kv, err := js.CreateOrUpdateKeyValue(cctx, jetstream.KeyValueConfig{
		Bucket: cfg.Bucket + "_leases", Description: "ctxsim uploaded sessions' leases", History: 1, TTL: cfg.TTL,
		MaxValueSize: 256, Storage: jetstream.MemoryStorage,
	})
	if err != nil {
		return nil, fmt.Errorf("uploads: key-value bucket %s_leases: %w", cfg.Bucket, err)
	}
	return &NATS{nc: nc, obj: obj, kv: kv, refresh: refreshAfter, timeout: 3 * time.Second, blobOp: 30 * time.Second, now: time.Now}, nil
}

// Close closes the connection.
func (n *NATS) Close() { n.nc.Close() }

// Put writes the object, then its lease.
func (n *NATS) Put(ctx context.Context, name string, blob []byte) error {
	ctx, cancel := context.WithTimeout(ctx, n.blobOp)
	defer cancel()
	if _, err := n.obj.PutBytes(ctx, name, blob); err != nil {
		return fmt.Errorf("write the session: %w", err)
	}
	return n.putLease(ctx, name, 0)
}

// putLease writes name's lease, as a new one (rev 0) or over revision rev.
func (n *NATS) putLease(ctx context.Context, name string, rev uint64) error {
	val, _ := json.Marshal(lease{Put: n.now().UnixMilli()}) // a struct of an int always encodes
	var err error
	if rev == 0 {
		_, err = n.kv.Put(ctx, name, val)
	} else {
		_, err = n.kv.Update(ctx, name, val, rev)
	}
	if err != nil {
		return fmt.Errorf("write the session's lease: %w", err)
	}
	return nil
}

// Get reads the object of a session whose lease is alive.
func (n *NATS) Get(ctx context.Context, name string) ([]byte, error) {
	if alive, err := n.Alive(ctx, name, false); err != nil {
		return nil, err
	} else if !alive {
		return nil, ErrNotFound
	}
	blob, found, err := lookup(ctx, n.blobOp, jetstream.ErrObjectNotFound, func(ctx context.Context) ([]byte, error) { return n.obj.GetBytes(ctx, name) })
	switch {
	case err != nil:
		return nil, fmt.Errorf("read the session: %w", err)
	case !found:
		return nil, ErrNotFound
	}
	return blob, nil
}

// lookup calls get with ctx bounded by timeout; found is false, and err
// nil, when get answers notFound (a thing that is not there is no error
// of the store).
func lookup[T any](ctx context.Context, timeout time.Duration, notFound error, get func(context.Context) (T, error)) (v T, found bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	v, err = get(ctx)
	if errors.Is(err, notFound) {
		return v, false, nil
	}
	return v, err == nil, err
}

// Alive reads the lease; a touch writes it again (its TTL starts again),
// and writes the object again first when it is older than refresh.
func (n *NATS) Alive(ctx context.Context, name string, touch bool) (bool, error) {
	e, found, err := lookup(ctx, n.timeout, jetstream.ErrKeyNotFound, func(ctx context.Context) (jetstream.KeyValueEntry, error) { return n.kv.Get(ctx, name) })
	if err != nil {
		return false, fmt.Errorf("read the session's lease: %w", err)
	}
	if !found || !touch {
		return found, nil
	}
	var l lease
	if json.Unmarshal(e.Value(), &l) == nil && n.now().Sub(time.UnixMilli(l.Put)) > n.refresh {
		if err := n.rewrite(ctx, name); err != nil {
			return true, err
		}
	}
	cctx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	err = n.putLease(cctx, name, e.Revision())
	if errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists) {
		return true, nil // another server touched it meanwhile
	}
	return true, err
}

// rewrite writes an object again, so that it outlives the lease a touch
// renews.
func (n *NATS) rewrite(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, n.blobOp)
	defer cancel()
	blob, err := n.obj.GetBytes(ctx, name)
	if err != nil {
		return fmt.Errorf("read the session to renew it: %w", err)
	}
	if _, err := n.obj.PutBytes(ctx, name, blob); err != nil {
		return fmt.Errorf("renew the session: %w", err)
	}
	return nil
}

// Delete deletes the lease, then the object.
func (n *NATS) Delete(ctx context.Context, name string) (bool, error) {
	alive, err := n.Alive(ctx, name, false)
	if err != nil {
		return false, err
	}
	ctx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	if alive {
		if err := n.kv.Delete(ctx, name); err != nil {
			return false, fmt.Errorf("delete the session's lease: %w", err)
		}
	}
	if err := n.obj.Delete(ctx, name); err != nil && !errors.Is(err, jetstream.ErrObjectNotFound) {
		return alive, fmt.Errorf("delete the session: %w", err)
	}
	return alive, nil
}

// Sweep deletes the objects whose lease is gone (expired, or a Put that
// failed half way).
func (n *NATS) Sweep(ctx context.Context) error {
	infos, _, err := lookup(ctx, n.blobOp, jetstream.ErrNoObjectsFound, func(ctx context.Context) ([]*jetstream.ObjectInfo, error) { return n.obj.List(ctx) })
	if err != nil {
		return fmt.Errorf("list the sessions: %w", err)
	}
	for _, info := range infos {
		if info.Deleted {
			continue
		}
		alive, err := n.Alive(ctx, info.Name, false)
		if err != nil {
			return err
		}
		// An object written in the last minute may be a Put whose lease is
		// on its way.
		if !alive && n.now().Sub(info.ModTime) > time.Minute {
			if _, err := n.Delete(ctx, info.Name); err != nil {
				return err
			}
		}
	}
	return nil
}
