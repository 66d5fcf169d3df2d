package episodes_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

const infoFrame = `{"jsonrpc":"2.0","id":1,"method":"server.info"}`

// goroutinesIn counts the goroutines whose stack runs fn, a function as
// stack traces name it ("transport.(*wsConn).write").
func goroutinesIn(fn string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, fn+"(") {
			count++
		}
	}
	return count
}

// TestIdleSocketHoldsOnlyItsReader: once its reply is written, a socket
// keeps one goroutine, its reader. No writer waits for replies to come,
// and the HTTP server's goroutine of the upgrade, with what it held, has
// ended.
func TestIdleSocketHoldsOnlyItsReader(t *testing.T) {
	h := newHarness(t, options{})
	const sockets = 10
	for range sockets {
		h.raw().roundTrip(infoFrame)
	}
	waitfor.Until(t, "the writers to end", func() bool { return goroutinesIn("transport.(*wsConn).write") == 0 })
	if n := goroutinesIn("transport.(*wsConn).read"); n != sockets {
		t.Errorf("%d goroutines read for %d idle sockets; want one each", n, sockets)
	}
	if n := goroutinesIn("net/http.(*conn).serve"); n != 0 {
		t.Errorf("%d HTTP server goroutines for %d upgraded sockets; want none", n, sockets)
	}
}

// pingCounter reads a raw socket in the background (which runs the ping
// handler) and counts the pings it gets; the reading ends with the
// socket.
func pingCounter(rc *rawConn) *atomic.Int64 {
	var pings atomic.Int64
	rc.ws.SetPingHandler(func(string) error { pings.Add(1); return nil })
	go func() {
		for {
			if _, _, err := rc.ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	return &pings
}

// TestIdleSocketIsPinged: a socket with nothing to write still gets its
// pings, each from the timer, each time the server's clock, moved by
// hand, passes the ping interval.
func TestIdleSocketIsPinged(t *testing.T) {
	const interval = time.Hour
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.PingInterval, c.Clock = interval, clock
		c.PongWait = 10 * time.Second // the client need not answer
	}})
	rc := h.raw()
	rc.roundTrip(infoFrame)
	pings := pingCounter(rc)
	for i := range int64(3) {
		waitTimers(t, clock, 1) // the ping timer, set again before each ping is written
		if n := pings.Load(); n != i {
			t.Fatalf("%d pings before the clock passed the interval %d times", n, i)
		}
		clock.Advance(interval)
		waitfor.Until(t, fmt.Sprintf("ping %d on an idle socket", i+1), func() bool { return pings.Load() == i+1 })
	}
}

// TestRepliesAndPingsShareTheWriter: replies of many frames in flight,
// and pings made due while they are written, go out whole through
// writers started and ended again and again; none is lost.
func TestRepliesAndPingsShareTheWriter(t *testing.T) {
	const interval = time.Hour
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.PingInterval, c.Clock = interval, clock
		c.PongWait = 10 * time.Second
	}})
	rc := h.raw()
	var pings atomic.Int64
	rc.ws.SetPingHandler(func(string) error { pings.Add(1); return nil })
	const frames, rounds = 300, 20
	// A ping is made due at every 30th reply read, but the server may have
	// written a round's replies before the client reads them: rounds go
	// on, each checked whole, until a ping came during one (or the rounds
	// run out).
	for round := 0; round < rounds && pings.Load() == 0; round++ {
		repliesAndPings(t, rc.ws, frames, func(read int) {
			if read%30 == 0 {
				clock.Advance(interval)
			}
		})
	}
	if pings.Load() == 0 {
		t.Error("no ping came while the replies were written: the test did not mix them")
	}
}

// repliesAndPings sends frames server.info requests on ws at once and
// reads every reply, each once, calling onRead with the count read so
// far; the pings that come meanwhile go to the socket's ping handler.
func repliesAndPings(t *testing.T, ws *websocket.Conn, frames int, onRead func(read int)) {
	t.Helper()
	sent := make(chan error, 1)
	go func() {
		for i := range frames {
			f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"server.info"}`, i)
			if err := ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
				sent <- err
				return
			}
		}
		sent <- nil
	}()
	seen := map[string]bool{}
	ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	for len(seen) < frames {
		_, b, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("after %d of %d replies: %v", len(seen), frames, err)
		}
		_, rest, _ := strings.Cut(string(b), `"id":`)
		id, _, _ := strings.Cut(rest, ",")
		if !strings.Contains(string(b), `"result"`) || seen[id] {
			t.Fatalf("reply %d: %.200s", len(seen)+1, b)
		}
		seen[id] = true
		onRead(len(seen))
	}
	if err := <-sent; err != nil {
		t.Fatal(err)
	}
}

// TestShutdownClosesAnIdleSocket: Server.Close sends an idle socket the
// close frame 1001 (there is no writer to ask: one is started) and
// returns once the peer has answered it.
func TestShutdownClosesAnIdleSocket(t *testing.T) {
	h := newHarness(t, options{})
	rc := h.raw()
	rc.roundTrip(infoFrame)
	waitfor.Until(t, "the writer to end", func() bool { return goroutinesIn("transport.(*wsConn).write") == 0 })
	closed := make(chan error, 1)
	go func() {
		_, _, err := rc.ws.ReadMessage() // answers the close frame
		closed <- err
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.srv.Close(ctx); err != nil {
		t.Fatalf("Server.Close: %v", err)
	}
	var ce *websocket.CloseError
	if err := <-closed; !errors.As(err, &ce) || ce.Code != websocket.CloseGoingAway {
		t.Fatalf("an idle socket at shutdown: %v; want close 1001", err)
	}
	if n := metric(t, h.mgr.Metrics().Registry, "sqlgym_websocket_connections"); n != 0 {
		t.Errorf("%v connections open after Server.Close; want 0", n)
	}
}
