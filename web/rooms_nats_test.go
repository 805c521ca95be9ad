package web

import (
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"ctxsim/web/rooms/store"
	"ctxsim/web/rooms/store/natsembed"
)

// natsRooms opens a NATS room store at url for the test.
func natsRooms(t *testing.T, url string) *store.NATS {
	t.Helper()
	st, err := store.OpenNATS(t.Context(), store.NATSConfig{URL: url, Limits: store.DefaultLimits()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(st.Shutdown)
	return st
}

// Two ctxsim servers on one NATS: a follower on B follows a presenter on A
// through steps and a mode change; B loses its NATS connection while the
// presenter moves on, and once it is back the follower ends on the
// presenter's state. A restart of A keeps the room, for its key only.
func TestRoomsAcrossServersOnNATS(t *testing.T) {
	ns, err := natsembed.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	proxy, err := natsembed.NewProxy(strings.TrimPrefix(ns.ClientURL(), "nats://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close)
	a := newServerWith(t, Config{Rooms: natsRooms(t, ns.ClientURL())})
	b := newServerWith(t, Config{Rooms: natsRooms(t, proxy.URL())})
	tsA, tsB := startRoomHTTP(t, a.Handler()), startRoomHTTP(t, b.Handler())

	room := openTestRoom(t, a.Handler(), cmURL("en", cmPolicy, 1))
	st := openEvents(t, http.DefaultClient, tsB.URL+"/rooms/"+room.Code+"/events")
	if ev := st.next(t, 2*time.Second); ev.data != cmURL("en", cmPolicy, 1) || ev.id != "1" {
		t.Fatalf("follower on B: first event %+v; want step 1, id 1", ev)
	}
	off := strings.Replace(cmPolicy, "compaction-on", "compaction-off", 1)
	steps := []string{cmURL("en", cmPolicy, 2), cmURL("en", cmPolicy, 3), cmURL("en", off, 3), cmURL("en", off, 4)}
	for i, s := range steps {
		putRoom(t, tsA.URL, room.Code, room.Key, s)
		if ev := st.next(t, 2*time.Second); ev.data != s || ev.id != strconv.Itoa(i+2) {
			t.Fatalf("follower on B after the presenter's PUT of %s on A: %+v", s, ev)
		}
	}

	proxy.Cut()
	final := cmURL("en", off, 6)
	for _, s := range []string{cmURL("en", off, 5), final} {
		putRoom(t, tsA.URL, room.Code, room.Key, s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for { // B notices the cut within its operation timeout
		rec := roomCall(t, b.Handler(), http.MethodGet, "/rooms/"+room.Code, "")
		if rec.Code == http.StatusServiceUnavailable && rec.Header().Get("Retry-After") != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET on B without NATS = %d %s; want 503 with Retry-After", rec.Code, rec.Body.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := proxy.Restore(); err != nil {
		t.Fatal(err)
	}
	for {
		ev := st.next(t, 10*time.Second)
		if ev.data == final {
			if ev.id != "7" {
				t.Errorf("final state's id = %s; want 7", ev.id)
			}
			break
		}
	}

	// A restarts: a new server and a new store on the same NATS.
	a2 := newServerWith(t, Config{Rooms: natsRooms(t, ns.ClientURL())})
	if rec := roomCall(t, a2.Handler(), http.MethodPut, "/rooms/"+room.Code, roomBody(strings.Repeat("0", 32), cmURL("en", cmPolicy, 1))); rec.Code != http.StatusForbidden {
		t.Errorf("PUT with a stranger's key after A's restart = %d; want 403", rec.Code)
	}
	if rec := roomCall(t, a2.Handler(), http.MethodPut, "/rooms/"+room.Code, roomBody(room.Key, cmURL("en", cmPolicy, 2))); rec.Code != http.StatusOK {
		t.Fatalf("PUT with the room's key after A's restart = %d %s; want 200", rec.Code, rec.Body.String())
	}
	if ev := st.next(t, 2*time.Second); ev.data != cmURL("en", cmPolicy, 2) {
		t.Errorf("follower on B after the restarted A's PUT: %+v", ev)
	}
	req, _ := http.NewRequest(http.MethodDelete, tsA.URL+"/rooms/"+room.Code, strings.NewReader(roomBody(room.Key, "")))
	if resp, err := oneShot.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE on A = %v, %v; want 204", resp, err)
	}
	if ev := st.next(t, 2*time.Second); ev.name != "closed" {
		t.Errorf("follower on B after the room closed on A: %+v; want closed", ev)
	}
}

// healthOf reads /healthz: its status and what it says of rooms.
func healthOf(t *testing.T, h http.Handler) (int, string) {
	t.Helper()
	rec := roomCall(t, h, http.MethodGet, "/healthz", "")
	var body struct{ Lessons, Rooms string }
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Lessons != "ok" {
		t.Fatalf("/healthz = %d %q; want JSON with lessons ok", rec.Code, rec.Body.String())
	}
	return rec.Code, body.Rooms
}

// NATS restarts without its stored data: /healthz stays 200 and says rooms
// are unavailable while NATS is down; once NATS is back, rooms open again
// within seconds without restarting ctxsim, and a follower of a room NATS
// lost hears it closed.
func TestRoomsAfterNATSLostItsStore(t *testing.T) {
	ns, err := natsembed.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	port := ns.Addr().(*net.TCPAddr).Port
	s := newServerWith(t, Config{Rooms: natsRooms(t, ns.ClientURL())})
	h := s.Handler()
	ts := startRoomHTTP(t, h)
	waitHealth := func(want string, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for {
			code, rooms := healthOf(t, h)
			if code != http.StatusOK {
				t.Fatalf("/healthz = %d; want 200 (lessons are served)", code)
			}
			if rooms == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("/healthz says rooms %q after %v; want %q", rooms, within, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitHealth("ok", 5*time.Second)
	room := openTestRoom(t, h, cmURL("en", cmPolicy, 1))
	st := openEvents(t, http.DefaultClient, ts.URL+"/rooms/"+room.Code+"/events")
	if ev := st.next(t, 2*time.Second); ev.data != cmURL("en", cmPolicy, 1) {
		t.Fatalf("first event %+v", ev)
	}

	ns.Shutdown()
	ns.WaitForShutdown()
	waitHealth("unavailable", 5*time.Second)

	ns2, err := natsembed.StartPort(t.TempDir(), port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns2.Shutdown)
	back := time.Now()
	deadline := back.Add(10 * time.Second)
	for {
		rec := roomCall(t, h, http.MethodPost, "/rooms", roomBody("", cmURL("en", cmPolicy, 2)))
		if rec.Code == http.StatusCreated {
			break
		}
		if rec.Code != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("POST /rooms %v after NATS came back without its store = %d %s; want 201 within 10 s",
				time.Since(back).Round(time.Millisecond), rec.Code, rec.Body.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("rooms open again %v after NATS restarted without its store", time.Since(back).Round(10*time.Millisecond))
	if ev := st.next(t, 5*time.Second); ev.name != "closed" {
		t.Errorf("follower of the room NATS lost: %+v; want closed", ev)
	}
	if rec := roomCall(t, h, http.MethodGet, "/rooms/"+room.Code, ""); rec.Code != http.StatusNotFound {
		t.Errorf("GET the lost room = %d; want 404", rec.Code)
	}
	waitHealth("ok", 10*time.Second)
}
