package corkconn

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
func flushingOn(c *Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.flushing
}

// TestWriteJoinsAFlushWithoutCuttingIt: while a flush waits for a peer
// that does not read, a write from another goroutine (a pong, written by
// the reading goroutine: a deadline, then a write) joins the buffer and
// returns at once, and its short deadline (here one already past) does
// not cut the flush short; the peer then gets the flush's bytes and the
// pong's, in that order, in two writes. Both ends of a gathering do so:
// Uncork with its own deadline, Flush with the writes' latest.
func TestWriteJoinsAFlushWithoutCuttingIt(t *testing.T) {
	for _, end := range []struct {
		name string
		run  func(c *Conn) error
	}{
		{"uncork", func(c *Conn) error { return c.Uncork(time.Now().Add(time.Minute)) }},
		{"flush", func(c *Conn) error { return c.Flush() }},
	} {
		t.Run(end.name, func(t *testing.T) {
			near, peer := net.Pipe() // a write blocks until the peer reads it
			defer peer.Close()
			c := New(near, 0)
			defer c.Close()
			flushes := 0
			c.SetOnFlush(func() { flushes++ })
			c.Cork()
			c.SetWriteDeadline(time.Now().Add(time.Minute))
			c.Write([]byte("reply-1;"))
			c.Write([]byte("reply-2;"))
			var wg sync.WaitGroup
			var flushErr error
			wg.Go(func() { flushErr = end.run(c) })
			waitfor.Until(t, "the flush on the socket", func() bool { return flushingOn(c) })
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
			if flushes != 2 || c.Writes() != 2 {
				t.Errorf("%d flushes counted, %d writes; want 2 of each (the replies, then the pong that joined)", flushes, c.Writes())
			}
		})
	}
}

// TestGatheringPassesMax: a gathering that would pass max is sent by the
// write that would pass it, uncorked writes go straight through, and no
// buffer is held once the gathering is sent.
func TestGatheringPassesMax(t *testing.T) {
	near, peer := net.Pipe()
	defer peer.Close()
	const max = 64 << 10
	c := New(near, max)
	got := make(chan []byte, 1)
	go func() { b, _ := io.ReadAll(peer); got <- b }()
	big := bytes.Repeat([]byte("x"), max-10)
	c.Cork()
	c.Write(big)
	c.Write([]byte("0123456789abc")) // passes max: big goes first
	if err := c.Uncork(time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("direct"))
	c.Close()
	want := append(append(big, "0123456789abc"...), "direct"...)
	if b := <-got; !bytes.Equal(b, want) {
		t.Errorf("the peer read %d bytes, want %d in order", len(b), len(want))
	}
	if c.Writes() != 3 {
		t.Errorf("%d writes, want 3: big, what passed max, the direct one", c.Writes())
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.buf != nil || c.corked || c.flushing {
		t.Errorf("after uncork: buf %v, corked %v, flushing %v; want no buffer held", c.buf != nil, c.corked, c.flushing)
	}
}

// model is what a Conn should have done after each operation: the bytes
// the peer gets, in order, and the write(2) calls made.
type model struct {
	max      int
	corked   bool
	gathered int // bytes in the buffer
	writes   int64
	sent     []byte
}

// write is what a Write of p does: through, or into the buffer, which a
// write that would pass max sends first.
func (m *model) write(p []byte) {
	m.sent = append(m.sent, p...)
	if !m.corked {
		m.writes++
		return
	}
	if m.max > 0 && m.gathered > 0 && m.gathered+len(p) > m.max {
		m.writes++
		m.gathered = 0
	}
	m.gathered += len(p)
}

// flush is what Uncork and Flush do: one write of what gathered, if any.
func (m *model) flush() {
	if m.gathered > 0 {
		m.writes++
	}
	m.gathered, m.corked = 0, false
}

// FuzzCork runs a sequence of writes, corks, uncorks, flushes and
// deadlines on a Conn over a pipe, against the model: the peer reads
// every byte written, in order; a gathering within max goes out in one
// write(2) at its uncork or flush, and nothing before it; one that would
// pass max is sent by the write that would pass it; no buffer is held
// after a flush.
func FuzzCork(f *testing.F) {
	f.Add(uint16(64), []byte{1, 0 + 5*3, 0 + 5*4, 2, 0 + 5*7})
	f.Add(uint16(0), []byte{1, 5, 10, 4, 15, 3, 0, 1, 2})
	f.Add(uint16(100), []byte{1, 5 * 40, 5 * 40, 5 * 40, 3, 5 * 50, 1, 4, 5 * 51, 2})
	f.Fuzz(func(t *testing.T, max uint16, ops []byte) {
		near, peer := net.Pipe()
		defer peer.Close()
		got := make(chan []byte, 1)
		go func() { b, _ := io.ReadAll(peer); got <- b }()
		m := &model{max: int(max % 4096)}
		c := New(near, m.max)
		for i, op := range ops {
			if err := step(c, m, op, i); err != nil {
				t.Fatalf("op %d (%d): %v", i, op, err)
			}
			if c.Writes() != m.writes {
				t.Fatalf("after op %d (%d): %d writes, want %d", i, op, c.Writes(), m.writes)
			}
		}
		if err := c.Flush(); err != nil {
			t.Fatal(err)
		}
		m.flush()
		c.Close()
		if b := <-got; !bytes.Equal(b, m.sent) {
			t.Fatalf("the peer read %d bytes, want the %d written, in order", len(b), len(m.sent))
		}
		if c.buf != nil || c.Writes() != m.writes {
			t.Fatalf("after the last flush: a buffer held %v, %d writes (want %d)", c.buf != nil, c.Writes(), m.writes)
		}
	})
}

// step does op on c and on the model: its low byte's remainder by 5 is
// the operation, the rest a write's size in 97-byte units.
func step(c *Conn, m *model, op byte, i int) error {
	switch op % 5 {
	case 0:
		p := bytes.Repeat([]byte{'a' + byte(i%26)}, 97*int(op/5)+1)
		m.write(p)
		n, err := c.Write(p)
		if err == nil && n != len(p) {
			return io.ErrShortWrite
		}
		return err
	case 1:
		c.Cork()
		m.corked = true
	case 2:
		m.flush()
		return c.Uncork(time.Now().Add(time.Minute))
	case 3:
		m.flush()
		return c.Flush()
	case 4:
		if op/5%2 == 0 {
			return c.SetWriteDeadline(time.Time{})
		}
		return c.SetWriteDeadline(time.Now().Add(time.Minute))
	}
	return nil
}
