package client

import (
	"net"
	"sync"
	"sync/atomic"
)

// maxHeldCap is the largest buffer batchConn keeps between bursts.
const maxHeldCap = 64 << 10

// batchConn is the network connection under the client's WebSocket.
// While the client holds its writes back (hold), what gorilla writes
// gathers in a buffer that flush sends in one write(2); otherwise writes
// go straight through. Callers that send at the same moment (an RL
// trainer's workers, the bench's episodes) so share one system call: the
// client often shares its machine with the server it drives, and what it
// spends is taken from the server. Gorilla's own writes from the reading
// goroutine (pongs) take the same path, so a flush sends them too.
type batchConn struct {
	net.Conn
	mu     sync.Mutex // guards hold and buf; held across the flush's write
	hold   bool
	buf    []byte
	writes atomic.Int64 // write(2) calls made
}

// Write buffers p while writes are held, and writes it otherwise.
func (b *batchConn) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.hold {
		b.buf = append(b.buf, p...)
		return len(p), nil
	}
	b.writes.Add(1)
	return b.Conn.Write(p)
}

// holdWrites starts gathering writes until the next flush.
func (b *batchConn) holdWrites() {
	b.mu.Lock()
	b.hold = true
	b.mu.Unlock()
}

// flush writes what was gathered, in one call, and stops holding.
func (b *batchConn) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hold = false
	if len(b.buf) == 0 {
		return nil
	}
	b.writes.Add(1)
	_, err := b.Conn.Write(b.buf)
	if cap(b.buf) > maxHeldCap {
		b.buf = nil
	} else {
		b.buf = b.buf[:0]
	}
	return err
}
