package transport

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
// (backpressure). It also schedules the connection's writer: there is no
// writer while nothing is due; whoever makes something due (a reply, a
// ping, the shutdown, the end) when no writer runs becomes the writer,
// and the writer ends when it finds nothing left. Both happen under mu,
// so nothing due is ever left without a writer, but for one exception:
// a reply that waits for those of the socket's other running frames (up
// to delay) has no writer until the last of them ends or the timer fires,
// and one of the two always comes.
//
// A reply counts in held until gorilla has written it, which, while the
// writer gathers, is into the corked connection's buffer: up to corkMax
// bytes a socket are thus on their way to the peer and no longer counted.
type connBytes struct {
	max int64

	mu        sync.Mutex // guards the fields below
	held      int64      // frame bytes being run + reply bytes not yet written
	queue     [][]byte   // replies for the writer, oldest first
	queued    int64      // bytes of queue and of the reply being written
	closed    bool       // the writer has stopped writing data: replies are dropped
	progress  time.Time  // when the writer last wrote a chunk, started, or found nothing to write
	roomAvail chan struct{}

	writing  bool // a writer runs
	dirty    bool // the writer has written since it last flushed (taskFlush)
	pingDue  bool // a ping is due
	stopDue  bool // the server shuts down: a close frame is due
	ended    bool // the reader and every job have ended: closing the socket is due
	finished bool // the socket has been closed

	// Gathering replies: while other frames of the connection run, a
	// reply waits up to delay for theirs, so that one write sends them
	// all (0: never waits).
	running int           // frames being run
	delay   time.Duration // how long a reply may wait for others (0 or less: it never waits)
	timer   *time.Timer   // runs gathered replies' writer once delay has passed
	armed   bool          // timer is set
	fire    func()        // what the timer runs: the writer, when one is due (set by the connection)
}

func newConnBytes(max int64) *connBytes {
	return &connBytes{max: max, progress: time.Now(), roomAvail: make(chan struct{}, 1)}
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
	q.running++
	q.mu.Unlock()
	return c
}

// done ends a frame that counted for c, queueing its reply (nil for
// none). True when the caller must now run the writer.
func (q *connBytes) done(c int64, reply []byte) bool {
	q.mu.Lock()
	q.held -= c
	q.running--
	if reply != nil && !q.closed {
		q.held += int64(len(reply))
		q.queued += int64(len(reply))
		q.queue = append(q.queue, reply)
	}
	write := false
	if len(q.queue) > 0 && !q.writing && !q.finished {
		if q.gather() {
			q.arm()
		} else {
			write = q.startWriter()
		}
	}
	q.mu.Unlock()
	signal(q.roomAvail)
	return write
}

// gather reports whether the queued replies should wait for those of
// the frames still running. Called with mu held.
func (q *connBytes) gather() bool {
	return q.delay > 0 && q.running > 0 && q.queued < corkMax
}

// arm sets the timer that writes gathered replies once delay has passed,
// unless it is set. Called with mu held.
func (q *connBytes) arm() {
	if q.armed {
		return
	}
	q.armed = true
	if q.timer == nil {
		q.timer = time.AfterFunc(q.delay, q.fired)
		return
	}
	q.timer.Reset(q.delay)
}

// stopTimer stops the gathering timer: the socket is closed.
func (q *connBytes) stopTimer() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.timer != nil {
		q.timer.Stop()
	}
}

// fired runs on the timer: the replies gathered have waited long enough.
func (q *connBytes) fired() {
	q.mu.Lock()
	q.armed = false
	write := len(q.queue) > 0 && q.startWriter()
	q.mu.Unlock()
	if write {
		q.fire()
	}
}

// startWriter reports whether the caller becomes the writer: true when
// none runs and the socket is open. Called with mu held.
func (q *connBytes) startWriter() bool {
	if q.writing || q.finished {
		return false
	}
	q.writing = true
	q.progress = time.Now() // a writer that starts has not stalled yet
	return true
}

// ping makes a ping due and calls rearm for the next one; true when the
// caller must now run the writer. Once the socket is closing it does
// neither, so no timer outlives the connection.
func (q *connBytes) ping(rearm func()) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed || q.ended {
		return false
	}
	rearm()
	q.pingDue = true
	return q.startWriter()
}

// stop makes the shutdown's close frame due; true when the caller must
// now run the writer.
func (q *connBytes) stop() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.stopDue = true
	return q.startWriter()
}

// end records that the reader and every job have ended, so the socket is
// to be closed; true when the caller must now run the writer.
func (q *connBytes) end() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.ended = true
	return q.startWriter()
}

// task is what the writer is to do next.
type task int

const (
	taskNone  task = iota // nothing: the writer has ended
	taskStop              // send the shutdown's close frame (replies were dropped)
	taskPing              // send a ping
	taskReply             // write the reply given with it
	taskFlush             // send what was written since the last flush
	taskEnd               // close the socket: nothing will be due any more
)

// next takes the writer's next task, the shutdown first, then a ping,
// then the replies in order, then the end. With taskNone the writer has
// ended: whatever is due next starts another.
func (q *connBytes) next() (task, []byte) {
	q.mu.Lock()
	defer q.mu.Unlock()
	switch {
	case q.stopDue:
		q.stopDue = false
		if q.closed {
			return q.nextData()
		}
		q.dropLocked()
		q.dirty = true
		return taskStop, nil
	case q.pingDue:
		q.pingDue = false
		if !q.closed {
			q.dirty = true
			return taskPing, nil
		}
	}
	return q.nextData()
}

// nextData is next past the shutdown and the ping: the replies, then the end. Called with mu held.
func (q *connBytes) nextData() (task, []byte) {
	switch {
	case len(q.queue) > 0:
		b := q.queue[0]
		q.queue[0] = nil
		q.queue = q.queue[1:]
		q.dirty = true
		return taskReply, b
	case q.dirty:
		q.dirty = false
		return taskFlush, nil
	case q.ended && !q.finished:
		q.finished = true
		q.writing = false
		return taskEnd, nil
	}
	q.queue = nil // an idle connection keeps no queue
	q.writing = false
	q.progress = time.Now() // idle is not stalled
	return taskNone, nil
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

// close drops the queued replies: the writer can write no more.
func (q *connBytes) close() {
	q.mu.Lock()
	q.dropLocked()
	q.mu.Unlock()
}

// isClosed reports whether the writer has stopped writing data.
func (q *connBytes) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// dropLocked drops the queued replies and makes later ones dropped.
// Called with mu held.
func (q *connBytes) dropLocked() {
	q.closed = true
	for _, b := range q.queue {
		q.held -= int64(len(b))
	}
	q.queue, q.queued = nil, 0
	signal(q.roomAvail)
}
