package client

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// maxHeldCap is the largest buffer batchConn keeps between bursts.
const maxHeldCap = 64 << 10

// batchConn is the network connection under the client's WebSocket.
// While the client holds its writes back (hold), what gorilla writes
// gathers in a buffer that flush sends in one write(2); otherwise writes
// go straight through. Callers that send at the same moment (an RL
// trainer's workers, the bench's episodes) so share one system call: the
// client often shares its machine with the server it drives, and what it
// spends is taken from the server.
//
// Gorilla's own writes from the reading goroutine (pongs, the answer to
// a close) take the same path, outside the client's write lock and
// gorilla's: while writes are held or a flush is on the socket, they join
// the buffer and return at once, so the reader never waits for a flush
// that waits for the server, and their deadlines never cut a flush short.
type batchConn struct {
	net.Conn
	mu       sync.Mutex // guards the fields below; held across a direct write, never across a flush's
	hold     bool       // writes gather in buf until the next flush
	flushing bool       // a flush is on the socket: it also sends what joins buf meanwhile
	buf      []byte
	spare    []byte       // the buffer the last flush wrote, for the next one
	deadline time.Time    // the latest write deadline asked for while buf gathered
	limited  bool         // whether one was asked for; a zero deadline is none
	writes   atomic.Int64 // write(2) calls made
}

// Write buffers p while writes are held or a flush is on the socket, and
// writes it otherwise.
func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hold || b.flushing {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	b.writes.Add(1)
	return b.Conn.Write(p)
}

// SetWriteDeadline sets the socket's deadline for a direct write. For
// what gathers in the buffer it keeps the latest deadline asked for (a
// zero one, none, is the latest), which the flush that sends it applies:
// a frame that joins a flush never brings its deadline forward.
func (b *batchConn) SetWriteDeadline(t time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.hold && !b.flushing {
		return b.Conn.SetWriteDeadline(t)
	}
	switch {
	case !b.limited:
		b.deadline = t
	case b.deadline.IsZero() || t.IsZero():
		b.deadline = time.Time{}
	case t.After(b.deadline):
		b.deadline = t
	}
	b.limited = true
	return nil
}

// holdWrites starts gathering writes until the next flush.
func (b *batchConn) holdWrites() {
	b.mu.Lock()
	b.hold = true
	b.mu.Unlock()
}

// flush writes what was gathered, in one call, and stops holding; what
// joins the buffer while it writes goes out after it, before it returns.
// Only one flush runs at a time (the client's write lock).
func (b *batchConn) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hold = false
	var err error
	for len(b.buf) > 0 && err == nil {
		out, deadline, limited := b.buf, b.deadline, b.limited
		b.buf, b.spare, b.flushing = b.spare[:0], nil, true
		b.mu.Unlock()
		err = b.send(out, deadline, limited)
		b.mu.Lock()
		b.flushing = false
		if cap(out) <= maxHeldCap {
			b.spare = out[:0]
		}
	}
	b.buf, b.limited = b.buf[:0], false
	return err
}

// send writes out, under deadline when one was asked for.
func (b *batchConn) send(out []byte, deadline time.Time, limited bool) error {
	if limited {
		if err := b.Conn.SetWriteDeadline(deadline); err != nil {
			return err
		}
	}
	b.writes.Add(1)
	_, err := b.Conn.Write(out)
	return err
}
