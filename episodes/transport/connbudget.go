package transport

import (
	"sync"
	"time"

	"github.com/jonboulle/clockwork"
)

// frameReserve is what a frame being run counts for at least, until its
// reply is known: the room its reply will likely take. It bounds the
// frames one connection runs at once to max/frameReserve, so that a
// client cannot start thousands of calls with large replies before the
// first reply is counted.
const frameReserve = 64 << 10

// connBudget counts what one connection holds: the bytes of the frames
// it is running (each at least frameReserve) and of the replies it has
// not yet written. Its reader stops reading while they reach max
// (backpressure), and closes a connection whose replies have waited at
// the limit with no write progress for the stall timeout. The writer's
// scheduling is writeSched's: the budget only counts.
//
// A reply counts until gorilla has written it, which, while the writer
// gathers, is into the corked connection's buffer: up to corkMax bytes a
// socket are thus on their way to the peer and no longer counted.
type connBudget struct {
	max   int64
	clock clockwork.Clock // what progress and the stall are timed on

	mu        sync.Mutex // guards the fields below
	held      int64      // frame bytes being run + reply bytes not yet written
	unwritten int64      // bytes of the replies queued and of the one being written
	dropping  bool       // the writer writes no more data: replies are dropped, and there is always room
	progress  time.Time  // when the writer last wrote a chunk, started, or found nothing to write
	roomAvail chan struct{}
}

func newConnBudget(max int64, clock clockwork.Clock) *connBudget {
	return &connBudget{max: max, clock: clock, progress: clock.Now(), roomAvail: make(chan struct{}, 1)}
}

// signal wakes whoever waits on ch, without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// hasRoom reports whether the reader may read another frame.
func (b *connBudget) hasRoom() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held < b.max || b.dropping
}

// hold counts a frame of n bytes that is about to run, and returns what
// it counts for, to give to settle.
func (b *connBudget) hold(n int) int64 {
	c := max(int64(n), frameReserve)
	b.mu.Lock()
	b.held += c
	b.mu.Unlock()
	return c
}

// settle ends a frame that counted for c and counts its reply of n bytes
// (0 for none); false when the reply is to be dropped.
func (b *connBudget) settle(c int64, n int) bool {
	b.mu.Lock()
	b.held -= c
	kept := !b.dropping
	if kept {
		b.held += int64(n)
		b.unwritten += int64(n)
	}
	b.mu.Unlock()
	signal(b.roomAvail)
	return kept
}

// wrote records the writer's progress on a reply, and with finished the
// end of its n bytes.
func (b *connBudget) wrote(n int, finished bool) {
	b.mu.Lock()
	b.progress = b.clock.Now()
	if finished {
		b.held -= int64(n)
		b.unwritten -= int64(n)
	}
	b.mu.Unlock()
	if finished {
		signal(b.roomAvail)
	}
}

// moved records that the writer started or found nothing to write: a
// writer that starts has not stalled yet, and idle is not stalled.
func (b *connBudget) moved() {
	b.mu.Lock()
	b.progress = b.clock.Now()
	b.mu.Unlock()
}

// stalled reports whether replies have waited with no write progress
// for at least d, and how many bytes wait.
func (b *connBudget) stalled(d time.Duration) (bool, int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.unwritten > 0 && b.clock.Since(b.progress) >= d, b.unwritten
}

// drop gives back the n bytes of the queued replies the writer dropped,
// and drops every later reply: the writer writes no more data.
func (b *connBudget) drop(n int64) {
	b.mu.Lock()
	b.dropping = true
	b.held -= n
	b.unwritten = 0
	b.mu.Unlock()
	signal(b.roomAvail)
}
