package client

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// smallReadBuffer is the receiving socket's buffer in these tests (set
// before it reads, which turns the kernel's autotuning off), and
// blockedFrame is far larger than it and the sender's buffer (at most 4
// MiB by default on Linux), so a write of it stays in progress until the
// peer reads, whatever the machine's TCP tuning, and stays small enough
// to be written quickly under the race detector on a loaded machine.
const (
	smallReadBuffer = 64 << 10
	blockedFrame    = 16 << 20
)

// TestRepliesReadWhileAWriteWaits: while a frame waits for the server to
// read it, a ping from the server does not stop the client reading its
// replies.
func TestRepliesReadWhileAWriteWaits(t *testing.T) {
	ping, drain := make(chan struct{}), make(chan struct{})
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := (&websocket.Upgrader{}).Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		<-ping
		ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(10*time.Second))
		ws.WriteMessage(websocket.TextMessage, []byte(`{"jsonrpc":"2.0","id":7,"result":1}`))
		<-drain
		ws.SetReadLimit(2 * blockedFrame)
		for {
			if _, _, err := ws.ReadMessage(); err != nil {
				return
			}
		}
	}))
	hs.Config.ConnState = func(c net.Conn, st http.ConnState) {
		if st == http.StateNew {
			c.(*net.TCPConn).SetReadBuffer(smallReadBuffer)
		}
	}
	hs.Start()
	defer hs.Close()
	c, err := Dial(context.Background(), "ws"+strings.TrimPrefix(hs.URL, "http"), "")
	if err != nil {
		t.Fatal(err)
	}
	reply := make(chan *response, 1)
	c.mu.Lock()
	c.pending["7"] = reply
	c.mu.Unlock()
	before := c.conn.Writes()
	written := make(chan error, 1)
	go func() { written <- c.WriteRaw(bytes.Repeat([]byte{' '}, blockedFrame)) }()
	waitfor.Until(t, "the frame on the socket", func() bool { return c.conn.Writes() > before })
	close(ping)
	select {
	case r := <-reply:
		if string(r.Result) != "1" {
			t.Errorf("reply %s, want 1", r.Result)
		}
	case <-c.done:
		t.Fatalf("the connection ended while a write waited: %v", c.err)
	}
	close(drain)
	if err := <-written; err != nil {
		t.Errorf("the waiting write failed: %v", err)
	}
	c.Close()
}
