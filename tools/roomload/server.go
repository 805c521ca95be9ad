//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"ctxsim/internal/tokens"
	"ctxsim/scenarios"
	"ctxsim/web"
	"ctxsim/web/rooms/store"
)

// serverStats is what a server process tells of itself.
type serverStats struct {
	Goroutines int `json:"goroutines"`
}

func serveChild(ctx context.Context, natsURL string, stdin io.Reader, stdout io.Writer) error {
	tok, err := tokens.New()
	if err != nil {
		return err
	}
	lessons, err := scenarios.Load(scenarios.Builtin(), "scenarios", tok)
	if err != nil {
		return err
	}
	cfg := web.Config{Lessons: lessons, Tokens: tok}
	if natsURL != "" {
		st, err := store.OpenNATS(ctx, store.NATSConfig{URL: natsURL, Limits: store.DefaultLimits()})
		if err != nil {
			return err
		}
		defer st.Shutdown()
		cfg.Rooms = st
	}
	srv, err := web.New(cfg)
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
			if err := enc.Encode(serverStats{Goroutines: runtime.NumGoroutine()}); err != nil {
				return err
			}
		}
	}
	start := time.Now() // stdin closed: shut down the way `ctxsim serve` does on SIGTERM
	stop()
	err = <-errc
	fmt.Fprintf(stdout, "shutdown %v %v\n", time.Since(start).Round(time.Millisecond), err)
	return err
}

// server is one ctxsim server under load: a child process, or one that
// runs already (cmd nil).
type server struct {
	once     sync.Once
	shutdown string
	base     string
	pid      int
	cmd      *exec.Cmd
	in       io.WriteCloser
	out      *bufio.Reader
}

func startServer(ctx context.Context, followers int, natsURL string) (*server, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, exe, "-serve", "-followers", fmt.Sprint(followers), "-rooms", natsURL)
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
	s := &server{cmd: cmd, in: in, out: bufio.NewReader(outPipe), pid: cmd.Process.Pid}
	line, err := s.out.ReadString('\n')
	if !strings.HasPrefix(line, "listening ") {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("server did not start: %q %v", line, err)
	}
	s.base = strings.TrimSpace(strings.TrimPrefix(line, "listening "))
	return s, nil
}

// stats asks a child server for its heap and goroutines.
func (s *server) stats() (serverStats, error) {
	var st serverStats
	if s.cmd == nil {
		return st, nil
	}
	if _, err := io.WriteString(s.in, "stats\n"); err != nil {
		return st, err
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal([]byte(line), &st)
}

// rssKiB reads the server's resident set from /proc; 0 if unknown.
func (s *server) rssKiB() uint64 {
	if s.pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var v uint64
		if _, err := fmt.Sscanf(line, "VmRSS: %d kB", &v); err == nil {
			return v
		}
	}
	return 0
}

// stop closes a child's stdin and returns its shutdown line.
func (s *server) stop() string {
	if s.cmd == nil {
		return "not ours"
	}
	s.once.Do(func() {
		s.in.Close()
		rest, _ := io.ReadAll(s.out)
		s.cmd.Wait()
		s.shutdown = strings.TrimSpace(string(rest))
	})
	return s.shutdown
}
