package rpc

import (
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// corkMax is the most a corked connection gathers before the writer's
// own write sends it.
const corkMax = 64 << 10

// corkListener hands out corkConns, so that a socket's writer can send
// the replies it writes in one go with one write(2).
type corkListener struct{ net.Listener }

// WrapListener wraps ln for Serve's HTTP server: a WebSocket's writer
// then sends the replies it finds queued in one system call. Serve wraps
// its listener itself; a caller that runs Handler on an HTTP server of
// its own may wrap that server's listener with it for the same effect.
func WrapListener(ln net.Listener) net.Listener {
	if _, ok := ln.(corkListener); ok {
		return ln
	}
	return corkListener{ln}
}

// Accept wraps the connection accepted.
func (l corkListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &corkConn{Conn: c}, nil
}

// corkConn is the network connection under a WebSocket. While its
// writer gathers (cork), what gorilla writes joins a buffer that uncork
// sends in one write(2); otherwise writes go straight through.
//
// Gorilla's own writes from the reading goroutine (a pong, the answer to
// a close, a close for a protocol error) take the same path, outside the
// writer's hands: while the writer gathers or a flush is on the socket
// they join the buffer and return at once, in order behind what it
// holds, so the reader never waits for a flush that waits for the peer,
// and their short deadlines never cut a flush short. The buffer comes
// from a pool and goes back when the flush ends, so an idle socket holds
// none.
type corkConn struct {
	net.Conn
	mu       sync.Mutex // guards the fields below; held across a direct write, never across a flush's
	corked   bool       // the writer gathers: writes join buf
	flushing bool       // a flush is on the socket: writes join buf, which it sends next
	buf      *[]byte    // what joined; nil while nothing has
	deadline time.Time  // the latest write deadline asked for while gathering
	onFlush  func()     // counts each write of gathered bytes (nil: none)
}

// corkBuffers are the gathering buffers of the corked connections.
var corkBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// corkOf is the corkConn under ws, or nil.
func corkOf(ws *websocket.Conn) *corkConn {
	c, _ := ws.NetConn().(*corkConn)
	return c
}

// Write gathers p while the writer gathers or a flush runs, and writes
// it through otherwise. A gathering that would pass corkMax is sent
// first, by this write (the writer's own, as only the writer writes past
// a few bytes).
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.corked && !c.flushing {
		return c.Conn.Write(p)
	}
	if c.buf == nil {
		c.buf = corkBuffers.Get().(*[]byte)
	}
	if !c.flushing && len(*c.buf)+len(p) > corkMax {
		if err := c.flushLocked(c.deadline); err != nil {
			return 0, err
		}
		c.buf = corkBuffers.Get().(*[]byte)
	}
	*c.buf = append(*c.buf, p...)
	return len(p), nil
}

// SetWriteDeadline applies t to a direct write. While gathering it only
// keeps t for a flush that passes corkMax; uncork brings its own.
func (c *corkConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.corked && !c.flushing {
		return c.Conn.SetWriteDeadline(t)
	}
	if t.IsZero() || t.After(c.deadline) {
		c.deadline = t
	}
	return nil
}

// CloseWrite half-closes the connection, when the one under it can: the
// HTTP server does so before it closes a connection whose request body
// it did not read.
func (c *corkConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// cork starts gathering writes.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// uncork sends what was gathered, within deadline, and stops gathering;
// what joins while it writes goes out after, before it returns.
func (c *corkConn) uncork(deadline time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	return c.flushLocked(deadline)
}

// flushLocked sends the buffer, and what joins it meanwhile, each batch
// in one write without holding mu, and gives the buffers back. Called
// with mu held; after an error what is left is dropped: the connection
// is done for.
func (c *corkConn) flushLocked(deadline time.Time) error {
	var err error
	for c.buf != nil && err == nil {
		out := c.buf
		c.buf, c.flushing = nil, true
		c.mu.Unlock()
		if len(*out) > 0 {
			if c.onFlush != nil {
				c.onFlush() // before the write: whoever reads what it sends finds it counted
			}
			if err = c.Conn.SetWriteDeadline(deadline); err == nil {
				_, err = c.Conn.Write(*out)
			}
		}
		c.mu.Lock()
		c.flushing = false
		if cap(*out) <= corkMax {
			*out = (*out)[:0]
			corkBuffers.Put(out)
		}
	}
	if err != nil && c.buf != nil {
		c.buf = nil
	}
	return err
}
