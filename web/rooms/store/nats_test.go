package store

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"ctxsim/web/rooms/store/natsembed"
)

// startNATS runs an embedded NATS server with JetStream for the test.
func startNATS(t *testing.T) string {
	t.Helper()
	ns, err := natsembed.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	return ns.ClientURL()
}

func openNATS(t *testing.T, url string, lim Limits) *NATS {
	t.Helper()
	s, err := OpenNATS(t.Context(), NATSConfig{URL: url, Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Shutdown)
	return s
}

// Two servers on one NATS: a subscriber on B hears A's publishes and A's
// close; while B's connection is cut it misses broadcasts, and once it is
// back it has the latest state.
func TestNATSAcrossServersAndReconnect(t *testing.T) {
	url := startNATS(t)
	proxy, err := natsembed.NewProxy(url[len("nats://"):])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	lim := Limits{TTL: time.Minute, FullTTL: 30 * time.Second, Rooms: 100}
	a, b := openNATS(t, url, lim), openNATS(t, proxy.URL(), lim)
	ctx := t.Context()
	code, key, _ := a.Create(ctx)
	ch, err := b.Subscribe(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		a.Publish(ctx, code, key, "/step/"+string(rune('0'+i)))
		if v, _ := recv(t, ch); v.Seq != uint64(i) {
			t.Fatalf("B got %+v; want seq %d", v, i)
		}
	}

	proxy.Cut()
	for i := 4; i <= 6; i++ {
		if _, err := a.Publish(ctx, code, key, "/step/"+string(rune('0'+i))); err != nil {
			t.Fatalf("Publish on A while B is cut off: %v", err)
		}
	}
	if _, err := b.Current(ctx, code); err == nil {
		t.Errorf("B answered Current while cut off from NATS; want ErrUnavailable")
	}
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(10 * time.Second)
	for {
		select {
		case v, ok := <-ch:
			if !ok {
				t.Fatalf("B's subscription closed across the reconnect")
			}
			if v == (State{"/step/6", 6}) {
				goto back
			}
		case <-deadline:
			t.Fatalf("B's subscriber does not have the latest state 10 s after the connection came back")
		}
	}
back:
	if err := a.Close(context.Background(), code, key); err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := recv(t, ch); !ok {
			break
		}
	}
}

// NATS restarts without its stored data: the store makes the bucket again
// by itself, and rooms can be opened, published and followed within
// seconds, without a new store; a follower of a room that was lost hears
// it closed. Health says unavailable while NATS is down.
func TestNATSRestartWithoutStore(t *testing.T) {
	ns, err := natsembed.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := openNATS(t, ns.ClientURL(), Limits{TTL: time.Minute, FullTTL: 30 * time.Second, Rooms: 100})
	ctx := t.Context()
	code, key, err := s.Create(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := s.Subscribe(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Health(ctx); err != nil {
		t.Fatalf("Health with NATS up = %v", err)
	}
	port := ns.Addr().(*net.TCPAddr).Port
	ns.Shutdown()
	ns.WaitForShutdown()
	time.Sleep(1100 * time.Millisecond) // past the kept health check
	if err := s.Health(ctx); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Health with NATS down = %v; want ErrUnavailable", err)
	}
	ns2, err := natsembed.StartPort(t.TempDir(), port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns2.Shutdown)
	restarted := time.Now()
	deadline := restarted.Add(10 * time.Second)
	var code2, key2 string
	for {
		if code2, key2, err = s.Create(ctx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Create 10 s after NATS came back without its store: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("rooms open again %v after the NATS server restarted without its store", time.Since(restarted).Round(10*time.Millisecond))
	if _, ok := recv(t, ch); ok {
		t.Errorf("the follower of a room NATS lost got a state; want its channel closed")
	}
	if _, err := s.Current(ctx, code); !errors.Is(err, ErrNoRoom) {
		t.Errorf("Current of the lost room = %v; want ErrNoRoom", err)
	}
	if _, err := s.Publish(ctx, code, key, "/a"); !errors.Is(err, ErrNoRoom) {
		t.Errorf("Publish to the lost room = %v; want ErrNoRoom", err)
	}
	ch2, err := s.Subscribe(ctx, code2)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Publish(ctx, code2, key2, "/b"); err != nil || st.Seq != 1 {
		t.Fatalf("Publish to a new room = %+v, %v", st, err)
	}
	if v, _ := recv(t, ch2); v.URL != "/b" {
		t.Errorf("follower of the new room got %+v; want /b", v)
	}
	for {
		if err := s.Health(ctx); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Health 10 s after NATS came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A bucket deleted while the store runs (an operator's mistake, or a NATS
// that lost it without a reconnect) is made again at the first request
// that misses it: that request fails, the next ones work.
func TestNATSBucketDeleted(t *testing.T) {
	url := startNATS(t)
	s := openNATS(t, url, Limits{TTL: time.Minute, FullTTL: 30 * time.Second, Rooms: 100})
	ctx := t.Context()
	if err := s.js.DeleteKeyValue(ctx, s.bcfg.Bucket); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		_, _, err := s.Create(ctx)
		if err == nil {
			break
		}
		if !errors.Is(err, ErrUnavailable) || time.Now().After(deadline) {
			t.Fatalf("Create after the bucket was deleted: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
