package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// echoServer is a WebSocket JSON-RPC server that answers every request
// with its params as the result. When ping is not nil it sends a ping
// after the first request and reports on it when the client's pong comes.
func echoServer(t *testing.T, ping chan<- struct{}) string {
	t.Helper()
	up := websocket.Upgrader{}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer ws.Close()
		var wmu sync.Mutex
		ws.SetPongHandler(func(string) error { ping <- struct{}{}; return nil })
		for first := true; ; first = false {
			_, frame, err := ws.ReadMessage()
			if err != nil {
				return
			}
			var req struct {
				ID     json.RawMessage `json:"id"`
				Params json.RawMessage `json:"params"`
			}
			if json.Unmarshal(frame, &req) != nil {
				return
			}
			wmu.Lock()
			if first && ping != nil {
				ws.WriteControl(websocket.PingMessage, nil, time.Now().Add(time.Second))
			}
			ws.WriteMessage(websocket.TextMessage, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":%s}`, req.ID, req.Params))
			wmu.Unlock()
		}
	}))
	t.Cleanup(hs.Close)
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}

// TestCallsAtOnceShareWrites: calls whose frames wait to be written
// while another is written all get their own answer, and their frames go
// out together. The test holds the write lock until every caller waits
// for it, so that they do wait, whatever the scheduler does.
func TestCallsAtOnceShareWrites(t *testing.T) {
	c, err := Dial(context.Background(), echoServer(t, nil), "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const callers = 64
	before := c.conn.Writes()
	c.wmu.Lock()
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for g := range callers {
		wg.Go(func() {
			var got struct{ N int }
			if err := c.Call(context.Background(), "echo", map[string]int{"n": g}, &got); err != nil {
				errs <- err
			} else if got.N != g {
				errs <- fmt.Errorf("caller %d got the answer %+v", g, got)
			}
		})
	}
	waitfor.Until(t, "every caller waiting to write", func() bool { return c.waiting.Load() == callers })
	c.wmu.Unlock()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if writes := c.conn.Writes() - before; writes != 1 {
		t.Errorf("%d frames waiting together took %d writes, want 1", callers, writes)
	}
}

// TestPongsAreNotHeld: a ping from the server is answered, whether it
// comes while the client is idle or while calls are being written.
func TestPongsAreNotHeld(t *testing.T) {
	pongs := make(chan struct{}, 1)
	c, err := Dial(context.Background(), echoServer(t, pongs), "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Call(context.Background(), "echo", map[string]int{}, nil); err != nil {
		t.Fatal(err)
	}
	// The client's reading goroutine answers the ping: nothing else is
	// written, so nothing but the pong itself can send it.
	select {
	case <-pongs:
	case <-time.After(10 * time.Second):
		t.Fatal("no pong within 10 s of the ping")
	}
}
