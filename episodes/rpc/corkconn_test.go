package rpc

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// flushingOn reports whether a flush is on c's socket.
func flushingOn(c *corkConn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flushing
}

// TestCorkJoinsAFlushWithoutCuttingIt: while a flush waits for a peer
// that does not read, a write from another goroutine (gorilla's pong, on
// the reader) joins the buffer and returns at once, and its short
// deadline (here one already past) does not cut the flush short; the
// peer then gets the flush's bytes and the pong's, in that order.
func TestCorkJoinsAFlushWithoutCuttingIt(t *testing.T) {
	server, peer := net.Pipe() // a write blocks until the peer reads it
	defer peer.Close()
	c := &corkConn{Conn: server}
	defer c.Close()
	flushes := 0
	c.onFlush = func() { flushes++ }
	c.cork()
	c.Write([]byte("reply-1;"))
	c.Write([]byte("reply-2;"))
	var wg sync.WaitGroup
	var flushErr error
	wg.Go(func() { flushErr = c.uncork(time.Now().Add(time.Minute)) })
	if !waitfor.Within(waitfor.Timeout, func() bool { return flushingOn(c) }) {
		t.Fatal("the flush never started")
	}
	c.SetWriteDeadline(time.Now().Add(-time.Second)) // a pong's deadline, already past
	if n, err := c.Write([]byte("pong;")); n != 5 || err != nil {
		t.Fatalf("a write during a flush = %d, %v; want it taken at once", n, err)
	}
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(peer); got <- b }()
	wg.Wait()
	if flushErr != nil {
		t.Fatalf("flush: %v; a deadline asked for during it must not cut it short", flushErr)
	}
	c.Close()
	if b := <-got; !bytes.Equal(b, []byte("reply-1;reply-2;pong;")) {
		t.Errorf("the peer read %q, want the replies then the pong", b)
	}
	if flushes != 2 {
		t.Errorf("%d writes counted, want 2 (the replies, then the pong that joined)", flushes)
	}
}

// TestCorkPassesCorkMax: a gathering that would pass corkMax is sent by
// the write that would pass it, and uncorked writes go straight through.
func TestCorkPassesCorkMax(t *testing.T) {
	server, peer := net.Pipe()
	defer peer.Close()
	c := &corkConn{Conn: server}
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(peer); got <- b }()
	big := bytes.Repeat([]byte("x"), corkMax-10)
	c.cork()
	c.Write(big)
	c.Write([]byte("0123456789abc")) // passes corkMax: big goes first
	if err := c.uncork(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("direct"))
	c.Close()
	want := append(append(big, "0123456789abc"...), "direct"...)
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("the peer read %d bytes, want %d in order", len(b), len(want))
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf != nil || c.corked || c.flushing {
		t.Errorf("after uncork: buf %v, corked %v, flushing %v; want no buffer held", c.buf != nil, c.corked, c.flushing)
	}
}
