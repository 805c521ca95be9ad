package web

import (
	"net/http"
	"testing"

	"ctxsim/web/rooms/store/natsembed"
	"ctxsim/web/uploads"
)

// natsUploads opens the NATS store of uploaded sessions at url for the
// test.
func natsUploads(t *testing.T, url string) uploads.Remote {
	t.Helper()
	n, err := uploads.OpenNATS(t.Context(), uploads.NATSConfig{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Close)
	return n
}

// TestUploadAcrossServersOnNATS: two servers on one NATS (behind one load
// balancer) share uploaded sessions. Uploaded on A, a session serves on B
// in every view, and a room opened on A follows it on B; forgotten on B,
// it answers 404 on A, and so does the room. A server started after the
// upload (A restarted) serves it too.
func TestUploadAcrossServersOnNATS(t *testing.T) {
	t.Parallel() // waits on timers or on Chromium: runs beside the other such tests
	ns, err := natsembed.Start(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ns.Shutdown)
	url := ns.ClientURL()
	a := newServerWith(t, Config{Rooms: natsRooms(t, url), Uploads: natsUploads(t, url)})
	b := newServerWith(t, Config{Rooms: natsRooms(t, url), Uploads: natsUploads(t, url)})
	ha, hb := a.Handler(), b.Handler()

	loc := uploadedAt(t, ha, nil, fixture(t, "cc_compaction.jsonl"))
	id := stepOneRE.FindStringSubmatch(loc)[2]
	for _, p := range []string{loc, loc + "/present", "/ja/" + id + "/report", "/api/lessons/" + id + "/frames"} {
		if rec := call(hb, http.MethodGet, p, nil); rec.Code != http.StatusOK || rec.Header().Get("Cache-Control") != "private, no-store" {
			t.Errorf("GET %s on B = %d (Cache-Control %q); want 200, private", p, rec.Code, rec.Header().Get("Cache-Control"))
		}
	}
	room := openTestRoom(t, ha, loc)
	if rec := roomCall(t, hb, http.MethodGet, "/rooms/"+room.Code, ""); rec.Code != http.StatusOK || decodeRoom(t, rec).State != loc {
		t.Errorf("the room on B = %d; want the session's state", rec.Code)
	}

	if rec := call(hb, http.MethodDelete, loc, nil); rec.Code != http.StatusNoContent {
		t.Fatalf("DELETE on B = %d; want 204", rec.Code)
	}
	for name, h := range map[string]http.Handler{"A": ha, "B": hb} {
		for _, p := range []string{loc, "/en/" + id + "/report", "/api/lessons/" + id + "/frames", "/rooms/" + room.Code, "/join/" + room.Code} {
			if rec := call(h, http.MethodGet, p, nil); rec.Code != http.StatusNotFound {
				t.Errorf("GET %s on %s after DELETE on B = %d; want 404", p, name, rec.Code)
			}
		}
	}
	if _, held := a.uploads.Local(id); held {
		t.Error("A still holds the forgotten session in memory")
	}

	// A restart of the server that received a session keeps it.
	loc2 := uploadedAt(t, ha, nil, fixture(t, "cx_plain.jsonl"))
	restarted := newServerWith(t, Config{Rooms: natsRooms(t, url), Uploads: natsUploads(t, url)})
	if rec := call(restarted.Handler(), http.MethodGet, loc2, nil); rec.Code != http.StatusOK {
		t.Errorf("GET %s on a server started after the upload = %d; want 200", loc2, rec.Code)
	}
}
