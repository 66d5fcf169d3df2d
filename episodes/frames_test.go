package episodes_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/transport"
)

// TestOversizedFrameClosesTheSocket checks what docs/protocol.md promises:
// a frame over the limit ends the connection with close code 1009, and
// other connections go on.
func TestOversizedFrameClosesTheSocket(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) { c.MaxFrameBytes = 1024 }})
	rc := h.raw()
	big := `{"jsonrpc":"2.0","id":1,"method":"server.info","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	if err := rc.ws.WriteMessage(websocket.TextMessage, []byte(big)); err != nil {
		t.Fatal(err)
	}
	rc.ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := rc.ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseMessageTooBig {
		t.Fatalf("after an oversized frame: %v, want close 1009", err)
	}
	if b := h.raw().roundTrip(`{"jsonrpc":"2.0","id":2,"method":"server.info"}`); !strings.Contains(string(b), "sqlgym/1") {
		t.Errorf("another socket after the oversized frame: %s", b)
	}
}
