package client

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestStreamWritesTogether: frames given to one Write go out in one
// system call, and each reply is read whole, in order, from the buffer
// the next Read reuses.
func TestStreamWritesTogether(t *testing.T) {
	url := echoServer(t, nil)
	s, err := DialStream(context.Background(), url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Abort()
	big := strings.Repeat("x", 3*readBufferSize) // a reply larger than the read buffer
	var frames [][]byte
	for i, v := range []string{"a", big, "c"} {
		frames = append(frames, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"m","params":"%s"}`, i, v))
	}
	before := s.conn.Writes()
	if err := s.Write(frames...); err != nil {
		t.Fatal(err)
	}
	if n := s.conn.Writes() - before; n != 1 {
		t.Errorf("3 frames took %d writes, want 1", n)
	}
	for i, v := range []string{"a", big, "c"} {
		got, err := s.Read()
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":"%s"}`, i, v)
		if string(got) != want {
			t.Fatalf("reply %d: got %.80q (%d bytes), want %.80q (%d bytes)", i, got, len(got), want, len(want))
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if _, err := s.Read(); err == nil {
		t.Error("Read after Close: no error, want the end of the stream")
	}
}
