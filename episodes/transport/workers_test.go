package transport

import (
	"testing"
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

func TestIdleWorkersExit(t *testing.T) {
	w := newWorkers(time.Millisecond)
	done := make(chan struct{})
	w.Go(func() { close(done) })
	<-done
	exited := make(chan struct{})
	go func() { w.wg.Wait(); close(exited) }()
	<-exited // the worker left on its own, before any stop
	if n := w.waiting.Load(); n != 0 {
		t.Fatalf("%d workers waiting after the idle time", n)
	}
}
