//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"ctxsim/web/rooms/store/natsembed"
)

// load is one run: the servers, the room, and what every follower got.
type load struct {
	cfg       config
	servers   []*server
	presenter *http.Client
	code, key string
	pool      []string // states to publish, in turn
	start     time.Time
	steps     int // publishes after the room's first state

	// per seq (1: the room's first state)
	sent []atomic.Int64 // ns since start when its PUT began
	last []atomic.Int64 // ns since start when the last follower got it
	got  []atomic.Int32
	cur  atomic.Uint64 // the newest seq whose PUT succeeded

	followers []*follower
	rss       [][]rssSample // per server
}

type rssSample struct {
	at  time.Duration // since start
	kib uint64
}

// follower is one audience member, following like static/room.js does.
type follower struct {
	l      *load
	base   string
	client *http.Client

	mu        sync.Mutex
	cancel    context.CancelFunc // the current connection
	holdUntil time.Time          // set by a drop: reconnect no sooner

	lastSeq                                 uint64
	connectFails, streamEnds, missed, unord int
	firstErr                                error
	deliveries                              []time.Duration
	dropped                                 bool
	resumed                                 time.Duration // reconnect → the presenter's state, after the drop
	resumeOK                                bool
}

func measure(ctx context.Context, cfg config, stdout io.Writer) error {
	l := &load{cfg: cfg, presenter: &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true}}}
	natsURL, stopNATS, err := startNATS(cfg)
	if err != nil {
		return err
	}
	defer stopNATS()
	if err := l.startServers(ctx, natsURL); err != nil {
		return err
	}
	defer l.stopServers()
	idle := l.sampleRSS()
	if l.pool, err = statePool(ctx, l.presenter, l.servers[0].base); err != nil {
		return err
	}
	l.steps = cfg.steps
	if cfg.soak > 0 {
		l.steps = int(cfg.soak / cfg.interval)
	}
	l.sent = make([]atomic.Int64, l.steps+2)
	l.last = make([]atomic.Int64, l.steps+2)
	l.got = make([]atomic.Int32, l.steps+2)
	if err := l.openRoom(ctx); err != nil {
		return err
	}

	fctx, stopFollowers := context.WithCancel(ctx)
	defer stopFollowers()
	var wg sync.WaitGroup
	l.makeFollowers()
	connectStart := time.Now()
	for _, f := range l.followers {
		wg.Go(func() { f.follow(fctx) })
	}
	connected, connectTime := l.waitFor(ctx, 1, len(l.followers), 60*time.Second), time.Since(connectStart)
	attached := l.sampleRSS()
	attachedStats := l.stats()

	rctx, stopRSS := context.WithCancel(ctx)
	rssDone := make(chan struct{})
	go func() { defer close(rssDone); l.recordRSS(rctx, 5*time.Second) }()
	puts, putErrs, dropAt := l.present(ctx)
	time.Sleep(time.Second) // stragglers
	stopRSS()
	<-rssDone
	final := l.cur.Load()
	after := l.sampleRSS()
	afterStats := l.stats()
	stopFollowers()
	wg.Wait()
	shutdowns := l.stopServers()

	return l.report(stdout, reportInput{
		connected: connected, connectTime: connectTime, puts: puts, putErrs: putErrs, final: final, dropAt: dropAt,
		idle: idle, attached: attached, after: after, attachedStats: attachedStats, afterStats: afterStats,
		shutdowns: shutdowns, nats: natsURL,
	})
}

// startNATS returns the NATS URL the started servers share, running an
// embedded server when asked to.
func startNATS(cfg config) (string, func(), error) {
	if !cfg.natsEmbedded {
		return cfg.natsURL, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "roomload-nats-")
	if err != nil {
		return "", nil, err
	}
	ns, err := natsembed.Start(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return ns.ClientURL(), func() { ns.Shutdown(); ns.WaitForShutdown(); os.RemoveAll(dir) }, nil
}

func (l *load) startServers(ctx context.Context, natsURL string) error {
	for i, u := range l.cfg.urls {
		s := &server{base: u}
		if i < len(l.cfg.pids) {
			s.pid = l.cfg.pids[i]
		}
		l.servers = append(l.servers, s)
	}
	if len(l.servers) > 0 {
		return nil
	}
	per := (l.cfg.followers + l.cfg.instances - 1) / l.cfg.instances
	for range l.cfg.instances {
		s, err := startServer(ctx, per, natsURL)
		if err != nil {
			l.stopServers()
			return err
		}
		l.servers = append(l.servers, s)
	}
	return nil
}

func (l *load) stopServers() []string {
	var out []string
	for _, s := range l.servers {
		out = append(out, s.stop())
	}
	return out
}

func (l *load) stats() []serverStats {
	out := make([]serverStats, len(l.servers))
	for i, s := range l.servers {
		out[i], _ = s.stats()
	}
	return out
}

func (l *load) sampleRSS() []uint64 {
	out := make([]uint64, len(l.servers))
	for i, s := range l.servers {
		out[i] = s.rssKiB()
	}
	return out
}

func (l *load) recordRSS(ctx context.Context, every time.Duration) {
	l.rss = make([][]rssSample, len(l.servers))
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		at := time.Since(l.start)
		for i, v := range l.sampleRSS() {
			l.rss[i] = append(l.rss[i], rssSample{at, v})
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// do makes one request of the presenter's and decodes a 2xx JSON answer.
func do(ctx context.Context, c *http.Client, method, url string, body, out any) (int, http.Header, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && out != nil && resp.StatusCode < 300 {
		err = json.Unmarshal(b, out)
	}
	return resp.StatusCode, resp.Header, err
}

// statePool lists lesson states of the built-in lessons, in both
// languages, step by step: consecutive entries always differ. Followers
// tell states apart by their event ids, so the pool is published in turn.
func statePool(ctx context.Context, c *http.Client, base string) ([]string, error) {
	var lessons []struct {
		ID string `json:"id"`
	}
	if _, _, err := do(ctx, c, http.MethodGet, base+"/api/lessons", nil, &lessons); err != nil {
		return nil, fmt.Errorf("GET /api/lessons: %w", err)
	}
	noRedirect := &http.Client{Transport: c.Transport, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	var pool []string
	for _, lang := range []string{"en", "ja"} {
		for _, les := range lessons {
			code, h, err := do(ctx, noRedirect, http.MethodGet, base+"/"+lang+"/"+les.ID, nil, nil)
			if err != nil || code != http.StatusFound {
				return nil, fmt.Errorf("GET /%s/%s = %d %v; want a redirect to step 1", lang, les.ID, code, err)
			}
			var frames struct {
				Frames []json.RawMessage `json:"frames"`
			}
			if _, _, err := do(ctx, c, http.MethodGet, base+"/api/lessons/"+les.ID+"/frames", nil, &frames); err != nil {
				return nil, fmt.Errorf("frames of %s: %w", les.ID, err)
			}
			for n := 1; n <= len(frames.Frames); n++ {
				pool = append(pool, strings.TrimSuffix(h.Get("Location"), "/1")+"/"+strconv.Itoa(n))
			}
		}
	}
	if len(pool) < 2 {
		return nil, errors.New("fewer than 2 lesson states to publish")
	}
	return pool, nil
}

func (l *load) openRoom(ctx context.Context) error {
	var room struct {
		Code, Key string
		Seq       uint64
	}
	l.start = time.Now()
	code, _, err := do(ctx, l.presenter, http.MethodPost, l.servers[0].base+"/rooms", map[string]string{"state": l.pool[0]}, &room)
	if err != nil || code != http.StatusCreated || room.Seq != 1 {
		return fmt.Errorf("POST /rooms = %d seq %d %v", code, room.Seq, err)
	}
	l.code, l.key = room.Code, room.Key
	l.cur.Store(1)
	return nil
}

// makeFollowers spreads the followers over the servers and the loopback
// client addresses 127.0.1.1, 127.0.1.2, …
func (l *load) makeFollowers() {
	clients := make([]*http.Client, l.cfg.sources)
	for i := range clients {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 1, byte(i+1))}, Timeout: 10 * time.Second}
		clients[i] = &http.Client{Transport: &http.Transport{Proxy: nil, DialContext: d.DialContext, DisableCompression: true,
			MaxIdleConnsPerHost: -1}}
	}
	for i := range l.cfg.followers {
		l.followers = append(l.followers, &follower{l: l, base: l.servers[i%len(l.servers)].base, client: clients[i%len(clients)]})
	}
}

// waitFor waits until want followers have seq, or for at most d; it
// returns how many have it.
func (l *load) waitFor(ctx context.Context, seq uint64, want int, d time.Duration) int {
	deadline := time.Now().Add(d)
	for int(l.got[seq].Load()) < want && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	return int(l.got[seq].Load())
}

// present publishes the steps, one per interval; with -soak it cuts a
// third of the followers off half-way. It returns the PUT round trips,
// the failed PUTs and when the drop began.
func (l *load) present(ctx context.Context) ([]time.Duration, int, time.Duration) {
	var puts []time.Duration
	fails := 0
	var dropAt time.Duration
	next := time.Now()
	for i := 1; i <= l.steps && ctx.Err() == nil; i++ {
		time.Sleep(time.Until(next))
		next = next.Add(l.cfg.interval)
		if l.cfg.soak > 0 && i == l.steps/2 {
			dropAt = time.Since(l.start)
			l.drop()
		}
		seq := uint64(i + 1)
		l.sent[seq].Store(int64(time.Since(l.start)))
		var out struct{ Seq uint64 }
		t0 := time.Now()
		code, _, err := do(ctx, l.presenter, http.MethodPut, l.servers[0].base+"/rooms/"+l.code,
			map[string]string{"key": l.key, "state": l.pool[i%len(l.pool)]}, &out)
		puts = append(puts, time.Since(t0))
		if err != nil || code != http.StatusOK || out.Seq != seq {
			fails++
			continue
		}
		l.cur.Store(seq)
		if l.cfg.soak == 0 {
			l.waitFor(ctx, seq, len(l.followers), 5*time.Second)
		}
	}
	return puts, fails, dropAt
}

// drop cuts every third follower's connection and holds it off.
func (l *load) drop() {
	until := time.Now().Add(l.cfg.drop)
	for i, f := range l.followers {
		if i%3 != 0 {
			continue
		}
		f.mu.Lock()
		f.holdUntil, f.dropped = until, true
		cancel := f.cancel
		f.mu.Unlock()
		if cancel != nil {
			cancel()
		}
	}
}

// follow keeps the follower's event stream open until ctx ends.
func (f *follower) follow(ctx context.Context) {
	resuming := false
	var reconnectAt time.Time
	var target uint64
	for ctx.Err() == nil {
		cctx, cancel := context.WithCancel(ctx)
		f.mu.Lock()
		f.cancel = cancel
		f.mu.Unlock()
		err := f.stream(cctx, &resuming, reconnectAt, target)
		cancel()
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		hold := f.holdUntil
		f.holdUntil = time.Time{}
		f.mu.Unlock()
		if !hold.IsZero() { // a drop of ours: wait, then come back and time it
			time.Sleep(time.Until(hold))
			resuming, reconnectAt, target = true, time.Now(), f.l.cur.Load()
			continue
		}
		if f.firstErr == nil {
			f.firstErr = err
		}
		if strings.HasPrefix(err.Error(), "connect") {
			f.connectFails++
		} else {
			f.streamEnds++
		}
		time.Sleep(time.Second) // retry: 1000
	}
}

// stream reads one connection's events. While resuming it records how
// long after reconnectAt the follower had seq target.
func (f *follower) stream(ctx context.Context, resuming *bool, reconnectAt time.Time, target uint64) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.base+"/rooms/"+f.l.code+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	if f.lastSeq > 0 {
		req.Header.Set("Last-Event-ID", strconv.FormatUint(f.lastSeq, 10))
	}
	resp, err := f.client.Do(req)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("connect: %s", resp.Status)
	}
	if *resuming && f.lastSeq >= target {
		f.resumed, f.resumeOK, *resuming = time.Since(reconnectAt), true, false
	}
	first := true
	r := bufio.NewReader(resp.Body)
	var id uint64
	var event string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return fmt.Errorf("stream ended: %w", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "id: "):
			id, _ = strconv.ParseUint(line[4:], 10, 64)
		case strings.HasPrefix(line, "event: "):
			event = line[7:]
		case strings.HasPrefix(line, "data: ") && event == "state":
			f.arrive(id, first && f.lastSeq > 0)
			first = false
			if *resuming && f.lastSeq >= target {
				f.resumed, f.resumeOK, *resuming = time.Since(reconnectAt), true, false
			}
		case line == "":
			event = ""
		}
	}
}

// arrive records state seq. The first state after a reconnect skips what
// was published meanwhile by design, and its delay is not a step's.
func (f *follower) arrive(seq uint64, afterReconnect bool) {
	at := time.Since(f.l.start)
	switch {
	case seq <= f.lastSeq || seq >= uint64(len(f.l.got)):
		f.unord++
		return
	case seq > f.lastSeq+1 && !afterReconnect:
		f.missed += int(seq - f.lastSeq - 1)
	}
	f.lastSeq = seq
	f.l.got[seq].Add(1)
	if afterReconnect || seq == 1 {
		return
	}
	d := at - time.Duration(f.l.sent[seq].Load())
	f.deliveries = append(f.deliveries, d)
	for {
		old := f.l.last[seq].Load()
		if int64(at) <= old || f.l.last[seq].CompareAndSwap(old, int64(at)) {
			return
		}
	}
}

type reportInput struct {
	connected                 int
	connectTime               time.Duration
	puts                      []time.Duration
	putErrs                   int
	final                     uint64
	dropAt                    time.Duration
	idle, attached, after     []uint64
	attachedStats, afterStats []serverStats
	shutdowns                 []string
	nats                      string
}

func (l *load) report(stdout io.Writer, in reportInput) error {
	w := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	var steps, deliveries, resumes []time.Duration
	var connFails, ends, missed, unord, held, dropped, slowResume int
	var firstErr error
	for seq := 2; seq < len(l.last); seq++ {
		if l.sent[seq].Load() > 0 && l.last[seq].Load() > 0 {
			steps = append(steps, time.Duration(l.last[seq].Load()-l.sent[seq].Load()))
		}
	}
	for _, f := range l.followers {
		deliveries = append(deliveries, f.deliveries...)
		connFails, ends, missed, unord = connFails+f.connectFails, ends+f.streamEnds, missed+f.missed, unord+f.unord
		if firstErr == nil && f.firstErr != nil {
			firstErr = f.firstErr
		}
		if f.lastSeq == in.final {
			held++
		}
		if f.dropped {
			dropped++
			if !f.resumeOK {
				slowResume++
				continue
			}
			resumes = append(resumes, f.resumed)
			if f.resumed > time.Second {
				slowResume++
			}
		}
	}
	mode := fmt.Sprintf("%d steps %v apart", l.steps, l.cfg.interval)
	if l.cfg.soak > 0 {
		mode = fmt.Sprintf("soak %v, a step every %v (%d steps)", l.cfg.soak, l.cfg.interval, l.steps)
	}
	storeName := "memory"
	if in.nats != "" {
		storeName = "NATS " + in.nats
		if l.cfg.natsEmbedded {
			storeName += " (embedded)"
		}
	}
	w("roomload: 1 room, %d followers over %d servers (rooms: %s) from %d client addresses, %s, loopback, %d CPUs, %s",
		len(l.followers), len(l.servers), storeName, l.cfg.sources, mode, runtime.NumCPU(), runtime.Version())
	w("connected:        %d of %d followers had the first state after %v", in.connected, len(l.followers), in.connectTime.Round(time.Millisecond))
	w("held at the end:  %d of %d followers had the last state (seq %d)", held, len(l.followers), in.final)
	w("step → last follower:  p50 %v  p95 %v  max %v   (from the start of the PUT, over %d steps)", pct(steps, 50), pct(steps, 95), pct(steps, 100), len(steps))
	w("step → each follower:  p50 %v  p99 %v  max %v   (%d deliveries)", pct(deliveries, 50), pct(deliveries, 99), pct(deliveries, 100), len(deliveries))
	w("PUT round trip:        p50 %v  max %v", pct(in.puts, 50), pct(in.puts, 100))
	errs := connFails + ends + in.putErrs + missed + unord
	w("errors:           %d (%d connection failures, %d streams ended early, %d PUT failures, %d states missed, %d out of order)",
		errs, connFails, ends, in.putErrs, missed, unord)
	if firstErr != nil {
		w("first error:      %v", firstErr)
	}
	if l.cfg.soak > 0 {
		w("drop:             %d followers cut off at %v for %v; on the presenter's state after reconnecting: p50 %v  max %v; %d not within 1 s",
			dropped, in.dropAt.Round(time.Second), l.cfg.drop, pct(resumes, 50), pct(resumes, 100), slowResume)
	}
	for i, s := range l.servers {
		line := fmt.Sprintf("server %d %s: RSS idle %s, followers attached %s, end %s", i+1, s.base, mib(in.idle[i]), mib(in.attached[i]), mib(in.after[i]))
		if s.cmd != nil {
			line += fmt.Sprintf("; goroutines %d → %d; %s", in.attachedStats[i].Goroutines, in.afterStats[i].Goroutines, in.shutdowns[i])
		}
		w("%s", line)
		if l.cfg.soak > 0 && i < len(l.rss) {
			first, last := minuteAvg(l.rss[i], true), minuteAvg(l.rss[i], false)
			w("  RSS first minute %s, last minute %s (%+.1f%%)", mib(uint64(first)), mib(uint64(last)), 100*(last-first)/first)
		}
	}
	if in.connected < len(l.followers) || errs > 0 || held < len(l.followers) || slowResume > 0 {
		return errors.New("errors during the run (see above)")
	}
	return nil
}

// minuteAvg averages the RSS samples of the first (or last) minute, as
// many samples each.
func minuteAvg(s []rssSample, first bool) float64 {
	if len(s) == 0 {
		return 0
	}
	in := func(at time.Duration) bool { return at < s[0].at+time.Minute } // [start, start+1m)
	if !first {
		in = func(at time.Duration) bool { return at > s[len(s)-1].at-time.Minute } // (end-1m, end]
	}
	var sum, n float64
	for _, x := range s {
		if in(x.at) {
			sum += float64(x.kib)
			n++
		}
	}
	return sum / n
}

// pct returns the p-th percentile (nearest rank) of ds.
func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1
	return s[max(0, min(i, len(s)-1))].Round(10 * time.Microsecond)
}

func mib(kib uint64) string { return fmt.Sprintf("%.1f MiB", float64(kib)/1024) }
