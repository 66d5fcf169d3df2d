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
// sent together. Uncorked, it writes through.
type corkConn struct {
	net.Conn
	mu     sync.Mutex // guards the fields below; held across a write, so writes keep their order
	corked bool
	buf    []byte
}

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
	if len(c.buf)+len(p) > corkMax {
		if err := c.flushLocked(); err != nil {
			return 0, err
		}
		if len(p) > corkMax {
			return c.Conn.Write(p)
		}
	}
	c.buf = append(c.buf, p...)
	return len(p), nil
}

// cork starts gathering writes.
func (c *corkConn) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// uncork writes what was gathered and stops gathering. It calls
// counted before the write when there is anything to write, so that
// whoever reads what was written finds it counted.
func (c *corkConn) uncork(counted func()) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if len(c.buf) > 0 {
		counted()
	}
	return c.flushLocked()
}

func (c *corkConn) flushLocked() error {
	if len(c.buf) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.buf)
	if cap(c.buf) > corkMax {
		c.buf = nil
	} else {
		c.buf = c.buf[:0]
	}
	return err
}
