package web

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"ctxsim/web/rooms"
	"ctxsim/web/rooms/store"
)

// FuzzRoomAPI sends the room API any method, path, body and Origin:
// whatever comes in, the answer is a 4xx or a 2xx/3xx, never a 5xx or a
// panic, and the rooms' JSON answers are JSON. In the path and body,
// {code} and {key} stand for a live room's code and key. The seed corpus
// is in testdata/fuzz/FuzzRoomAPI.
//
//	go test ./web -run '^$' -fuzz FuzzRoomAPI -fuzztime 60s
func FuzzRoomAPI(f *testing.F) {
	mem := store.NewMemory(nil, store.Limits{TTL: time.Hour, FullTTL: time.Minute, Rooms: 1 << 30})
	s := newServerWith(f, Config{Rooms: mem, RoomLimits: rooms.Limits{CreateBurst: 1 << 30, ClientStreams: 1 << 30, Streams: 1 << 30}})
	h := s.Handler()
	code, key, err := mem.Create(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint8(1), "", `{"state":"`+defaultState+`/1"}`, "")
	f.Add(uint8(2), "/{code}", `{"key":"{key}","state":"`+defaultState+`/2"}`, "http://example.com")
	f.Add(uint8(3), "/{code}", `{"key":"{key}"}`, "https://evil.example")
	f.Add(uint8(0), "/{code}/events", "", "")
	f.Add(uint8(8), "/{code}", "", "")
	f.Fuzz(func(t *testing.T, op uint8, path, body, origin string) {
		methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodHead, http.MethodPatch, http.MethodOptions}
		method := methods[int(op&7)%len(methods)]
		prefix := "/rooms"
		if op&8 != 0 {
			prefix = "/join"
		}
		path = strings.ReplaceAll(path, "{code}", code)
		body = strings.ReplaceAll(body, "{key}", key)
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond) // event streams end here
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, method, "http://example.com"+prefix+path, strings.NewReader(body))
		if err != nil {
			t.Skip("not a request a client can send")
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		req.RemoteAddr = "192.0.2.1:1234"
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s %q (Origin %q) = %d\n%s", method, prefix+path, body, origin, rec.Code, rec.Body.String())
		}
		ct := rec.Header().Get("Content-Type")
		if strings.HasPrefix(ct, "application/json") && method != http.MethodHead && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: invalid JSON answer %q", method, prefix+path, rec.Body.String())
		}
	})
}
