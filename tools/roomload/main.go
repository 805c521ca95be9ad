//go:build linux || darwin

// Command roomload measures one ctxsim room with many followers, on
// loopback only:
//
//	go run ./tools/roomload -followers 500 [-steps 20] [-interval 200ms]
//
// It starts the real server (web.New, as `ctxsim serve` does) on
// 127.0.0.1:0 in a child process of its own binary, so that the server's
// memory and goroutine figures do not include the followers, which run in
// this process. It opens a room, connects the followers' event streams,
// waits until every follower has the room's first state, then publishes
// steps at the given interval. For each step it measures the time from the
// start of the presenter's PUT to the moment the last follower has the new
// state; it counts errors (failed connections, streams that end early,
// states missed or out of order) and reports the server's memory before,
// with the followers attached and after the steps. It exits by itself:
// everything is bounded by -timeout.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"ctxsim/scenarios"
	"ctxsim/tokens"
	"ctxsim/web"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "roomload:", err)
		os.Exit(1)
	}
}

type config struct {
	followers int
	steps     int
	interval  time.Duration
	timeout   time.Duration
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("roomload", flag.ContinueOnError)
	var cfg config
	fs.IntVar(&cfg.followers, "followers", 500, "audience members following the room (1–20000)")
	fs.IntVar(&cfg.steps, "steps", 20, "presenter steps to publish and time (1–200)")
	fs.DurationVar(&cfg.interval, "interval", 200*time.Millisecond, "time between two steps (10ms–10s)")
	fs.DurationVar(&cfg.timeout, "timeout", 3*time.Minute, "give up after this long")
	serve := fs.Bool("serve", false, "internal: be the server process, answering \"stats\" lines on stdin")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case cfg.followers < 1 || cfg.followers > 20000:
		return errors.New("-followers: want 1 to 20000")
	case cfg.steps < 1 || cfg.steps > 200:
		return errors.New("-steps: want 1 to 200")
	case cfg.interval < 10*time.Millisecond || cfg.interval > 10*time.Second:
		return errors.New("-interval: want 10ms to 10s")
	case cfg.timeout <= 0 || cfg.timeout > time.Hour:
		return errors.New("-timeout: want up to 1h")
	}
	if _, err := raiseOpenFiles(uint64(cfg.followers) + 256); err != nil {
		return err
	}
	if *serve {
		return serveChild(ctx, stdin, stdout)
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	return measure(ctx, cfg, stdout)
}

// raiseOpenFiles raises the soft open-files limit to need (each follower
// is one socket on either side of loopback).
func raiseOpenFiles(need uint64) (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("getrlimit: %w", err)
	}
	if lim.Cur >= need {
		return lim.Cur, nil
	}
	lim.Cur = min(need, lim.Max)
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, fmt.Errorf("setrlimit: %w", err)
	}
	if lim.Cur < need {
		return 0, fmt.Errorf("open-files limit %d, %d needed: raise the hard limit (ulimit -Hn)", lim.Cur, need)
	}
	return lim.Cur, nil
}

// ---- the server process

// serverStats is the server process's memory, after a GC.
type serverStats struct {
	HeapInuse  uint64 `json:"heap_inuse"`
	HeapAlloc  uint64 `json:"heap_alloc"`
	Sys        uint64 `json:"sys"`
	Goroutines int    `json:"goroutines"`
	RSSKiB     uint64 `json:"rss_kib"`
	PeakRSSKiB uint64 `json:"peak_rss_kib"`
}

func serveChild(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	lessons, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	if err != nil {
		return err
	}
	srv, err := web.New(web.Config{Lessons: lessons, Tokens: tok})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(sctx, ln) }()
	fmt.Fprintf(stdout, "listening http://%s\n", ln.Addr())
	enc := json.NewEncoder(stdout)
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		if sc.Text() == "stats" {
			if err := enc.Encode(readStats()); err != nil {
				return err
			}
		}
	}
	// stdin closed: shut down the way `ctxsim serve` does on SIGTERM.
	start := time.Now()
	stop()
	err = <-errc
	fmt.Fprintf(stdout, "shutdown %v %v\n", time.Since(start).Round(time.Millisecond), err)
	return err
}

func readStats() serverStats {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	st := serverStats{HeapInuse: m.HeapInuse, HeapAlloc: m.HeapAlloc, Sys: m.Sys, Goroutines: runtime.NumGoroutine()}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			var v uint64
			if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &v); err == nil {
				st.RSSKiB = v
			} else if _, err := fmt.Sscanf(line, "VmHWM: %d kB", &v); err == nil {
				st.PeakRSSKiB = v
			}
		}
	}
	return st
}

// ---- the measuring process

type server struct {
	stopOnce sync.Once
	shutdown string
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Reader
	base     string
	client   *http.Client
}

func startServer(ctx context.Context, followers int) (*server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-serve", "-followers", fmt.Sprint(followers))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReader(outPipe)}
	line, err := s.out.ReadString('\n')
	if !strings.HasPrefix(line, "listening ") {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("server did not start: %q %v", line, err)
	}
	s.base = strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	s.client = &http.Client{
		Transport: &http.Transport{
			MaxIdleConnsPerHost: followers + 16,
			DisableCompression:  true,
			Proxy:               nil, // loopback only, whatever the environment says
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	return s, nil
}

func (s *server) stats() (serverStats, error) {
	var st serverStats
	if _, err := io.WriteString(s.in, "stats\n"); err != nil {
		return st, err
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal([]byte(line), &st)
}

// stop closes the server's stdin and returns its shutdown line.
func (s *server) stop() string {
	s.stopOnce.Do(func() {
		s.in.Close()
		rest, _ := io.ReadAll(s.out)
		s.cmd.Wait()
		s.shutdown = strings.TrimSpace(string(rest))
	})
	return s.shutdown
}

func (s *server) do(ctx context.Context, method, path string, body any, out any) (int, http.Header, error) {
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = strings.NewReader(string(b))
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, r)
	if err != nil {
		return 0, nil, err
	}
	resp, err := s.client.Do(req)
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

// statePool lists distinct lesson states of the built-in lessons, in both
// languages, step by step: consecutive entries always differ.
func statePool(ctx context.Context, s *server, need int) ([]string, error) {
	var lessons []struct {
		ID string `json:"id"`
	}
	if _, _, err := s.do(ctx, http.MethodGet, "/api/lessons", nil, &lessons); err != nil {
		return nil, fmt.Errorf("GET /api/lessons: %w", err)
	}
	var pool []string
	for _, lang := range []string{"en", "ja"} {
		for _, l := range lessons {
			code, h, err := s.do(ctx, http.MethodGet, "/"+lang+"/"+l.ID, nil, nil)
			if err != nil || code != http.StatusFound {
				return nil, fmt.Errorf("GET /%s/%s = %d %v; want a redirect to step 1", lang, l.ID, code, err)
			}
			first := h.Get("Location")
			var frames struct {
				Frames []json.RawMessage `json:"frames"`
			}
			if _, _, err := s.do(ctx, http.MethodGet, "/api/lessons/"+l.ID+"/frames", nil, &frames); err != nil {
				return nil, fmt.Errorf("frames of %s: %w", l.ID, err)
			}
			for n := 1; n <= len(frames.Frames); n++ {
				pool = append(pool, strings.TrimSuffix(first, "/1")+"/"+fmt.Sprint(n))
			}
		}
	}
	if len(pool) < need {
		return nil, fmt.Errorf("only %d distinct states to publish, %d needed: use fewer -steps", len(pool), need)
	}
	return pool[:need], nil
}

// follower is one audience member's event stream.
type follower struct {
	arrivals []arrival // states received, in order
	err      error     // why the stream ended early, if it did
}

type arrival struct {
	index int           // index of the state in the published sequence
	at    time.Duration // since the start of the run
}

// tally counts, per published state, the followers that have it.
type tally struct {
	n    int
	got  []atomic.Int32
	all  []chan struct{} // closed when every follower has state i
	once []sync.Once
}

func newTally(states, followers int) *tally {
	t := &tally{n: followers, got: make([]atomic.Int32, states), all: make([]chan struct{}, states), once: make([]sync.Once, states)}
	for i := range t.all {
		t.all[i] = make(chan struct{})
	}
	return t
}

func (t *tally) add(i int) {
	if int(t.got[i].Add(1)) == t.n {
		t.once[i].Do(func() { close(t.all[i]) })
	}
}

func (f *follower) follow(ctx context.Context, s *server, code string, index map[string]int, start time.Time, t *tally) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/rooms/"+code+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := s.client.Do(req)
	if err != nil {
		f.err = fmt.Errorf("connect: %w", err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		f.err = fmt.Errorf("connect: %s", resp.Status)
		return
	}
	r := bufio.NewReader(resp.Body)
	var event string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			if ctx.Err() == nil {
				f.err = fmt.Errorf("stream ended: %w", err)
			}
			return
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: ") && event == "state":
			at := time.Since(start)
			i, ok := index[strings.TrimPrefix(line, "data: ")]
			if !ok {
				f.err = fmt.Errorf("unknown state %q", line)
				return
			}
			f.arrivals = append(f.arrivals, arrival{index: i, at: at})
			t.add(i)
		case line == "":
			event = ""
		}
	}
}

func measure(ctx context.Context, cfg config, stdout io.Writer) error {
	srv, err := startServer(ctx, cfg.followers)
	if err != nil {
		return err
	}
	defer srv.stop()
	idle, err := srv.stats()
	if err != nil {
		return err
	}
	seq, err := statePool(ctx, srv, cfg.steps+1)
	if err != nil {
		return err
	}
	index := map[string]int{}
	for i, st := range seq {
		index[st] = i
	}
	var room struct{ Code, Key string }
	if code, _, err := srv.do(ctx, http.MethodPost, "/rooms", map[string]string{"state": seq[0]}, &room); err != nil || code != http.StatusCreated {
		return fmt.Errorf("POST /rooms = %d %v", code, err)
	}

	start := time.Now()
	t := newTally(len(seq), cfg.followers)
	fctx, stopFollowers := context.WithCancel(ctx)
	defer stopFollowers()
	followers := make([]follower, cfg.followers)
	var wg sync.WaitGroup
	for i := range followers {
		wg.Go(func() { followers[i].follow(fctx, srv, room.Code, index, start, t) })
	}
	connectStart := time.Now()
	select {
	case <-t.all[0]:
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
		return ctx.Err()
	}
	connected := int(t.got[0].Load())
	connectTime := time.Since(connectStart)
	attached, err := srv.stats()
	if err != nil {
		return err
	}

	// The steps: each PUT starts on its own tick.
	type stepTime struct {
		put  time.Duration // PUT round trip
		sent time.Duration // since start, when the PUT began
	}
	times := make([]stepTime, len(seq))
	putErrors := 0
	next := time.Now()
	for i := 1; i < len(seq); i++ {
		time.Sleep(time.Until(next))
		next = next.Add(cfg.interval)
		times[i].sent = time.Since(start)
		code, _, err := srv.do(ctx, http.MethodPut, "/rooms/"+room.Code, map[string]string{"key": room.Key, "state": seq[i]}, nil)
		times[i].put = time.Since(start) - times[i].sent
		if err != nil || code != http.StatusOK {
			putErrors++
			continue
		}
		select {
		case <-t.all[i]:
		case <-time.After(5 * time.Second):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	time.Sleep(200 * time.Millisecond) // stragglers
	after, err := srv.stats()
	if err != nil {
		return err
	}
	stopFollowers()
	wg.Wait()
	shutdown := srv.stop()

	// Figures.
	var (
		lastByStep                            = make([]time.Duration, len(seq)) // per step: the last follower's delay
		deliveries                            []time.Duration
		connErrs, dropped, outOfOrder, missed int
		firstErr                              error
	)
	for _, f := range followers {
		if f.err != nil {
			if strings.HasPrefix(f.err.Error(), "connect") {
				connErrs++
			} else {
				dropped++
			}
			if firstErr == nil {
				firstErr = f.err
			}
		}
		if len(f.arrivals) == 0 {
			continue // counted above, or never connected in time
		}
		seen := make([]bool, len(seq))
		last := -1
		for _, a := range f.arrivals {
			if a.index <= last {
				outOfOrder++
			}
			last = max(last, a.index)
			seen[a.index] = true
			if a.index > 0 {
				d := a.at - times[a.index].sent
				deliveries = append(deliveries, d)
				lastByStep[a.index] = max(lastByStep[a.index], d)
			}
		}
		for i := 1; i < len(seq); i++ {
			if !seen[i] {
				missed++
			}
		}
	}
	steps := slices.Clone(lastByStep[1:])
	puts := make([]time.Duration, 0, len(seq)-1)
	for _, st := range times[1:] {
		puts = append(puts, st.put)
	}

	w := func(format string, a ...any) { fmt.Fprintf(stdout, format+"\n", a...) }
	w("roomload: 1 room, %d followers, %d steps %v apart, loopback, %d CPUs, %s", cfg.followers, cfg.steps, cfg.interval, runtime.NumCPU(), runtime.Version())
	w("connected:        %d of %d followers had the first state after %v", connected, cfg.followers, connectTime.Round(time.Millisecond))
	w("step → last follower:  p50 %v  p95 %v  max %v   (from the start of the PUT, over %d steps)", pct(steps, 50), pct(steps, 95), pct(steps, 100), len(steps))
	w("step → each follower:  p50 %v  p99 %v  max %v   (%d deliveries)", pct(deliveries, 50), pct(deliveries, 99), pct(deliveries, 100), len(deliveries))
	w("PUT round trip:        p50 %v  max %v   (includes checking the state against the lesson pages)", pct(puts, 50), pct(puts, 100))
	w("errors:           %d connection failures, %d streams ended early, %d PUT failures, %d states missed, %d out of order", connErrs, dropped, putErrors, missed, outOfOrder)
	if firstErr != nil {
		w("first error:      %v", firstErr)
	}
	w("server memory (after GC)   %12s %12s %12s", "idle", "followers", "after steps")
	w("  heap in use              %12s %12s %12s", mib(idle.HeapInuse), mib(attached.HeapInuse), mib(after.HeapInuse))
	w("  runtime Sys              %12s %12s %12s", mib(idle.Sys), mib(attached.Sys), mib(after.Sys))
	w("  RSS                      %12s %12s %12s", mib(idle.RSSKiB*1024), mib(attached.RSSKiB*1024), mib(after.RSSKiB*1024))
	w("  goroutines               %12d %12d %12d", idle.Goroutines, attached.Goroutines, after.Goroutines)
	if connected > 0 {
		w("  per follower:  heap %.1f KiB, RSS %.1f KiB, %.2f goroutines",
			float64(int64(attached.HeapInuse)-int64(idle.HeapInuse))/1024/float64(connected),
			float64(int64(attached.RSSKiB)-int64(idle.RSSKiB))/float64(connected),
			float64(attached.Goroutines-idle.Goroutines)/float64(connected))
	}
	w("  peak RSS %s; server: %s", mib(after.PeakRSSKiB*1024), shutdown)
	if connected < cfg.followers || connErrs+dropped+putErrors+missed+outOfOrder > 0 {
		return errors.New("errors during the run (see above)")
	}
	return nil
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

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
