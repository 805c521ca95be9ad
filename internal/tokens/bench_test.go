package tokens

import (
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktoken_loader "github.com/pkoukk/tiktoken-go-loader"
)

// benchTexts are the texts the benchmarks count: about 1 MB of each kind
// of the corpus, and the strings of the real transcripts.
func benchTexts(b *testing.B) map[string][]string {
	b.Helper()
	kinds := map[string][]string{}
	g := newTextGen(42)
	for _, k := range textKinds {
		if k.name == "prose" || k.name == "code" || k.name == "cjk" {
			for size := 0; size < 1<<20; {
				var sb strings.Builder
				k.write(g, &sb, 4<<10+g.r.IntN(60<<10))
				kinds[k.name] = append(kinds[k.name], sb.String())
				size += sb.Len()
			}
		}
	}
	for _, tx := range transcriptTexts(b) {
		if !strings.HasSuffix(tx.name, "string") {
			continue
		}
		kinds["transcript"] = append(kinds["transcript"], tx.text)
	}
	return kinds
}

// BenchmarkCount counts each kind of text with tiktoken-go (old: what
// Counter did before, less the memo) and with the encoder (new), on one
// goroutine; it reports MB/s and tokens/s. Compare them with
//
//	go test ./tokens -run '^$' -bench 'Count$' -count 5 | benchstat -col /counter -
//
// or count instructions, free of other load (one iteration, collected
// inside the counter only):
//
//	go test -c -o /tmp/tokens.test ./tokens && cd tokens &&
//	GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind \
//	  --toggle-collect='ctxsim/internal/tokens.(*encoder).count' \
//	  /tmp/tokens.test -test.run '^$' -test.bench 'Count$/text=prose/counter=new' -test.benchtime 1x
//
// (old: --toggle-collect='github.com/pkoukk/tiktoken-go.(*Tiktoken).Encode').
func BenchmarkCount(b *testing.B) {
	ts := newTester(b)
	texts := benchTexts(b)
	for _, kind := range []string{"prose", "code", "cjk", "transcript"} {
		docs := texts[kind]
		size := 0
		for _, d := range docs {
			size += len(d)
		}
		for _, impl := range []struct {
			name  string
			count func(string) int
		}{
			{"old", func(s string) int { return len(ts.ref.Encode(s, nil, nil)) }},
			{"new", ts.enc.count},
		} {
			b.Run("text="+kind+"/counter="+impl.name, func(b *testing.B) {
				b.SetBytes(int64(size))
				tokens := 0
				for b.Loop() {
					for _, d := range docs {
						tokens += impl.count(d)
					}
				}
				b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
			})
		}
	}
}

// BenchmarkCountRun counts one run of a letter, where tiktoken-go's merge
// is quadratic.
func BenchmarkCountRun(b *testing.B) {
	ts := newTester(b)
	for _, n := range []int{1 << 10, 16 << 10, 64 << 10} {
		text := strings.Repeat("a", n)
		b.Run("run="+itoa(n)+"/counter=old", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				ts.ref.Encode(text, nil, nil)
			}
		})
		b.Run("run="+itoa(n)+"/counter=new", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				ts.enc.count(text)
			}
		})
	}
	text := strings.Repeat("a", 1<<20)
	b.Run("run=1024KiB/counter=new", func(b *testing.B) {
		b.SetBytes(int64(len(text)))
		for b.Loop() {
			ts.enc.count(text)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n>>10) + "KiB" }

// BenchmarkNew loads the vocabulary, old and new, and reports the live
// heap each leaves as live-B. Old is what tiktoken.GetEncoding does the
// first time (its package caches the ranks after that): the offline
// loader's ranks, then NewCoreBPE.
func BenchmarkNew(b *testing.B) {
	old := func() (any, error) {
		ranks, err := tiktoken_loader.NewOfflineLoader().LoadTiktokenBpe(Encoding + ".tiktoken")
		if err != nil {
			return nil, err
		}
		return tiktoken.NewCoreBPE(ranks, map[string]int{"<|endoftext|>": 199999, "<|endofprompt|>": 200018}, o200kPattern.String())
	}
	for _, impl := range []struct {
		name string
		load func() (any, error)
	}{
		{"old", old},
		{"new", func() (any, error) { return New() }},
	} {
		b.Run("counter="+impl.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := impl.load(); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			keep, _ := impl.load()
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc), "live-B")
			runtime.KeepAlive(keep)
		})
	}
}
