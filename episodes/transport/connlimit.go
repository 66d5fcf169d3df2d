package transport

import (
	"net"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// Defaults of the bounds on TCP connections.
const (
	DefaultIdleConnTimeout = 60 * time.Second
	DefaultHeaderTimeout   = 10 * time.Second

	// maxDefaultTCPConnections caps DefaultMaxTCPConnections: an idle
	// connection holds a goroutine and its buffers, about 20 KiB, so
	// this many hold about 320 MiB.
	maxDefaultTCPConnections = 16384
	// fallbackTCPConnections is the default where the open-file limit
	// cannot be read.
	fallbackTCPConnections = 4096
	// refuseLogEvery is how often at most a refused connection is logged.
	refuseLogEvery = 10 * time.Second
)

// DefaultMaxTCPConnections is the default bound on open TCP connections:
// half the process's open-file limit (RLIMIT_NOFILE, which the Go runtime
// raises to its hard limit at start), leaving the other half to database
// files, PostgreSQL connections, the trajectory log and the value index,
// and at most 16384; 4096 where the limit cannot be read.
func DefaultMaxTCPConnections() int {
	n, ok := OpenFileLimit()
	if !ok {
		return fallbackTCPConnections
	}
	return max(min(n/2, maxDefaultTCPConnections), 1)
}

// limitListener bounds the connections open at once: past max, a new
// connection is closed as soon as it is accepted, and Accept goes on to
// the next, so accepting never stalls and the process never runs out of
// file descriptors however many clients connect. A connection is counted
// from its accept until it is closed, whatever it became meanwhile (an
// idle keep-alive connection, an upgraded WebSocket).
type limitListener struct {
	net.Listener
	max  int64
	open atomic.Int64
	m    *metrics
	log  *zap.Logger

	// Only Accept's goroutine (http.Server.Serve's) touches these.
	lastLog  time.Time
	unlogged int
}

// limit wraps ln so that at most max of its connections are open at once.
func limit(ln net.Listener, max int, m *metrics, log *zap.Logger) *limitListener {
	return &limitListener{Listener: ln, max: int64(max), m: m, log: log}
}

// Accept returns the next connection there is room for, closing those
// that come while the bound is reached.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) <= l.max {
			l.m.tcpConns.Inc()
			return &countedConn{Conn: c, l: l}, nil
		}
		l.open.Add(-1)
		c.Close()
		l.refused(c.RemoteAddr())
	}
}

// refused counts a connection closed at the bound, and logs it unless a
// line was written within refuseLogEvery; the next line says how many
// were refused meanwhile.
func (l *limitListener) refused(remote net.Addr) {
	l.m.tcpRefused.Inc()
	l.unlogged++
	if now := time.Now(); now.Sub(l.lastLog) >= refuseLogEvery {
		l.log.Warn("refusing TCP connections: --max-tcp-connections are open (closed at accept; logged at most every 10s)",
			zap.Int64("max_tcp_connections", l.max), zap.Int("refused", l.unlogged), zap.Stringer("last_remote", remote))
		l.lastLog, l.unlogged = now, 0
	}
}

// countedConn is a connection counted by its limitListener until its
// first Close.
type countedConn struct {
	net.Conn
	l      *limitListener
	closed atomic.Bool
}

// Close closes the connection and gives its room back, once.
func (c *countedConn) Close() error {
	if c.closed.CompareAndSwap(false, true) {
		c.l.open.Add(-1)
		c.l.m.tcpConns.Dec()
	}
	return c.Conn.Close()
}

// CloseWrite half-closes the connection, when the one under it can: the
// HTTP server does so before it closes a connection whose request body
// it did not read.
func (c *countedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}
