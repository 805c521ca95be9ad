package rooms

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"ctxsim/web/rooms/store"
)

// serve registers rs's routes (as web/routes.go does) on an echo of its
// own; every lesson state path is one the site serves.
func serve(rs *Service) *echo.Echo {
	e := echo.New()
	e.POST("/rooms", rs.Create)
	e.GET("/rooms/:code", rs.Current)
	e.PUT("/rooms/:code", rs.Publish)
	e.DELETE("/rooms/:code", rs.End)
	e.GET("/rooms/:code/events", rs.Events)
	e.GET("/join/:code", rs.Join)
	return e
}

func newService(st store.Store) *Service {
	return New(Config{Store: st, CheckState: func(p string) (string, error) { return p, nil }, Example: "/en/lesson/p/1"})
}

func TestRoomEventsHeartbeat(t *testing.T) {
	m := store.NewMemory(nil, store.DefaultLimits())
	rs := newService(m)
	rs.heartbeat = 50 * time.Millisecond
	ts := httptest.NewServer(serve(rs))
	t.Cleanup(func() { ts.CloseClientConnections(); ts.Close() })
	code, _, _ := m.Create(t.Context())
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, ts.URL+"/rooms/"+code+"/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		switch line := sc.Text(); {
		case line == "" || strings.HasPrefix(line, "retry: "):
			continue
		case strings.HasPrefix(line, ":"):
			return // a heartbeat comment
		default:
			t.Fatalf("first item of an empty room's stream = %q; want a heartbeat comment", line)
		}
	}
	t.Fatalf("no heartbeat within 2 s at a 50 ms interval (%v)", sc.Err())
}

// TestRoomJoinURLs: a room offers the address the presenter used and each
// network address of the machine on which the server answers, so a
// presenter who opened the page on localhost can show the class a join
// address it can reach.
func TestRoomJoinURLs(t *testing.T) {
	rs := newService(store.NewMemory(nil, store.DefaultLimits()))
	// The server listens on every interface: 127.0.0.2 (standing in for a
	// LAN address) answers; 192.0.2.1 (TEST-NET) does not.
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	rs.lan = func() []net.IP { return []net.IP{net.ParseIP("192.0.2.1"), net.ParseIP("127.0.0.2")} }

	req := httptest.NewRequest(http.MethodPost, "/rooms", strings.NewReader(`{"state":"/en/lesson/p/1"}`))
	req.Host = fmt.Sprintf("localhost:%d", port)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://"+req.Host)
	req = req.WithContext(context.WithValue(req.Context(), http.LocalAddrContextKey, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: port}))
	rec := httptest.NewRecorder()
	serve(rs).ServeHTTP(rec, req)
	if rec.Code != http.StatusCreated {
		t.Fatalf("POST /rooms = %d %s", rec.Code, rec.Body.String())
	}
	var room roomJSON
	if err := json.Unmarshal(rec.Body.Bytes(), &room); err != nil {
		t.Fatal(err)
	}
	want := []string{
		fmt.Sprintf("http://localhost:%d/join/%s", port, room.Code),
		fmt.Sprintf("http://127.0.0.2:%d/join/%s", port, room.Code),
	}
	if room.JoinURL != want[0] || strings.Join(room.JoinURLs, " ") != strings.Join(want, " ") {
		t.Errorf("join_url %q, join_urls %q; want %q and %q", room.JoinURL, room.JoinURLs, want[0], want)
	}
}
