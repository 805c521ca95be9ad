package sim

import (
	"runtime"
	"sync"
)

// RunEach replays l under each of ps, on as many goroutines as there are
// CPUs, and hands every replay to visit (i is the policy's index in ps);
// visit may be called from several goroutines at once. It returns the
// error of the first policy (in the order of ps) that failed; a failure
// stops the policies not started yet. Only the replays being visited are
// held at once.
func RunEach(l *Lesson, ps []Policy, tok Tokenizer, visit func(i int, p Policy, r *Replay) error) error {
	errs := make([]error, len(ps))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	failed := false
	for range min(runtime.GOMAXPROCS(0), len(ps)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				r, err := Run(l, ps[i], tok)
				if err == nil {
					err = visit(i, ps[i], r)
				}
				if err != nil {
					mu.Lock()
					errs[i], failed = err, true
					mu.Unlock()
				}
			}
		}()
	}
	for i := range ps {
		mu.Lock()
		stop := failed
		mu.Unlock()
		if stop {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
