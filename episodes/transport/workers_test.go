package transport

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestWorkersRunJobsOnWaitingWorkers: a job given while a worker waits
// runs on that worker, not on a new goroutine; a worker with no work for
// its idle time exits; stop ends the rest.
func TestWorkersRunJobsOnWaitingWorkers(t *testing.T) {
	w := newWorkers(time.Hour)
	for i := range 20 {
		done := make(chan struct{})
		w.Go(func() { close(done) })
		<-done
		waitfor.Until(t, "the worker to wait for work", func() bool { return w.waiting.Load() == 1 })
		if n := w.started.Load(); n != 1 {
			t.Fatalf("job %d: %d workers started, want the first one reused", i, n)
		}
	}
	// Two jobs at once need two workers.
	release := make(chan struct{})
	running := make(chan struct{}, 2)
	for range 2 {
		w.Go(func() { running <- struct{}{}; <-release })
	}
	<-running
	<-running
	if n := w.started.Load(); n != 2 {
		t.Fatalf("%d workers started for two jobs at once, want 2", n)
	}
	close(release)
	waitfor.Until(t, "both workers to wait", func() bool { return w.waiting.Load() == 2 })
	w.stop()
	if n := w.waiting.Load(); n != 0 {
		t.Fatalf("%d workers still waiting after stop", n)
	}
	w.stop() // a second stop is harmless
}

// TestIdleWorkersExit runs on synctest's clock, which moves only when
// every goroutine of the test waits: a worker waits for more work through
// its idle time (workerIdle, as the server has it), then exits on its own,
// before any stop.
func TestIdleWorkersExit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkers(workerIdle)
		start := time.Now()
		done := make(chan struct{})
		w.Go(func() { close(done) })
		<-done
		synctest.Wait() // the worker waits for work, and the clock has not moved
		if n := w.waiting.Load(); n != 1 || time.Since(start) != 0 {
			t.Fatalf("%d workers waiting %v after the job, want 1 at once", n, time.Since(start))
		}
		w.wg.Wait() // the clock moves to the worker's idle timer
		if n := w.waiting.Load(); n != 0 || time.Since(start) != workerIdle {
			t.Fatalf("%d workers waiting; the worker left after %v, want none after %v", n, time.Since(start), workerIdle)
		}
	})
}
