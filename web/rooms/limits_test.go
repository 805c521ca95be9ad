package rooms

import (
	"fmt"
	"testing"
	"time"

	"ctxsim/web/rooms/store"
)

// The rooms tracked per client stay bounded: past the bound every code is
// checked against the store, and rooms that ended are forgotten, however
// many clients opened them.
func TestOwnersBounded(t *testing.T) {
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	m := store.NewMemory(func() time.Time { return now }, store.Limits{TTL: time.Hour, FullTTL: time.Minute, Rooms: 1000})
	rs := newService(m)
	rs.owners.bound = 10
	ctx := t.Context()
	open := func(client string) {
		t.Helper()
		if !rs.reserveRoom(ctx, client) {
			t.Fatalf("client %s refused", client)
		}
		code, _, err := m.Create(ctx)
		rs.owners.settle(client, code)
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := range 11 {
		open(fmt.Sprintf("192.0.2.%d", i))
	}
	now = now.Add(2 * time.Hour) // every room expires
	open("198.51.100.1")
	if n := len(rs.owners.of("")); n != 1 {
		t.Errorf("%d codes tracked after the check; want 1 (the live room)", n)
	}
	if len(rs.owners.rooms) != 1 || len(rs.owners.pending) != 0 {
		t.Errorf("clients tracked %v, pending %v; want one client, none pending", rs.owners.rooms, rs.owners.pending)
	}
}
