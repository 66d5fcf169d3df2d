package transport_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/schemas"
)

const (
	tcpOpen    = "sqlgym_tcp_connections"
	tcpRefused = "sqlgym_tcp_connections_refused_total"
	healthz    = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1"
	upgrade    = "GET /v1/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
		"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="
)

// TestIdleAndUnauthenticatedConnectionsAreClosed holds many connections
// open the ways a client that wants to exhaust the server's file
// descriptors would: keep-alive connections idle after a 401 or after
// /healthz, connections that send nothing or half a request, a request
// whose body never comes. The server closes each: at once after a 401,
// otherwise within its timeout (short here); none is left counted open.
func TestIdleAndUnauthenticatedConnectionsAreClosed(t *testing.T) {
	s := serve(t, transport.ServerConfig{Token: "s3cret", IdleConnTimeout: 100 * time.Millisecond, HeaderTimeout: 200 * time.Millisecond,
		PongWait: 300 * time.Millisecond})
	var conns []*rawConn
	for i := range 20 { // a 401, then idle on a keep-alive connection
		c := s.rawDial(t)
		head, body := upgrade, ""
		if i%2 == 0 {
			body = `{"jsonrpc":"2.0","id":1,"method":"tasks.list"}`
			head = fmt.Sprintf("POST /v1/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d", len(body))
		}
		if resp, _ := c.request(t, head, body); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("request without the token: %d, want 401", resp.StatusCode)
		}
		conns = append(conns, c)
	}
	for range 10 { // a 200, then idle
		c := s.rawDial(t)
		if resp, _ := c.request(t, healthz, ""); resp.StatusCode != http.StatusOK {
			t.Fatalf("/healthz: %d", resp.StatusCode)
		}
		conns = append(conns, c)
	}
	for i := range 12 { // nothing, half a request line, a request whose body never comes
		c := s.rawDial(t)
		switch i % 4 {
		case 1:
			c.Write([]byte("GET /heal"))
		case 2:
			head := "POST /v1/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000"
			if resp, _ := c.request(t, head, "{"); resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("request without the token: %d, want 401", resp.StatusCode)
			}
		case 3: // answered once the whole request's deadline has passed
			c.Write([]byte(healthz + "\r\nContent-Length: 1000\r\n\r\n{"))
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.closedByServer(t)
	}
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 0 })
}

// TestTCPConnectionsPastTheBoundAreRefused fills --max-tcp-connections
// with an episode's WebSocket, a keep-alive HTTP client and idle
// connections: one more connection is closed as soon as it is accepted,
// with no reply, counted and logged; the episode keeps stepping, the
// keep-alive client keeps getting /healthz and RPC replies, and once the
// idle connections go a new one is served again.
func TestTCPConnectionsPastTheBoundAreRefused(t *testing.T) {
	core, logs := observer.New(zap.WarnLevel)
	const bound = 6
	s := serve(t, transport.ServerConfig{MaxTCPConnections: bound, IdleConnTimeout: time.Hour, Logger: zap.New(core)})
	ctx := context.Background()
	honest := s.dial(t)
	ep, err := honest.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	if err != nil {
		t.Fatal(err)
	}
	var dials atomic.Int64
	keep := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	t.Cleanup(keep.CloseIdleConnections)
	get(t, keep, s.http+"/healthz")
	var idle []*rawConn
	for range bound - 2 {
		c := s.rawDial(t)
		c.request(t, healthz, "")
		idle = append(idle, c)
	}
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == bound })

	const past = 5
	for range past {
		c := s.rawDial(t)
		c.Write([]byte(healthz + "\r\n\r\n"))
		if got := c.closedByServer(t); got != "" {
			t.Fatalf("a connection past the bound got %q, want to be closed unanswered", got)
		}
	}
	s.waitMetric(t, tcpRefused, func(v float64) bool { return v == past })
	if n := logs.FilterMessageSnippet("refusing TCP connections").Len(); n < 1 || n >= past {
		t.Errorf("%d log lines for %d refused connections, want at least one and fewer than one each", n, past)
	}

	for i := range 3 {
		if _, err := honest.Step(ctx, ep.EpisodeID, client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": fmt.Sprintf("SELECT %d", i)})); err != nil {
			t.Fatalf("step on the open socket at the bound: %v", err)
		}
	}
	get(t, keep, s.http+"/healthz")
	resp, err := keep.Post(s.http+"/v1/rpc", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`))
	if err != nil {
		t.Fatalf("RPC on the open keep-alive connection at the bound: %v", err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || dials.Load() != 1 {
		t.Errorf("RPC at the bound: %d over %d connections, want 200 over the one kept alive", resp.StatusCode, dials.Load())
	}

	for _, c := range idle {
		c.Close()
	}
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 2 })
	if resp, _ := s.rawDial(t).request(t, healthz, ""); resp.StatusCode != http.StatusOK {
		t.Errorf("/healthz on a new connection below the bound: %d", resp.StatusCode)
	}
}

// TestSilentWebSocketIsClosedAndLeavesTheBound: an upgraded socket
// counts among the TCP connections, and one whose peer answers no ping
// (gone without a FIN, or holding the socket open) is closed after
// PongWait, which gives its room back.
func TestSilentWebSocketIsClosedAndLeavesTheBound(t *testing.T) {
	s := serve(t, transport.ServerConfig{PingInterval: 20 * time.Millisecond, PongWait: 100 * time.Millisecond})
	ws, _, err := websocket.DefaultDialer.Dial(s.ws, nil) // never read: pings stay unanswered
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 1 })
	s.waitMetric(t, "sqlgym_websocket_connections", func(v float64) bool { return v == 0 })
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 0 })
}

// get fetches url with c and fails the test unless it answers 200.
func get(t *testing.T, c *http.Client, url string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body) // read whole, the connection is kept alive
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
}

// TestHTTPClientThatReadsNoReplyIsClosed: a client that posts a request
// with a large reply and reads nothing (or is gone without a FIN) holds
// its connection only while each piece of the reply is taken within
// PongWait; then the server closes it.
func TestHTTPClientThatReadsNoReplyIsClosed(t *testing.T) {
	s := serve(t, transport.ServerConfig{PongWait: 200 * time.Millisecond, IdleConnTimeout: time.Hour})
	ctx := context.Background()
	honest := s.dial(t)
	ep, err := honest.Reset(ctx, schemas.ResetParams{TaskID: "t/count"})
	if err != nil {
		t.Fatal(err)
	}
	for range 4 { // episode.get's reply is then about 40 KB
		if _, err := honest.Step(ctx, ep.EpisodeID, client.ToolCall(schemas.ToolExecuteSQL,
			map[string]any{"sql": "SELECT '" + strings.Repeat("z", 8<<10) + "'"})); err != nil {
			t.Fatal(err)
		}
	}
	honest.Close()
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 0 })
	calls := make([]string, 250) // a 10 MB reply: more than the sockets' buffers hold
	for i := range calls {
		calls[i] = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.get","params":{"episode_id":%q}}`, i, ep.EpisodeID)
	}
	body := "[" + strings.Join(calls, ",") + "]"
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(c, "POST /v1/rpc HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 1 })
	s.waitMetric(t, tcpOpen, func(v float64) bool { return v == 0 })
}
