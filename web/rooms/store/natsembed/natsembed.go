// Package natsembed runs a NATS server with JetStream inside this process,
// for tests and for tools/roomload, and a TCP proxy in front of it whose
// connections a test can cut and restore.
package natsembed

import (
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Start runs a NATS server with JetStream on 127.0.0.1 at a random port,
// keeping its streams in dir. Stop it with Shutdown.
func Start(dir string) (*server.Server, error) { return StartPort(dir, server.RANDOM_PORT) }

// StartPort runs a NATS server with JetStream on 127.0.0.1:port, keeping
// its streams in dir: a test restarts one where its clients reconnect.
func StartPort(dir string, port int) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: dir,
		NoLog: true, NoSigs: true, MaxPayload: 1 << 20,
	})
	if err != nil {
		return nil, fmt.Errorf("nats server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errors.New("nats server: not ready after 10 s")
	}
	return s, nil
}

// Proxy forwards TCP connections from its own loopback address to target.
// Cut closes every connection and refuses new ones until Restore.
type Proxy struct {
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// NewProxy listens on a random loopback port.
func NewProxy(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &Proxy{target: target, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	p.serve(ln)
	return p, nil
}

// URL is the proxy's address as a NATS URL.
func (p *Proxy) URL() string { return "nats://" + p.addr }

func (p *Proxy) serve(ln net.Listener) {
	p.ln = ln
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			p.wg.Go(func() { p.pipe(c) })
		}
	})
}

func (p *Proxy) pipe(c net.Conn) {
	up, err := net.DialTimeout("tcp", p.target, 2*time.Second)
	if err != nil {
		c.Close()
		return
	}
	if !p.track(c, up) {
		return
	}
	done := make(chan struct{}, 2)
	go func() { io.Copy(up, c); done <- struct{}{} }()
	go func() { io.Copy(c, up); done <- struct{}{} }()
	<-done
	c.Close()
	up.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// track registers both ends unless the proxy was cut meanwhile.
func (p *Proxy) track(c, up net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		c.Close()
		up.Close()
		return false
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	return true
}

// Cut closes the listener and every connection through the proxy.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for c := range p.conns {
		c.Close()
	}
}

// Restore listens again on the same address.
func (p *Proxy) Restore() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return fmt.Errorf("proxy: listen again on %s: %w", p.addr, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.serve(ln)
	return nil
}

// Close cuts the proxy for good and waits for its goroutines.
func (p *Proxy) Close() {
	p.Cut()
	p.wg.Wait()
}
