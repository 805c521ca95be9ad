package store

import (
	"context"
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
