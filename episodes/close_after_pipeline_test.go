package episodes_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// TestCloseAfterPipelinedRequests: a client that sends many requests and
// then its close frame, before it reads anything, gets the replies the
// server wrote before it answered the close, then the server's close
// frame: replies gathered for one write go out in order ahead of the
// close frame, and are not lost when the close ends the writing.
func TestCloseAfterPipelinedRequests(t *testing.T) {
	h := newHarness(t, options{})
	for try := range 10 {
		rc := h.raw()
		n := 2000 + 500*try
		for i := range n {
			rc.ws.WriteMessage(websocket.TextMessage, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"server.info"}`, i)))
		}
		rc.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(5*time.Second))
		rc.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
		got := 0
		var err error
		for {
			if _, _, err = rc.ws.ReadMessage(); err != nil {
				break
			}
			got++
		}
		var ce *websocket.CloseError
		if !errors.As(err, &ce) || ce.Code != websocket.CloseNormalClosure {
			t.Fatalf("try %d: %d of %d replies, then %v; want the server's close frame (1000)", try, got, n, err)
		}
	}
}
