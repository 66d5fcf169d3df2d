package rpc

import (
	"sync"
	"time"
)

// frameReserve is what a frame being run counts for at least, until its
// reply is known: the room its reply will likely take. It bounds the
// frames one connection runs at once to max/frameReserve, so that a
// client cannot start thousands of calls with large replies before the
// first reply is counted.
const frameReserve = 64 << 10

// connBytes accounts for what one connection holds: the bytes of the
// frames it is running (each at least frameReserve) and of the replies it
// has not yet written. Its reader stops reading while they reach max
// (backpressure), and its writer takes replies from it in order.
type connBytes struct {
	max int64

	mu        sync.Mutex // guards the fields below
	held      int64      // frame bytes being run + reply bytes not yet written
	queue     [][]byte   // replies for the writer, oldest first
	queued    int64      // bytes of queue and of the reply being written
	closed    bool       // the writer has stopped: replies are dropped
	progress  time.Time  // when the writer last wrote a chunk, or found nothing to write
	readyOut  chan struct{}
	roomAvail chan struct{}
}

func newConnBytes(max int64) *connBytes {
	return &connBytes{max: max, progress: time.Now(),
		readyOut: make(chan struct{}, 1), roomAvail: make(chan struct{}, 1)}
}

// signal wakes whoever waits on ch, without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// hasRoom reports whether the reader may read another frame.
func (q *connBytes) hasRoom() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.held < q.max || q.closed
}

// hold counts a frame of n bytes that is about to run, and returns what
// it counts for, to give to done.
func (q *connBytes) hold(n int) int64 {
	c := max(int64(n), frameReserve)
	q.mu.Lock()
	q.held += c
	q.mu.Unlock()
	return c
}

// done ends a frame that counted for c, queueing its reply (nil for none).
func (q *connBytes) done(c int64, reply []byte) {
	q.mu.Lock()
	q.held -= c
	if reply != nil && !q.closed {
		q.held += int64(len(reply))
		q.queued += int64(len(reply))
		q.queue = append(q.queue, reply)
	}
	q.mu.Unlock()
	signal(q.readyOut)
	signal(q.roomAvail)
}

// next takes the oldest reply for the writer; nil when there is none.
func (q *connBytes) next() []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.queue) == 0 {
		q.progress = time.Now() // idle is not stalled
		return nil
	}
	b := q.queue[0]
	q.queue[0] = nil
	q.queue = q.queue[1:]
	return b
}

// wrote records the writer's progress on a reply, and with finished the
// end of its n bytes.
func (q *connBytes) wrote(n int, finished bool) {
	q.mu.Lock()
	q.progress = time.Now()
	if finished {
		q.held -= int64(n)
		q.queued -= int64(n)
	}
	q.mu.Unlock()
	if finished {
		signal(q.roomAvail)
	}
}

// stalled reports whether replies have waited with no write progress
// for at least d, and how many bytes wait.
func (q *connBytes) stalled(d time.Duration) (bool, int64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.queued > 0 && time.Since(q.progress) >= d, q.queued
}

// close drops the queued replies: the writer has stopped.
func (q *connBytes) close() {
	q.mu.Lock()
	q.closed = true
	for _, b := range q.queue {
		q.held -= int64(len(b))
	}
	q.queue, q.queued = nil, 0
	q.mu.Unlock()
	signal(q.roomAvail)
}

// empty reports whether no reply waits.
func (q *connBytes) empty() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.queue) == 0
}
