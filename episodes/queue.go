package episodes

import (
	"context"
	"sync"
)

// stepQueue runs an episode's steps one at a time, in the order they were
// enqueued: each ticket waits for the one before it. Enqueueing is done
// by the connection's reader, so arrival order on a socket is kept.
type stepQueue struct {
	mu      sync.Mutex    // guards the fields below
	tail    chan struct{} // closed when the last enqueued step is done
	pending int           // steps enqueued and not yet done
	closed  bool          // the episode is gone: no more tickets
}

// ticket is one step's place in the queue.
type ticket struct {
	q    *stepQueue
	prev <-chan struct{}
	done chan struct{}
}

func newStepQueue() *stepQueue {
	c := make(chan struct{})
	close(c)
	return &stepQueue{tail: c}
}

// enqueue takes a place in the queue, unless limit steps are already
// waiting (besides the one running) or the queue is closed. The ticket
// is a value, for the caller to keep where it keeps the rest of the
// step's state.
func (q *stepQueue) enqueue(limit int) (ticket, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return ticket{}, NotFound
	}
	if q.pending > limit { // pending counts the running step too
		return ticket{}, Busy
	}
	t := ticket{q: q, prev: q.tail, done: make(chan struct{})}
	q.tail = t.done
	q.pending++
	return t, nil
}

// wait blocks until every earlier ticket is done.
func (t *ticket) wait(ctx context.Context) error {
	select {
	case <-t.prev:
		return nil
	case <-ctx.Done():
		t.abandon() // keep the chain intact: release our place once our turn comes
		return ctx.Err()
	}
}

// release ends the ticket's step and lets the next one run.
func (t *ticket) release() {
	t.q.mu.Lock()
	t.q.pending--
	t.q.mu.Unlock()
	close(t.done)
}

// closeIfIdle closes the queue if no step is pending, and reports whether
// it did.
func (q *stepQueue) closeIfIdle() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.pending > 0 || q.closed {
		return false
	}
	q.closed = true
	return true
}

// abandon gives up the ticket's place without running a step: the steps
// after it run once the ones before it are done.
func (t *ticket) abandon() {
	go func() { <-t.prev; t.release() }()
}
