// Package corkconn is a corked network connection: while its owner
// gathers (Cork), what is written joins a buffer that Uncork or Flush
// sends in one write(2); otherwise writes go straight through. The
// server's WebSocket writer sends the replies it finds queued in one
// system call with it, and the client the frames its callers send at
// the same moment. It imports only the standard library.
package corkconn

import (
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// maxPooled is the largest gathering buffer given back to the pool.
const maxPooled = 64 << 10

// buffers are the gathering buffers of every Conn: one is taken when a
// write joins and given back when the flush ends, so an idle connection
// holds none.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// Conn is a corked net.Conn. While its owner gathers (Cork), what is
// written joins a buffer that Uncork or Flush sends in one write(2);
// otherwise writes go straight through.
//
// Writes from other goroutines (a WebSocket library's pong or close,
// written by the reading goroutine) take the same path, outside the
// owner's hands: while it gathers or a flush is on the socket they join
// the buffer and return at once, in order behind what it holds, so the
// reader never waits for a flush that waits for the peer, and their
// short deadlines never cut a flush short.
type Conn struct {
	net.Conn
	max int // the most gathered before a write sends it first; 0: no bound

	mu       sync.Mutex // guards the fields below; held across a direct write, never across a flush's
	corked   bool       // the owner gathers: writes join buf
	flushing bool       // a flush is on the socket: writes join buf, which it sends next
	buf      *[]byte    // what joined; nil while nothing has
	deadline time.Time  // the latest write deadline asked for while gathering (zero: none)
	limited  bool       // a deadline was asked for while gathering
	onFlush  func()     // counts each write of gathered bytes (nil: none)

	writes atomic.Int64 // write(2) calls made
}

// New returns c corked while asked to. A gathering that would pass max
// bytes is sent first by the write that would pass it; max 0 gathers
// without bound.
func New(c net.Conn, max int) *Conn { return &Conn{Conn: c, max: max} }

// SetOnFlush has f called before each write of gathered bytes, so that
// whoever reads what it sends finds it counted.
func (c *Conn) SetOnFlush(f func()) {
	c.mu.Lock()
	c.onFlush = f
	c.mu.Unlock()
}

// Writes is the number of write(2) calls made: direct writes and each
// write of gathered bytes.
func (c *Conn) Writes() int64 { return c.writes.Load() }

// Write gathers p while the owner gathers or a flush runs, and writes it
// through otherwise.
func (c *Conn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.corked && !c.flushing {
		c.writes.Add(1)
		return c.Conn.Write(p)
	}
	if c.buf == nil {
		c.buf = buffers.Get().(*[]byte)
	}
	if c.max > 0 && !c.flushing && len(*c.buf)+len(p) > c.max {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
		c.buf = buffers.Get().(*[]byte)
	}
	*c.buf = append(*c.buf, p...)
	return len(p), nil
}

// SetWriteDeadline applies t to a direct write. While gathering it keeps
// the latest deadline asked for (a zero one, none, is the latest), which
// the flush that sends the gathered bytes applies: a write that joins a
// flush never brings its deadline forward.
func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.corked && !c.flushing {
		return c.Conn.SetWriteDeadline(t)
	}
	c.keepDeadline(t)
	return nil
}

// keepDeadline keeps t if it is later than the deadline kept. Called
// with mu held.
func (c *Conn) keepDeadline(t time.Time) {
	switch {
	case !c.limited:
		c.deadline = t
	case c.deadline.IsZero() || t.IsZero():
		c.deadline = time.Time{}
	case t.After(c.deadline):
		c.deadline = t
	}
	c.limited = true
}

// CloseWrite half-closes the connection, when the one under it can: an
// HTTP server does so before it closes a connection whose request body
// it did not read.
func (c *Conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// Cork starts gathering writes.
func (c *Conn) Cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// Uncork sends what was gathered within deadline (zero: none), whatever
// deadline the writes asked for, and stops gathering; what joins while
// it writes goes out after, before it returns, within the later of
// deadline and theirs.
func (c *Conn) Uncork(deadline time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	c.deadline, c.limited = deadline, true
	return c.flushLocked()
}

// Flush sends what was gathered within the latest deadline the writes
// asked for (none when none did), and stops gathering; what joins while
// it writes goes out after, before it returns.
func (c *Conn) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	return c.flushLocked()
}

// flushLocked sends the buffer, and what joins it meanwhile, each batch
// in one write without holding mu, and gives the buffers back. Called
// with mu held; after an error what is left is dropped: the connection
// is done for.
func (c *Conn) flushLocked() error {
	var err error
	for c.buf != nil && err == nil {
		out, deadline, limited, onFlush := c.buf, c.deadline, c.limited, c.onFlush
		c.buf, c.flushing = nil, true
		c.mu.Unlock()
		if len(*out) > 0 && onFlush != nil {
			onFlush() // before the write: whoever reads what it sends finds it counted
		}
		err = c.send(*out, deadline, limited)
		c.mu.Lock()
		c.flushing = false
		if cap(*out) <= maxPooled {
			*out = (*out)[:0]
			buffers.Put(out)
		}
	}
	c.buf, c.limited = nil, false
	return err
}

// send writes out, under deadline when one was asked for. Called without
// mu, by the one flush on the socket.
func (c *Conn) send(out []byte, deadline time.Time, limited bool) error {
	if len(out) == 0 {
		return nil
	}
	if limited {
		if err := c.Conn.SetWriteDeadline(deadline); err != nil {
			return err
		}
	}
	c.writes.Add(1)
	_, err := c.Conn.Write(out)
	return err
}

// listener hands out Conns.
type listener struct {
	net.Listener
	max int
}

// WrapListener wraps ln so that each connection it accepts is a Conn
// gathering at most max bytes; ln already wrapped is returned as it is.
func WrapListener(ln net.Listener, max int) net.Listener {
	if _, ok := ln.(listener); ok {
		return ln
	}
	return listener{ln, max}
}

// Accept wraps the connection accepted.
func (l listener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return New(c, l.max), nil
}
