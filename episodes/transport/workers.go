package transport

import (
	"sync"
	"sync/atomic"
	"time"
)

// workerIdle is how long a worker waits for more work before it exits.
const workerIdle = time.Second

// workers runs the connections' jobs on goroutines that outlive them. A
// step's call path is deep (JSON-RPC, the episode, the engine and its
// authorizer callbacks), and a fresh goroutine per frame grew its stack
// anew on every step: 4.5% of the server's CPU under the gold script. A
// worker keeps its grown stack for the next job. Workers that find no
// work for workerIdle exit, so an idle server holds none.
type workers struct {
	work    chan func() // unbuffered: a send succeeds only when a worker is waiting
	quit    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
	idleFor time.Duration
	started atomic.Int64 // workers started, ever
	waiting atomic.Int64 // workers waiting for work now
}

func newWorkers(idleFor time.Duration) *workers {
	return &workers{work: make(chan func()), quit: make(chan struct{}), idleFor: idleFor}
}

// Go runs f on a waiting worker, or on a new one when none waits.
func (w *workers) Go(f func()) {
	select {
	case w.work <- f:
	default:
		w.wg.Add(1)
		w.started.Add(1)
		go w.loop(f)
	}
}

// loop runs f, then whatever work comes, until none comes for idleFor or
// the pool stops.
func (w *workers) loop(f func()) {
	defer w.wg.Done()
	idle := time.NewTimer(w.idleFor)
	defer idle.Stop()
	for {
		f()
		idle.Reset(w.idleFor)
		w.waiting.Add(1)
		select {
		case f = <-w.work:
			w.waiting.Add(-1)
		case <-idle.C:
			w.waiting.Add(-1)
			return
		case <-w.quit:
			w.waiting.Add(-1)
			return
		}
	}
}

// stop ends the waiting workers and waits for them; no job may be running
// or started after the first call. Later calls wait again.
func (w *workers) stop() {
	w.once.Do(func() { close(w.quit) })
	w.wg.Wait()
}
