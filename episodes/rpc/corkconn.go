package rpc

import (
	"net"
	"sync"

	"github.com/gorilla/websocket"
)

// corkMax is the most a corked connection gathers before it writes.
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

// corkConn is a network connection whose writes can be held back and
// sent together. Uncorked, it writes through. The buffer that gathers
// them is the pool's while the connection is uncorked, so an idle socket
// holds none.
type corkConn struct {
	net.Conn
	mu     sync.Mutex // guards the fields below; held across a write, so writes keep their order
	corked bool
	buf    *[]byte // gathered writes while corked; nil otherwise
}

// corkBuffers are the gathering buffers of the corked connections.
var corkBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 4<<10); return &b }}

// corkOf is the corkConn under ws, or nil.
func corkOf(ws *websocket.Conn) *corkConn {
	c, _ := ws.NetConn().(*corkConn)
	return c
}

// Write gathers p while corked (writing what was gathered first when p
// would take it past corkMax), and writes it through otherwise.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.corked {
		return c.Conn.Write(p)
	}
	if c.buf == nil {
		c.buf = corkBuffers.Get().(*[]byte)
	}
	if len(*c.buf)+len(p) > corkMax {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > corkMax {
			return c.Conn.Write(p)
		}
	}
	*c.buf = append(*c.buf, p...)
	return len(p), nil
}

// cork starts gathering writes.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// uncork writes what was gathered and stops gathering, giving the buffer
// back. It calls counted before the write when there is anything to
// write, so that whoever reads what was written finds it counted.
func (c *corkConn) uncork(counted func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if c.buf == nil {
		return nil
	}
	if len(*c.buf) > 0 {
		counted()
	}
	err := c.flushLocked()
	corkBuffers.Put(c.buf)
	c.buf = nil
	return err
}

// flushLocked writes what was gathered and empties the buffer; one that
// grew past corkMax is let go.
func (c *corkConn) flushLocked() error {
	b := *c.buf
	if len(b) == 0 {
		return nil
	}
	_, err := c.Conn.Write(b)
	if cap(b) > corkMax {
		b = make([]byte, 0, 4<<10)
	}
	*c.buf = b[:0]
	return err
}
