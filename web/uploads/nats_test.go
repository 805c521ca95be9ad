package uploads

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ctxsim/web/rooms/store/natsembed"
)

// natsServer starts an embedded NATS server with JetStream for the test;
// its store directory is returned to be searched.
func natsServer(t *testing.T) (url, dir string) {
	t.Helper()
	dir = t.TempDir()
	ns, err := natsembed.Start(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL(), dir
}

func openNATS(t *testing.T, url string, ttl time.Duration) *NATS {
	t.Helper()
	n, err := OpenNATS(t.Context(), NATSConfig{URL: url, TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// sharedStore is a Store on n whose values are the files' lesson.yaml, as
// a server rebuilds a session it did not receive.
func sharedStore(n *NATS, ttl time.Duration, loads *int) *Store[string] {
	return New(Config[string]{TTL: ttl, Remote: n, Load: func(_ string, files map[string][]byte) (string, int64, error) {
		*loads++
		return string(files["lesson.yaml"]), 100, nil
	}})
}

// TestStoreAcrossServers: two servers on one NATS. A session uploaded on A
// is served by B (rebuilt from the sealed files), and by a server started
// after A (a restart); forgotten on B, it is gone on A. Nothing of it is
// in the NATS server's files: the store is in its memory, and sealed.
func TestStoreAcrossServers(t *testing.T) {
	ctx := context.Background()
	url, dir := natsServer(t)
	var loadsA, loadsB, loadsC int
	a := sharedStore(openNATS(t, url, TTL), TTL, &loadsA)
	b := sharedStore(openNATS(t, url, TTL), TTL, &loadsB)
	id := newID(t)
	marker := "the uploaded session's own words 7f3c"
	if err := a.Put(ctx, id, "1.2.3.4", 50, map[string][]byte{"lesson.yaml": []byte(marker)}, marker, 100); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if v, err := b.Get(ctx, id); err != nil || v != marker {
			t.Fatalf("Get on B (%d) = %q, %v; want the session", i+1, v, err)
		}
	}
	if loadsB != 1 {
		t.Errorf("B loaded the session %d times; want once, then from its memory", loadsB)
	}
	c := sharedStore(openNATS(t, url, TTL), TTL, &loadsC) // a server started later
	if v, err := c.Get(ctx, id); err != nil || v != marker {
		t.Errorf("Get on a server started after the upload = %q, %v; want the session", v, err)
	}
	if err := b.Forget(ctx, id); err != nil {
		t.Fatalf("Forget on B = %v", err)
	}
	for name, s := range map[string]*Store[string]{"A": a, "B": b, "C": c} {
		if _, err := s.Get(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Get on %s after Forget on B = %v; want ErrNotFound", name, err)
		}
	}
	if err := a.Forget(ctx, id); !errors.Is(err, ErrNotFound) {
		t.Errorf("Forget again on A = %v; want ErrNotFound", err)
	}
	if loadsA != 0 {
		t.Errorf("A loaded its own session %d times; want 0", loadsA)
	}
	noFileHolds(t, dir, marker)
}

// noFileHolds fails if a file under dir holds s.
func noFileHolds(t *testing.T, dir, s string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("%s holds %q", p, s)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestStoreLeaseTTL: a session shared in NATS lives its TTL after its last
// use on any server: a use renews it (here the TTL is 2 s, and uses renew
// at once); unused, it is gone, and a sweep drops its sealed files.
func TestStoreLeaseTTL(t *testing.T) {
	ctx := context.Background()
	url, _ := natsServer(t)
	const ttl = 2 * time.Second
	var loads int
	n := openNATS(t, url, ttl)
	s := sharedStore(n, ttl, &loads)
	id := newID(t)
	if err := s.Put(ctx, id, "a", 1, map[string][]byte{"lesson.yaml": []byte("x")}, "x", 1); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		time.Sleep(ttl * 3 / 4)
		if alive, err := n.Alive(ctx, nameOf(id), true); err != nil || !alive {
			t.Fatalf("Alive with a touch every %s = %v, %v; want alive", ttl*3/4, alive, err)
		}
	}
	deadline := time.Now().Add(ttl + 3*time.Second)
	for {
		if _, err := s.Get(ctx, id); errors.Is(err, ErrNotFound) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session is still there %s after its last use", ttl+3*time.Second)
		}
		// Get renews the lease only once a minute: these do not keep it.
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := n.obj.GetInfo(ctx, nameOf(id)); err != nil {
		t.Fatalf("before the sweep the object is there: %v", err)
	}
	n.now = func() time.Time { return time.Now().Add(2 * time.Minute) } // past the grace for a Put under way
	if err := n.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := n.obj.GetInfo(ctx, nameOf(id)); err == nil {
		t.Error("after the sweep the sealed files of an expired session are still in NATS")
	}
}

// TestNATSRenewsObjects: a touch writes an object again once it is older
// than refresh, so objects (which expire refresh after a lease would)
// outlive the leases that uses renew; a sweep keeps live sessions.
func TestNATSRenewsObjects(t *testing.T) {
	ctx := context.Background()
	url, _ := natsServer(t)
	n := openNATS(t, url, TTL)
	name := nameOf(newID(t))
	if err := n.Put(ctx, name, []byte("sealed")); err != nil {
		t.Fatal(err)
	}
	before, err := n.obj.GetInfo(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	if alive, err := n.Alive(ctx, name, true); err != nil || !alive {
		t.Fatalf("Alive = %v, %v", alive, err)
	}
	if same, _ := n.obj.GetInfo(ctx, name); same.NUID != before.NUID {
		t.Errorf("a touch of a fresh object wrote it again")
	}
	n.now = func() time.Time { return time.Now().Add(refreshAfter + time.Minute) }
	if alive, err := n.Alive(ctx, name, true); err != nil || !alive {
		t.Fatalf("Alive = %v, %v", alive, err)
	}
	after, err := n.obj.GetInfo(ctx, name)
	if err != nil || after.NUID == before.NUID {
		t.Fatalf("a touch of an object older than %s did not write it again (%v)", refreshAfter, err)
	}
	if blob, err := n.Get(ctx, name); err != nil || string(blob) != "sealed" {
		t.Errorf("Get after the rewrite = %q, %v", blob, err)
	}
	if err := n.Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := n.Get(ctx, name); err != nil {
		t.Errorf("a sweep dropped a live session: %v", err)
	}
}
