package main

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
)

// traffic adds up the network events of one visit. Its observe method is
// the chromedp listener: it runs on the goroutine that reads the tab's
// messages, so it only updates counters under the lock and returns.
type traffic struct {
	mu sync.Mutex

	bytes    int64 // sum of encodedDataLength (headers and encoded body)
	finished int   // Network.loadingFinished, plus redirect hops
	failed   int   // Network.loadingFailed

	// open holds the requests that started and have not ended yet, except
	// long-lived streams (EventSource), which never end on a live page.
	open map[network.RequestID]bool
	// offWire holds the requests of URLs that are not fetched over the
	// network (data:, blob:, about:): they finish with no bytes on the
	// wire and are not counted.
	offWire map[network.RequestID]bool
	// urls maps requests to their URLs, and done lists the requests that
	// ended, in order: the detail that -v prints.
	urls map[network.RequestID]string
	done []request
	// last is the time of the last network event: the page is settled
	// when nothing is open and nothing happened for a while.
	last time.Time
}

// newTraffic returns an empty traffic record.
func newTraffic() *traffic {
	return &traffic{
		open:    map[network.RequestID]bool{},
		offWire: map[network.RequestID]bool{},
		urls:    map[network.RequestID]string{},
		last:    time.Now(),
	}
}

// request is one request that ended: its bytes on the wire, or the error
// it failed with.
type request struct {
	url   string
	bytes int64
	err   string
}

// trafficSnapshot is what a visit reports about its network traffic.
type trafficSnapshot struct {
	bytes    int64
	finished int
	failed   int
	requests []request
}

// observe is the listener for chromedp.Listen. It sees every event of the
// tab, as a pointer to a cdproto event type.
func (tr *traffic) observe(ev any) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		tr.requestStarted(e)
	case *network.EventLoadingFinished:
		tr.requestEnded(e.RequestID)
		if !tr.offWire[e.RequestID] {
			tr.bytes += int64(e.EncodedDataLength)
			tr.finished++
			tr.done = append(tr.done, request{url: tr.urls[e.RequestID], bytes: int64(e.EncodedDataLength)})
		}
	case *network.EventLoadingFailed:
		tr.requestEnded(e.RequestID)
		if !tr.offWire[e.RequestID] {
			tr.failed++
			tr.done = append(tr.done, request{url: tr.urls[e.RequestID], err: e.ErrorText})
		}
	case *network.EventResponseReceived, *network.EventDataReceived:
		tr.last = time.Now()
	}
}

// requestStarted records a new request, or a redirect hop of a request
// (same id, with the redirect response): the hop's bytes crossed the
// wire, so they count as a finished request of their own, as DevTools
// shows them. Callers hold the lock.
func (tr *traffic) requestStarted(e *network.EventRequestWillBeSent) {
	tr.last = time.Now()
	if r := e.RedirectResponse; r != nil && !tr.offWire[e.RequestID] {
		tr.bytes += int64(r.EncodedDataLength)
		tr.finished++
		tr.done = append(tr.done, request{url: r.URL, bytes: int64(r.EncodedDataLength)})
	}
	if e.Request == nil {
		return
	}
	tr.urls[e.RequestID] = e.Request.URL
	if !onWire(e.Request.URL) {
		tr.offWire[e.RequestID] = true
		return
	}
	if e.Type != network.ResourceTypeEventSource {
		tr.open[e.RequestID] = true
	}
}

// requestEnded forgets an open request. Callers hold the lock.
func (tr *traffic) requestEnded(id network.RequestID) {
	tr.last = time.Now()
	delete(tr.open, id)
}

// settled reports whether no request is open and no network event
// arrived for quiet.
func (tr *traffic) settled(quiet time.Duration) bool {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return len(tr.open) == 0 && time.Since(tr.last) >= quiet
}

// snapshot returns the totals so far.
func (tr *traffic) snapshot() trafficSnapshot {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return trafficSnapshot{bytes: tr.bytes, finished: tr.finished, failed: tr.failed, requests: slices.Clone(tr.done)}
}

// onWire reports whether a URL is fetched over the network.
func onWire(url string) bool {
	return strings.HasPrefix(url, "http://") || strings.HasPrefix(url, "https://")
}
