package bench

import (
	"fmt"
	"sync"
	"time"
)

// startProgress writes a progress line to cfg.Progress every
// ProgressEvery until the returned stop is called, which writes the last
// line and a newline. Without cfg.Progress it does nothing.
func (r *run) startProgress() (stop func()) {
	w := r.cfg.Progress
	if w == nil {
		return func() {}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(r.cfg.ProgressEvery)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintf(w, "%s\n", r.progressLine())
				return
			case <-t.C:
				fmt.Fprintf(w, "%s\r", r.progressLine())
			}
		}
	})
	return sync.OnceFunc(func() { close(done); wg.Wait() })
}

// progressLine says how far the run is, in a fixed width so each line
// covers the one before.
func (r *run) progressLine() string {
	secs := time.Since(r.start).Seconds()
	ended, failed, steps := r.ended.Load(), r.failed.Load(), r.steps.Load()
	live := r.started.Load() - ended - failed
	return fmt.Sprintf("%7.1fs  episodes %9d  %8.1f/s  steps %10d  %9.1f/s  in flight %5d  errors %d   ",
		secs, ended, float64(ended)/secs, steps, float64(steps)/secs, live, r.errCount.Load())
}
