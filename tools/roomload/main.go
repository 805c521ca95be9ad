//go:build linux

// Command roomload measures ctxsim rooms under many followers, on loopback
// only:
//
//	go run ./tools/roomload -followers 5000 -instances 2 [-steps 60] [-interval 1s]
//	go run ./tools/roomload -followers 1000 -soak 10m [-drop 20s]
//	go run ./tools/roomload -urls http://127.0.0.1:8080,http://127.0.0.1:8081 -pids 123,456 -followers 2000
//
// By default it starts -instances ctxsim servers (web.New, as `ctxsim
// serve` does) on 127.0.0.1:0, each a child process of this binary, so the
// servers' memory figures do not include the followers, which run in this
// process. With more than one instance the servers share their rooms
// through NATS: -nats URL, or an embedded NATS server with JetStream in
// this process (-nats-embedded, the default then). With -urls it drives
// servers that already run instead, and reads their RSS from -pids.
//
// The presenter opens a room on the first server and publishes a step every
// -interval to it; the followers, spread evenly over the servers and over
// -sources loopback addresses (one client address each, as the servers'
// per-client limits see them), follow the room's event stream the way
// static/room.js does: on a drop they reconnect after a second with the
// last event id. For each step it measures the time from the start of the
// presenter's PUT to the moment the last follower has it; it counts errors
// (failed connections, streams that end early, states missed or out of
// order, failed PUTs) and reports each server's RSS.
//
// -soak runs for a duration instead of -steps, samples RSS every 5 s
// (first against last minute), and half-way through cuts the connections of
// a third of the followers, holds them off for -drop, and reports how soon
// after reconnecting each had the presenter's state. Everything is bounded
// by -timeout, and the tool exits by itself.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"ctxsim/internal/cli"
)

func main() { cli.Main("roomload", run) }

type config struct {
	followers    int
	instances    int
	steps        int
	interval     time.Duration
	timeout      time.Duration
	soak         time.Duration
	drop         time.Duration
	sources      int
	natsURL      string
	natsEmbedded bool
	urls         []string
	pids         []int
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.Flags("roomload", "", stderr)
	var cfg config
	var urls, pids string
	fs.IntVar(&cfg.followers, "followers", 500, "audience members following the room (1–20000)")
	fs.IntVar(&cfg.instances, "instances", 1, "ctxsim servers to start (1–8); more than one share rooms through NATS")
	fs.IntVar(&cfg.steps, "steps", 20, "presenter steps to publish and time (1–10000), without -soak")
	fs.DurationVar(&cfg.interval, "interval", 200*time.Millisecond, "time between two steps (10ms–10s)")
	fs.DurationVar(&cfg.timeout, "timeout", 3*time.Minute, "give up after this long")
	fs.DurationVar(&cfg.soak, "soak", 0, "run this long instead of -steps, with a network drop half-way")
	fs.DurationVar(&cfg.drop, "drop", 20*time.Second, "with -soak: how long a third of the followers stay cut off")
	fs.IntVar(&cfg.sources, "sources", 0, "loopback client addresses the followers come from (default: one per 250 followers)")
	fs.StringVar(&cfg.natsURL, "nats", "", "NATS server (nats://HOST:PORT, JetStream on) the started servers share rooms through")
	fs.BoolVar(&cfg.natsEmbedded, "nats-embedded", false, "run a NATS server with JetStream in this process (default with -instances > 1 and no -nats)")
	fs.StringVar(&urls, "urls", "", "drive these running servers (URL[,URL]) instead of starting any")
	fs.StringVar(&pids, "pids", "", "with -urls: the servers' process ids (PID[,PID]), for their RSS")
	serve := fs.Bool("serve", false, "internal: be a server process, answering \"stats\" lines on stdin")
	rooms := fs.String("rooms", "", "internal: the server's NATS URL")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := cfg.check(urls, pids); err != nil {
		return err
	}
	if _, err := raiseOpenFiles(uint64(cfg.followers) + 512); err != nil {
		return err
	}
	if *serve {
		return serveChild(ctx, *rooms, os.Stdin, stdout) // the parent's end of the pipe
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	return measure(ctx, cfg, stdout)
}

func (cfg *config) check(urls, pids string) error {
	for _, u := range strings.Split(urls, ",") {
		if u = strings.TrimSpace(u); u != "" {
			cfg.urls = append(cfg.urls, strings.TrimSuffix(u, "/"))
		}
	}
	for _, p := range strings.Split(pids, ",") {
		if p = strings.TrimSpace(p); p != "" {
			n, err := strconv.Atoi(p)
			if err != nil {
				return fmt.Errorf("-pids: %q is not a process id", p)
			}
			cfg.pids = append(cfg.pids, n)
		}
	}
	if cfg.sources == 0 {
		cfg.sources = (cfg.followers + 249) / 250
	}
	switch {
	case cfg.followers < 1 || cfg.followers > 20000:
		return errors.New("-followers: want 1 to 20000")
	case cfg.instances < 1 || cfg.instances > 8:
		return errors.New("-instances: want 1 to 8")
	case cfg.steps < 1 || cfg.steps > 10000:
		return errors.New("-steps: want 1 to 10000")
	case cfg.interval < 10*time.Millisecond || cfg.interval > 10*time.Second:
		return errors.New("-interval: want 10ms to 10s")
	case cfg.timeout <= 0 || cfg.timeout > 2*time.Hour:
		return errors.New("-timeout: want up to 2h")
	case cfg.soak < 0 || cfg.soak > time.Hour || cfg.soak > 0 && cfg.soak < 2*time.Minute:
		return errors.New("-soak: want 2m to 1h")
	case cfg.drop < time.Second || cfg.soak > 0 && cfg.drop > cfg.soak/4:
		return errors.New("-drop: want 1s to a quarter of -soak")
	case cfg.sources < 1 || cfg.sources > 250:
		return errors.New("-sources: want 1 to 250")
	case len(cfg.pids) > 0 && len(cfg.pids) != len(cfg.urls):
		return errors.New("-pids: want one per -urls server")
	}
	for _, u := range cfg.urls {
		if !isLoopbackURL(u) {
			return fmt.Errorf("-urls: %s is not on loopback; roomload only loads this machine", u)
		}
	}
	if cfg.instances > 1 && cfg.natsURL == "" && len(cfg.urls) == 0 {
		cfg.natsEmbedded = true
	}
	return nil
}

func isLoopbackURL(u string) bool {
	rest, ok := strings.CutPrefix(u, "http://")
	if !ok {
		return false
	}
	host, _, err := net.SplitHostPort(strings.SplitN(rest, "/", 2)[0])
	if err != nil {
		return false
	}
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
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

// ---- a server process
