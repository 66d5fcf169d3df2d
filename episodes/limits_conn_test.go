package episodes_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// bigEpisode starts an episode with four 10 KB steps, so that its
// episode.get reply is about 128 KB.
func bigEpisode(t *testing.T, c *client.Client) string {
	t.Helper()
	ep := reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID
	for range 4 {
		step(t, c, ep, execSQL("SELECT '"+strings.Repeat("z", 10<<10)+"'"))
	}
	return ep
}

// dialConn opens a raw socket over the TCP connection wrap makes.
func dialConn(t *testing.T, url string, wrap func(*net.TCPConn) net.Conn) *websocket.Conn {
	t.Helper()
	d := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wrap(c.(*net.TCPConn)), nil
	}}
	ws, _, err := d.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

func sendGets(t *testing.T, ws *websocket.Conn, ep string, n int) {
	t.Helper()
	for i := range n {
		f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.get","params":{"episode_id":%q}}`, i, ep)
		if err := ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
			return // the server closed the socket: that is what the test waits for
		}
	}
}

// TestClientThatNeverReadsIsClosed: a socket that sends requests and
// reads nothing holds at most --max-conn-bytes of replies; once they have
// waited with nothing written for --stall-timeout, the server closes it
// with a log line, and a client on another socket notices nothing. The
// server's clock is moved by hand, a quarter of the stall timeout at a
// time (the period of the stall check), until the socket is closed.
func TestClientThatNeverReadsIsClosed(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.MaxConnBytes = 256 << 10
		c.StallTimeout, c.Clock = transport.DefaultStallTimeout, clock
		c.PingInterval = 1000 * time.Hour // no ping comes while the clock moves
		c.Logger = zap.New(core)
	}})
	honest := h.dial()
	ep := bigEpisode(t, honest)
	attacker := dialConn(t, h.url, func(c *net.TCPConn) net.Conn {
		c.SetReadBuffer(4 << 10) // a client that does not read fills it soon
		return c
	})
	go sendGets(t, attacker, ep, 2000)
	reg := h.mgr.Metrics().Registry
	waitfor.Until(t, "the stalled socket to be closed", func() bool {
		clock.Advance(transport.DefaultStallTimeout / 4)
		return metric(t, reg, "sqlgym_websocket_stalled_closes_total") == 1
	})
	if got := logs.FilterMessage("closing a connection whose client reads nothing").Len(); got != 1 {
		t.Fatalf("%d log lines about the stalled client, want 1", got)
	}
	if r := step(t, honest, reset(t, honest, schemas.ResetParams{TaskID: "t/count"}).EpisodeID, execSQL("SELECT 1")); r.Info.Error != nil {
		t.Fatalf("a client on another socket: %+v", r.Info.Error)
	}
	waitMetric(t, reg, "sqlgym_websocket_connections", func(v float64) bool { return v == 1 })
}

// slowConn hands its reader at most 1 KiB per read: a client that reads,
// but slowly.
type slowConn struct{ net.Conn }

func (c slowConn) Read(b []byte) (int, error) { return c.Conn.Read(b[:min(len(b), 1<<10)]) }

// TestBusyReaderIsNeverDropped: a client that keeps reading, however far
// behind, is pushed back but never closed. It keeps 60 requests in
// flight, each with a reply larger than --max-conn-bytes: 7.7 MB, more
// than the kernel's socket buffers take.
func TestBusyReaderIsNeverDropped(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.MaxConnBytes = 64 << 10 // less than one reply (about 128 KB)
		c.StallTimeout = transport.DefaultStallTimeout
	}})
	ep := bigEpisode(t, h.dial())
	ws := dialConn(t, h.url, func(c *net.TCPConn) net.Conn {
		c.SetReadBuffer(256 << 10)
		return slowConn{c}
	})
	const n, window = 150, 60
	get := func(i int) {
		f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.get","params":{"episode_id":%q}}`, i, ep)
		if err := ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for i := range window {
		get(i)
	}
	ws.SetReadDeadline(time.Now().Add(60 * time.Second))
	for i := range n {
		_, b, err := ws.ReadMessage()
		if err != nil {
			t.Fatalf("reply %d of %d: %v", i+1, n, err)
		}
		var v any
		json.Unmarshal(b, &v) // busy with each reply, as a trainer is
		if i+window < n {
			get(i + window)
		}
	}
	reg := h.mgr.Metrics().Registry
	if v := metric(t, reg, "sqlgym_websocket_stalled_closes_total"); v != 0 {
		t.Fatalf("%v reading clients closed as stalled", v)
	}
	if v := metric(t, reg, "sqlgym_websocket_read_pauses_total"); v == 0 {
		t.Fatal("the server never paused reading: the test did not reach --max-conn-bytes")
	}
}

// startMessage sends the first part of a message and never finishes it;
// it answers the server's pings (its read loop), as a live peer does.
func startMessage(t *testing.T, url string, size int) (closed <-chan error) {
	t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	w, err := ws.NextWriter(websocket.TextMessage)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"server.info","params":{"x":"` + strings.Repeat("a", size)))
	done := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				done <- err
				return
			}
		}
	}()
	return done
}

// TestUnfinishedMessageIsCutAtItsDeadline: a message must arrive whole
// within the read deadline however many pongs come meanwhile; the server
// then closes the socket with 1008.
func TestUnfinishedMessageIsCutAtItsDeadline(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.PingInterval = 50 * time.Millisecond
		c.PongWait = 500 * time.Millisecond
	}})
	closed := startMessage(t, h.url, 200<<10)
	select {
	case err := <-closed:
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.ClosePolicyViolation {
			t.Fatalf("the socket ended with %v, want close code 1008", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a message left unfinished for 30 s (the read deadline is 0.5 s) still holds its socket open")
	}
	waitMetric(t, h.mgr.Metrics().Registry, "sqlgym_websocket_slow_message_closes_total", func(v float64) bool { return v == 1 })
}

// TestUnfinishedMessagesShareABoundedBudget: the bytes of messages being
// received, over every socket, stay within --max-reading-bytes. A small
// request is answered at once, while the unfinished messages still hold
// the budget; a large one waits for room and is answered once they are
// cut.
func TestUnfinishedMessagesShareABoundedBudget(t *testing.T) {
	const budget = 1 << 20
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.MaxFrameBytes = 256 << 10
		c.MaxReadingBytes = budget
		c.PingInterval = 100 * time.Millisecond
		// The unfinished messages are cut PongWait after they began: long
		// enough for the small request to be answered first on a loaded
		// machine, and what the large one waits for.
		c.PongWait = 5 * time.Second
	}})
	reg := h.mgr.Metrics().Registry
	for range 8 {
		startMessage(t, h.url, 200<<10)
	}
	waitMetric(t, reg, "sqlgym_reading_bytes", func(v float64) bool { return v > budget/2 })
	var wg sync.WaitGroup
	var peak float64
	stop := make(chan struct{})
	wg.Go(func() { // samples the budget in use until the requests are answered
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, metric(t, reg, "sqlgym_reading_bytes"))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	stopSampling := sync.OnceFunc(func() { close(stop); wg.Wait() })
	defer stopSampling()
	honest := h.dial()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ep, smallErr := honest.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	cutBefore := metric(t, reg, "sqlgym_websocket_slow_message_closes_total")
	if smallErr != nil || cutBefore != 0 {
		t.Fatalf("a small request among unfinished messages: %v, answered after %v of them were cut; want at once", smallErr, cutBefore)
	}
	_, largeErr := honest.Step(ctx, ep.EpisodeID, execSQL("SELECT '"+strings.Repeat("p", 120<<10)+"'"))
	stopSampling()
	if largeErr != nil {
		t.Fatalf("a 120 KB request while unfinished messages hold the budget: %v", largeErr)
	}
	if peak > budget {
		t.Fatalf("%v bytes of messages being received, past --max-reading-bytes %d", peak, budget)
	}
}

// TestConnectionsPastTheLimitAreRefused: past --max-connections a
// WebSocket upgrade or an HTTP request gets 503 saying why.
func TestConnectionsPastTheLimitAreRefused(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) { c.MaxConnections = 2 }})
	a := h.dial()
	h.dial()
	_, resp, err := websocket.DefaultDialer.Dial(h.url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third socket: %v, want 503", err)
	}
	hr, err := http.Post(h.hs.URL+"/v1/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`))
	if err != nil || hr.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("an HTTP request at the limit: %v %v, want 503", hr.Status, err)
	}
	hr.Body.Close()
	a.Close()
	waitMetric(t, h.mgr.Metrics().Registry, "sqlgym_websocket_connections", func(v float64) bool { return v == 1 })
	h.dial()
}
