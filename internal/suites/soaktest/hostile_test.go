package soaktest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// neverEnds runs until its timeout.
const neverEnds = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"

// hostiles are the clients that try to exhaust the server or stall its
// other clients. Each stops by itself when the soak's context ends.
type hostiles struct {
	t   *testing.T
	url string
	// tagged is closed once the oversized tags had their first reply (or
	// gave up): the unfinished messages start then, so that their room in
	// --max-reading-bytes, held until --stall-timeout, cannot keep every
	// tags frame out for the whole soak.
	tagged     chan struct{}
	taggedOnce sync.Once
}

// tagsDone closes tagged once.
func (h *hostiles) tagsDone() { h.taggedOnce.Do(func() { close(h.tagged) }) }

// dial opens a raw socket; with small, its receive buffer is small so
// that not reading fills it soon. Its writes give up when ctx ends.
func (h *hostiles) dial(ctx context.Context, small bool) *websocket.Conn {
	d := websocket.Dialer{NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil && small {
			c.(*net.TCPConn).SetReadBuffer(4 << 10)
		}
		return c, err
	}}
	ws, _, err := d.DialContext(ctx, h.url, nil)
	if err != nil {
		h.t.Errorf("hostile dial: %v", err)
		return nil
	}
	deadline, _ := ctx.Deadline()
	ws.SetWriteDeadline(deadline)
	context.AfterFunc(ctx, func() { ws.Close() })
	return ws
}

func tasksList(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks.list","params":{"limit":10000}}`, id)
}

func batch(n int) []byte {
	items := make([]string, n)
	for i := range items {
		items[i] = tasksList(i)
	}
	return []byte("[" + strings.Join(items, ",") + "]")
}

// batches sends batches that would amplify a small frame into a huge
// reply: one past --max-batch, then full ones, reading every reply.
func (h *hostiles) batches(ctx context.Context) {
	ws := h.dial(ctx, false)
	if ws == nil {
		return
	}
	big, full := batch(3000), batch(1024)
	for i := 0; ctx.Err() == nil; i++ {
		frame := full
		if i == 0 {
			frame = big
		}
		if ws.WriteMessage(websocket.TextMessage, frame) != nil {
			return
		}
		_, reply, err := ws.ReadMessage()
		if err != nil {
			return
		}
		if len(reply) > 16<<20 {
			h.t.Errorf("a batch's reply of %d bytes, past the default --max-reply-bytes", len(reply))
		}
	}
}

// tags starts episodes with 3.5 MB of tags each.
func (h *hostiles) tags(ctx context.Context) {
	defer h.tagsDone()
	ws := h.dial(ctx, false)
	if ws == nil {
		return
	}
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"episode.reset","params":{"tags":{"pad":"` +
		strings.Repeat("t", 3500<<10) + `"}}}`)
	for i := range 20 {
		if err := ws.WriteMessage(websocket.TextMessage, frame); err != nil {
			h.t.Logf("the oversized tags stopped after %d resets: write: %v", i, err)
			return
		}
		var resp schemas.Response
		if _, reply, err := ws.ReadMessage(); err != nil || json.Unmarshal(reply, &resp) != nil {
			h.t.Logf("the oversized tags stopped after %d resets: read: %v", i, err)
			return
		}
		if resp.Error == nil || resp.Error.Code != schemas.CodeInvalidParams {
			h.t.Errorf("a reset with 3.5 MB of tags: %+v, want -32602", resp.Error)
		}
		h.tagsDone()
	}
}

// neverRead sends thousands of requests with large replies and reads
// nothing.
func (h *hostiles) neverRead(ctx context.Context) {
	ws := h.dial(ctx, true)
	if ws == nil {
		return
	}
	for i := range 3000 {
		if ws.WriteMessage(websocket.TextMessage, []byte(tasksList(i))) != nil {
			return // the server closed the socket, or the soak is over
		}
	}
}

// unfinishedMessages opens n sockets that each send 3.9 MiB of a message
// they never finish, answering the server's pings meanwhile.
func (h *hostiles) unfinishedMessages(ctx context.Context, n int) {
	select {
	case <-h.tagged:
	case <-ctx.Done():
		return
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			ws := h.dial(ctx, false)
			if ws == nil {
				return
			}
			wg.Go(func() {
				for {
					if _, _, err := ws.ReadMessage(); err != nil {
						return
					}
				}
			})
			w, err := ws.NextWriter(websocket.TextMessage)
			if err != nil {
				return
			}
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"server.info","params":{"x":"` + strings.Repeat("s", 3900<<10)))
		})
	}
	wg.Wait()
}

// runaways submits n never-ending queries on the task's database at once.
func (h *hostiles) runaways(ctx context.Context, task string, n int) {
	submitAll(ctx, h.t, h.url, task, neverEnds, n)
}

// submitAll submits sql in n episodes of the task at once, each waiting
// for its reply.
func submitAll(ctx context.Context, t *testing.T, url, task, sql string, n int) {
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Errorf("runaway dial: %v", err)
		return
	}
	defer c.Close()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task})
			if err != nil {
				return
			}
			c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": sql}))
		})
	}
	wg.Wait()
}

// checkTripped checks in /metrics that every bound the hostiles aim at
// was reached: the test did exercise what it claims to.
func (h *hostiles) checkTripped(srv *binserver.Process, readingPeak float64) {
	m := scrape(h.t, srv.HTTP()+"/metrics")
	m["sqlgym_reading_bytes"] = readingPeak
	for _, want := range []string{
		`sqlgym_rpc_errors_total{code="-32600"}`, // a batch past --max-batch
		`sqlgym_rpc_errors_total{code="-32003"}`, // replies past --max-reply-bytes
		`sqlgym_rpc_errors_total{code="-32602"}`, // tags past --max-tags-bytes
		`sqlgym_websocket_read_pauses_total`,     // backpressure at --max-conn-bytes
		`sqlgym_websocket_stalled_closes_total`,  // sockets that read nothing
		`sqlgym_reading_bytes`,                   // unfinished messages held room (its peak)
	} {
		if m[want] <= 0 {
			h.t.Errorf("%s = %v: the soak never reached that bound", want, m[want])
		}
	}
}

// scrape reads a Prometheus text page into name{labels} -> value; empty
// when the page cannot be had.
func scrape(t *testing.T, url string) map[string]float64 {
	out := map[string]float64{}
	resp, err := http.Get(url)
	if err != nil {
		t.Errorf("scrape %s: %v", url, err)
		return out
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			v, err := strconv.ParseFloat(line[i+1:], 64)
			if err == nil {
				out[line[:i]] = v
			}
		}
	}
	return out
}
