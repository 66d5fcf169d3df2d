package transport

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// writerState is where a connection's writer stands. There is no writer
// while nothing is due; whoever makes something due (a job its reply,
// the ping timer a ping, the shutdown its close frame, the reader the
// end) when no writer runs becomes the writer, and the writer ends when
// it finds nothing left, both under writeSched's lock, so nothing due is
// ever left without a writer, but for one exception: a reply that waits
// for those of the socket's other running frames (gathering, up to the
// reply delay) has no writer until the last of them ends or the timer
// fires, and one of the two always comes.
//
// The states, and every transition the code makes (move refuses any
// other; TestWriterTable walks them):
//
//	from       event                                             to         who writes
//	idle       a frame ends with a reply; none other runs,       writing    that frame's job
//	           or no gathering (delay off, corkMax queued)
//	idle       a frame ends with a reply; others run             gathering  nobody yet
//	idle       a ping, the shutdown or the end is due            writing    the ping timer, a worker, the reader
//	gathering  a frame ends; others still run                    gathering  nobody yet
//	gathering  the last running frame ends                       writing    that frame's job
//	gathering  the gathering timer fires                         writing    the timer's goroutine
//	gathering  a ping, the shutdown or the end is due            writing    the one that made it due
//	writing    anything is made due                              writing    the writer finds it
//	writing    the writer finds nothing due                      idle       nobody: it ends
//	writing    the writer finds the end due                      finished   nobody: it closes the socket
//	finished   anything                                          finished   nobody: replies are dropped
type writerState int

const (
	stateIdle      writerState = iota // no writer, nothing due
	stateGathering                    // no writer: replies wait for those of the frames still running, or the timer
	stateWriting                      // a writer runs
	stateFinished                     // the socket is closed: no writer ever again
)

func (s writerState) String() string {
	return [...]string{"idle", "gathering", "writing", "finished"}[s]
}

// writerMoves are the transitions of the table above, from each state.
var writerMoves = map[writerState][]writerState{
	stateIdle:      {stateWriting, stateGathering},
	stateGathering: {stateWriting},
	stateWriting:   {stateIdle, stateFinished},
	stateFinished:  {},
}

// writeSched schedules one connection's writer (see writerState): what
// is due (replies in order, a ping, the shutdown's close frame, the
// end), who writes it, and the gathering of replies. What the
// connection holds is counted by its connBudget, which it tells of each
// frame, reply and drop.
type writeSched struct {
	budget *connBudget

	mu       sync.Mutex // guards the fields below
	state    writerState
	queue    [][]byte // replies for the writer, oldest first
	gathered int64    // bytes of queue
	closed   bool     // the writer has stopped writing data: replies are dropped
	dirty    bool     // the writer has written since it last flushed (taskFlush)
	pingDue  bool     // a ping is due
	stopDue  bool     // the server shuts down: a close frame is due
	ended    bool     // the reader and every job have ended: closing the socket is due

	// Gathering replies: while other frames of the connection run, a
	// reply waits up to delay for theirs, so that one write sends them
	// all (0 or less: never waits).
	running int             // frames being run
	delay   time.Duration   // how long a reply may wait for others
	clock   clockwork.Clock // the timer's
	timer   clockwork.Timer // runs gathered replies' writer once delay has passed
	armed   bool            // timer is set
	fire    func()          // what the timer runs: the writer, when one is due (set by the connection)
}

func newWriteSched(budget *connBudget, delay time.Duration, clock clockwork.Clock, fire func()) *writeSched {
	return &writeSched{budget: budget, delay: delay, clock: clock, fire: fire}
}

// move makes the transition to, one of the table's; any other is a bug.
// Called with mu held.
func (w *writeSched) move(to writerState) {
	if !slices.Contains(writerMoves[w.state], to) {
		panic(fmt.Sprintf("transport: the writer moves from %s to %s, which its table does not allow", w.state, to))
	}
	w.state = to
}

// start counts a frame of n bytes that is about to run, and returns what
// it counts for, to give to done.
func (w *writeSched) start(n int) int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running++
	return w.budget.hold(n)
}

// done ends a frame that counted for c, queueing its reply (nil for
// none). True when the caller must now run the writer.
func (w *writeSched) done(c int64, reply []byte) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running--
	if w.budget.settle(c, len(reply)) && reply != nil {
		w.queue = append(w.queue, reply)
		w.gathered += int64(len(reply))
	}
	if len(w.queue) == 0 || w.state == stateWriting || w.state == stateFinished {
		return false
	}
	if w.gather() {
		w.arm()
		if w.state == stateIdle {
			w.move(stateGathering)
		}
		return false
	}
	return w.startWriter()
}

// gather reports whether the queued replies should wait for those of
// the frames still running. Called with mu held.
func (w *writeSched) gather() bool {
	return w.delay > 0 && w.running > 0 && w.gathered < corkMax
}

// arm sets the timer that writes gathered replies once delay has passed,
// unless it is set. Called with mu held.
func (w *writeSched) arm() {
	if w.armed {
		return
	}
	w.armed = true
	if w.timer == nil {
		w.timer = w.clock.AfterFunc(w.delay, w.fired)
		return
	}
	w.timer.Reset(w.delay)
}

// stopTimer stops the gathering timer: the socket is closed.
func (w *writeSched) stopTimer() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
}

// fired runs on the timer: the replies gathered have waited long enough.
func (w *writeSched) fired() {
	w.mu.Lock()
	w.armed = false
	write := w.state == stateGathering && w.startWriter()
	w.mu.Unlock()
	if write {
		w.fire()
	}
}

// startWriter reports whether the caller becomes the writer: true when
// none runs and the socket is open. Called with mu held.
func (w *writeSched) startWriter() bool {
	if w.state == stateWriting || w.state == stateFinished {
		return false
	}
	w.move(stateWriting)
	w.budget.moved()
	return true
}

// ping makes a ping due and calls rearm for the next one; true when the
// caller must now run the writer. Once the socket is closing it does
// neither, so no timer outlives the connection.
func (w *writeSched) ping(rearm func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed || w.ended {
		return false
	}
	rearm()
	w.pingDue = true
	return w.startWriter()
}

// stop makes the shutdown's close frame due; true when the caller must
// now run the writer.
func (w *writeSched) stop() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stopDue = true
	return w.startWriter()
}

// end records that the reader and every job have ended, so the socket is
// to be closed; true when the caller must now run the writer.
func (w *writeSched) end() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	return w.startWriter()
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
func (w *writeSched) next() (task, []byte) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.stopDue:
		w.stopDue = false
		if w.closed {
			return w.nextData()
		}
		w.dropLocked()
		w.dirty = true
		return taskStop, nil
	case w.pingDue:
		w.pingDue = false
		if !w.closed {
			w.dirty = true
			return taskPing, nil
		}
	}
	return w.nextData()
}

// nextData is next past the shutdown and the ping: the replies, then the
// end. Called with mu held.
func (w *writeSched) nextData() (task, []byte) {
	switch {
	case len(w.queue) > 0:
		b := w.queue[0]
		w.queue[0] = nil
		w.queue = w.queue[1:]
		w.gathered -= int64(len(b))
		w.dirty = true
		return taskReply, b
	case w.dirty:
		w.dirty = false
		return taskFlush, nil
	case w.ended:
		w.move(stateFinished)
		return taskEnd, nil
	}
	w.queue = nil // an idle connection keeps no queue
	w.move(stateIdle)
	w.budget.moved() // idle is not stalled
	return taskNone, nil
}

// close drops the queued replies: the writer can write no more.
func (w *writeSched) close() {
	w.mu.Lock()
	w.dropLocked()
	w.mu.Unlock()
}

// isClosed reports whether the writer has stopped writing data.
func (w *writeSched) isClosed() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.closed
}

// dropLocked drops the queued replies and makes later ones dropped.
// Called with mu held.
func (w *writeSched) dropLocked() {
	w.closed = true
	w.budget.drop(w.gathered)
	w.queue, w.gathered = nil, 0
}
