package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestFramesAPIPaged: pages of the frames API, fetched one after another,
// hold the unpaged answer's frames in order; every answer names the run's
// frame count in X-Frame-Count, a page in frame_count too.
func TestFramesAPIPaged(t *testing.T) {
	s := newTestServer(t)
	const path = "/api/lessons/context-memory/frames?threshold=61"
	whole := get(t, s, path)
	if whole.Code != http.StatusOK {
		t.Fatalf("GET %s = %d", path, whole.Code)
	}
	var doc struct {
		Frames []json.RawMessage `json:"frames"`
	}
	if err := json.Unmarshal(whole.Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	n := len(doc.Frames)
	if got := whole.Header().Get("X-Frame-Count"); got != strconv.Itoa(n) {
		t.Errorf("X-Frame-Count = %q; want %d", got, n)
	}
	if bytes.Contains(whole.Body.Bytes(), []byte(`"frame_count"`)) {
		t.Errorf("the unpaged answer has frame_count; it must stay as it has always been")
	}
	var pages []json.RawMessage
	for from := 1; from <= n; from += 4 {
		q := path + "&from=" + strconv.Itoa(from) + "&to=" + strconv.Itoa(min(from+3, n))
		rec := get(t, s, q)
		var page struct {
			Frames     []json.RawMessage `json:"frames"`
			FrameCount int               `json:"frame_count"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &page); rec.Code != http.StatusOK || err != nil {
			t.Fatalf("GET %s = %d (%v)", q, rec.Code, err)
		}
		if page.FrameCount != n || rec.Header().Get("X-Frame-Count") != strconv.Itoa(n) {
			t.Errorf("GET %s: frame_count %d, X-Frame-Count %q; want %d", q, page.FrameCount, rec.Header().Get("X-Frame-Count"), n)
		}
		pages = append(pages, page.Frames...)
	}
	if len(pages) != n {
		t.Fatalf("the pages hold %d frames; the whole answer %d", len(pages), n)
	}
	for i := range pages {
		if !bytes.Equal(pages[i], doc.Frames[i]) {
			t.Errorf("frame %d of the pages differs from the whole answer's", i+1)
		}
	}
	if rec := get(t, s, "/api/lessons/context-memory/frames?from=3"); !strings.Contains(rec.Body.String(), `"frame_count":14`) {
		t.Errorf("?from=3 (to the end) = %d %.200s; want frames 3 to 14 with frame_count 14", rec.Code, rec.Body.String())
	}
}

// TestReplaySlots: replays of policies the server did not keep run in a
// bounded number of slots; a request that finds them busy past the wait
// gets a 503 with a Retry-After naming the wait, and once a slot frees up
// the same request is answered.
func TestReplaySlots(t *testing.T) {
	s := newServerWith(t, Config{Replays: 1, ReplayWait: 50 * time.Millisecond, ReplayCacheRuns: -1})
	const path = "/api/lessons/context-memory/frames?threshold=57"
	s.runs.slots <- struct{}{} // another replay holds the only slot
	rec := get(t, s, path)
	if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != strconv.Itoa(replayRetry) {
		t.Fatalf("GET %s with every slot busy = %d, Retry-After %q; want 503 and %d", path, rec.Code, rec.Header().Get("Retry-After"), replayRetry)
	}
	var e errorBody
	if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || !strings.Contains(e.Error, "busy") {
		t.Errorf("busy answer %q (%v); want a JSON error saying the replays are busy", rec.Body.String(), err)
	}
	if rec := get(t, s, "/api/lessons/context-memory/frames"); rec.Code != http.StatusOK {
		t.Errorf("a preset policy (kept from start-up) = %d while the slots are busy; want 200", rec.Code)
	}
	<-s.runs.slots
	if rec := get(t, s, path); rec.Code != http.StatusOK {
		t.Errorf("GET %s with a free slot = %d; want 200", path, rec.Code)
	}

	// Many typed policies at once wait their turn for the two slots.
	s2 := newServerWith(t, Config{Replays: 2, ReplayWait: time.Minute, ReplayCacheRuns: -1})
	var wg sync.WaitGroup
	codes := make([]int, 12)
	for i := range codes {
		wg.Go(func() {
			codes[i] = get(t, s2, "/api/lessons/context-memory/frames?threshold="+strconv.Itoa(30+i)).Code
		})
	}
	wg.Wait()
	for i, c := range codes {
		if c != http.StatusOK {
			t.Errorf("request %d = %d; want 200 (it waits its turn)", i, c)
		}
	}
}
