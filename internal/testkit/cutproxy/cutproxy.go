// Package cutproxy is a TCP proxy for tests of clients that resume: it
// relays each connection to the first of its backends that accepts it,
// as a load balancer with backup servers does (Retarget changes them), cuts every
// connection through it at once (Cut), as a replica that dies or a
// network that fails would, while the client goes on dialling the same
// address, and holds the backend's bytes back (Hold) so that a reply the
// server sent is lost with the connection.
package cutproxy

import (
	"net"
	"strings"
	"sync"
	"testing"
)

// Proxy relays the connections made to Addr to its backend.
type Proxy struct {
	ln net.Listener

	mu       sync.Mutex // guards backends, conns, accepted, closed and held
	backends []string
	closed   bool
	held     chan struct{} // while not nil, bytes from the backend wait for it to close
	conns    map[net.Conn]bool
	// accepted counts the connections relayed.
	accepted int
	wg       sync.WaitGroup // the accept loop and every relay
}

// Start listens on a free loopback port and relays each connection to
// the first of the backends (host:port) that accepts it; it is closed
// when the test ends.
func Start(tb testing.TB, backends ...string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, backends: backends, conns: map[net.Conn]bool{}}
	p.wg.Add(1)
	go p.accept()
	tb.Cleanup(p.Close)
	return p
}

// Addr is where clients connect: 127.0.0.1:PORT.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL is u (ws://HOST:PORT/...) with its host and port made the proxy's.
func (p *Proxy) URL(u string) string {
	scheme, rest, _ := strings.Cut(u, "://")
	_, path, _ := strings.Cut(rest, "/")
	return scheme + "://" + p.Addr() + "/" + path
}

// HostPort is the HOST:PORT of a URL such as ws://HOST:PORT/v1/ws: what
// Start takes as a backend.
func HostPort(u string) string {
	_, rest, _ := strings.Cut(u, "://")
	host, _, _ := strings.Cut(rest, "/")
	return host
}

// Accepted is how many connections the proxy has relayed.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Retarget sends the connections made from now on to the backends.
func (p *Proxy) Retarget(backends ...string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backends = backends
}

// dial connects to the first backend that accepts.
func (p *Proxy) dial() (net.Conn, error) {
	p.mu.Lock()
	backends := p.backends
	p.mu.Unlock()
	err := net.ErrClosed
	for _, b := range backends {
		var up net.Conn
		if up, err = net.Dial("tcp", b); err == nil {
			return up, nil
		}
	}
	return nil, err
}

// Hold keeps the bytes the backend sends from the clients until Release.
func (p *Proxy) Hold() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = make(chan struct{})
	}
}

// Release lets the backend's bytes through again.
func (p *Proxy) Release() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held != nil {
		close(p.held)
		p.held = nil
	}
}

// gate waits while the backend's bytes are held.
func (p *Proxy) gate() {
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	if held != nil {
		<-held
	}
}

// Cut closes every connection through the proxy, both ends.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// Close stops listening, cuts every connection and waits for the relays
// to end.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
	p.Cut()
	p.Release()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := p.dial()
		if err != nil {
			c.Close() // no backend: the client sees its connection end, as behind a balancer with none
			continue
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			up.Close()
			return
		}
		p.conns[c], p.conns[up] = true, true
		p.accepted++
		p.mu.Unlock()
		p.wg.Add(2)
		go p.relay(up, c, false)
		go p.relay(c, up, true)
	}
}

// relay copies from src to dst until either ends, then closes both;
// fromBackend's bytes wait while they are held.
func (p *Proxy) relay(dst, src net.Conn, fromBackend bool) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if fromBackend {
				p.gate()
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	p.mu.Lock()
	delete(p.conns, src)
	delete(p.conns, dst)
	p.mu.Unlock()
	src.Close()
	dst.Close()
}
