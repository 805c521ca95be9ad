package web

import (
	"bytes"
	"net/http"
	"runtime"
	"syscall"
	"testing"
	"time"

	"ctxsim/web/uploads"
)

// BenchmarkUpload is upload to first page with the real 3 MB Claude Code
// session and the two files beside it (3.3 MB): POST /sessions (read,
// redact, import in memory, run and check the session as it happened),
// then GET its first step, what an uploader waits for between sending the
// file and seeing step 1. After the loop it keeps four sessions, each
// with its first step rendered, and reports the heap they hold per
// uploaded MB (held-MB/MB) beside what the memory budget counts for them
// (counted-MB/MB), and the CPU time an upload took (cpu-ms/op).
func BenchmarkUpload(b *testing.B) {
	s := newServerWith(b, Config{UploadLimits: uploads.Limits{Burst: 1 << 30, ClientBytes: 1 << 40, Memory: 1 << 40}})
	h := s.Handler()
	files := realSessionFiles(b)
	body, ctype := formBody(b, nil, files...)
	raw := body.Bytes()
	var size int64
	for _, f := range files {
		size += int64(len(f.data))
	}
	upload := func() string {
		rec := call(h, http.MethodPost, "/sessions", bytes.NewReader(raw), "Content-Type", ctype)
		loc := rec.Header().Get("Location")
		if rec.Code != http.StatusSeeOther {
			b.Fatalf("POST /sessions = %d", rec.Code)
		}
		if rec := call(h, http.MethodGet, loc, nil); rec.Code != http.StatusOK {
			b.Fatalf("GET %s = %d", loc, rec.Code)
		}
		return loc
	}
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration // the process's CPU time (all threads: GC too) in the timed part, less noisy than the wall clock on shared cores
	for range b.N {
		c0 := cpuTime(b)
		loc := upload()
		cpu += cpuTime(b) - c0
		b.StopTimer()
		call(h, http.MethodDelete, loc, nil)
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")

	const kept = 4
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range kept {
		upload()
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	_, counted := s.uploads.Held()
	mb := float64(kept*size) / (1 << 20)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20)/mb, "held-MB/MB")
	b.ReportMetric(float64(counted)/(1<<20)/mb, "counted-MB/MB")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
