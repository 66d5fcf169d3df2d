package client

import (
	"bytes"
	"context"
	"io"
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

// tcpPair returns the two ends of a loopback TCP connection.
func tcpPair(t *testing.T) (near, far net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	near, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	far = <-accepted
	if far == nil {
		t.Fatal("accept failed")
	}
	if err := far.(*net.TCPConn).SetReadBuffer(smallReadBuffer); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { near.Close(); far.Close() })
	return near, far
}

// TestControlWriteDuringAFlush: a control frame written while a flush is
// on the socket (gorilla's pong, from the reading goroutine: a deadline,
// then a write) neither waits for the flush nor cuts it short, and goes
// out after it.
func TestControlWriteDuringAFlush(t *testing.T) {
	near, far := tcpPair(t)
	b := &batchConn{Conn: near}
	frame := bytes.Repeat([]byte{'f'}, blockedFrame)
	b.holdWrites()
	b.SetWriteDeadline(time.Now().Add(time.Minute))
	b.Write(frame)
	flushed := make(chan error, 1)
	go func() { flushed <- b.flush() }()
	if _, err := io.ReadFull(far, make([]byte, 1)); err != nil { // the flush is on the socket
		t.Fatal(err)
	}
	pong := []byte("pong")
	wrote := make(chan error, 1)
	go func() {
		b.SetWriteDeadline(time.Now()) // a deadline that has passed: it must not apply to the flush
		_, err := b.Write(pong)
		wrote <- err
	}()
	var werr error
	if !waitfor.Within(waitfor.Timeout, func() bool {
		select {
		case werr = <-wrote:
			return true
		default:
			return false
		}
	}) {
		t.Fatal("a control write waited for the flush on the socket")
	}
	if werr != nil {
		t.Fatalf("control write: %v", werr)
	}
	rest := make(chan []byte, 1)
	go func() {
		got, _ := io.ReadAll(io.LimitReader(far, int64(len(frame)-1+len(pong))))
		rest <- got
	}()
	if err := <-flushed; err != nil {
		t.Fatalf("the flush failed: %v", err)
	}
	got := <-rest
	if len(got) != len(frame)-1+len(pong) || !bytes.Equal(got[len(got)-len(pong):], pong) {
		t.Fatalf("read %d bytes ending %q; want the frame, then the pong", len(got), got[max(0, len(got)-8):])
	}
}

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
	before := c.conn.writes.Load()
	written := make(chan error, 1)
	go func() { written <- c.WriteRaw(bytes.Repeat([]byte{' '}, blockedFrame)) }()
	waitfor.Until(t, "the frame on the socket", func() bool { return c.conn.writes.Load() > before })
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
