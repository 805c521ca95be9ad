//go:build linux

package main

import (
	"strings"
	"testing"
	"time"
)

func TestCheckFlags(t *testing.T) {
	for _, tt := range []struct {
		cfg        config
		urls, pids string
		want       string // "" when accepted
	}{
		{config{followers: 5000, instances: 2, steps: 60, interval: time.Second, timeout: time.Minute, drop: 20 * time.Second}, "", "", ""},
		{config{followers: 0, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}, "", "", "-followers"},
		{config{followers: 10, instances: 9, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}, "", "", "-instances"},
		{config{followers: 10, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, soak: time.Minute, drop: time.Second}, "", "", "-soak"},
		{config{followers: 10, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, soak: 4 * time.Minute, drop: 2 * time.Minute}, "", "", "-drop"},
		{config{followers: 10, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}, "http://10.0.0.1:8080", "", "loopback"},
		{config{followers: 10, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}, "http://127.0.0.1:8080,http://[::1]:8081", "1", "-pids"},
		{config{followers: 10, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}, "http://localhost:8080", "x", "-pids"},
		{config{followers: 10, instances: 1, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}, "http://127.0.0.1:8080/", "42", ""},
	} {
		cfg := tt.cfg
		err := cfg.check(tt.urls, tt.pids)
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("check(%+v, %q, %q) = %v; want %q", tt.cfg, tt.urls, tt.pids, err, tt.want)
		}
	}
	cfg := config{followers: 5000, instances: 2, steps: 1, interval: time.Second, timeout: time.Minute, drop: time.Second}
	if err := cfg.check("", ""); err != nil || !cfg.natsEmbedded || cfg.sources != 20 {
		t.Errorf("two instances without -nats: embedded %v, sources %d, %v; want an embedded NATS and 20 sources", cfg.natsEmbedded, cfg.sources, err)
	}
}

func TestMinuteAvg(t *testing.T) {
	var s []rssSample
	for i := range 37 { // 0 s … 180 s, every 5 s
		s = append(s, rssSample{at: time.Duration(i) * 5 * time.Second, kib: uint64(100 + i)})
	}
	if got := minuteAvg(s, true); got != 105.5 { // samples 0 … 11
		t.Errorf("first minute = %v; want 105.5", got)
	}
	if got := minuteAvg(s, false); got != 130.5 { // samples 25 … 36
		t.Errorf("last minute = %v; want 130.5", got)
	}
}
