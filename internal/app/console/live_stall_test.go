package console

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestLivePageThatNeverReadsIsLetGo connects a live page that sends its
// request and then reads nothing, over a real socket, and pushes large
// updates: once the socket's buffers are full the write of an update
// passes its timeout, and the page's room is given back.
func TestLivePageThatNeverReadsIsLetGo(t *testing.T) {
	l := NewLive(LiveConfig{MaxSubscribers: 1, WriteTimeout: 50 * time.Millisecond})
	for i := 0; i < DefaultMaxLiveSeries; i++ { // large updates: many series of long values
		l.begin(fmt.Sprint(i), json.RawMessage(fmt.Sprintf(`{"run":"%s%d"}`, strings.Repeat("v", 1000), i)))
	}
	c := &Console{cfg: Config{Live: l}}
	AskAndNeverRead(t, http.HandlerFunc(c.events), "/ui/live/events?tag=run")
	waitfor.Until(t, "the page to subscribe", func() bool { return l.Subscribers() == 1 })
	now := time.Unix(1000, 0)
	waitfor.Until(t, "the page that never reads to be let go", func() bool {
		now = now.Add(time.Second)
		l.push(now)
		return l.Subscribers() == 0
	})
	if _, err := l.subscribe("run", "127.0.0.1"); err != nil {
		t.Fatalf("the room of the page let go was not given back: %v", err)
	}
}

// AskAndNeverRead serves h on a real socket and sends it a GET of path
// from a client that reads nothing of the answer, with a small receive
// buffer: a write of the answer blocks once the buffers are full. (For
// this package's external tests too.)
func AskAndNeverRead(t *testing.T, h http.Handler, path string) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.(*net.TCPConn).SetReadBuffer(4 << 10)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, srv.Listener.Addr())
}
