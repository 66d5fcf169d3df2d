package episodes_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
	"github.com/sqlgym/sqlgym/schemas"
)

// resetN starts n episodes on rc, one after another.
func resetN(t *testing.T, rc *rawConn, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		var r struct{ Result schemas.ResetResult }
		json.Unmarshal(rc.roundTrip(fmt.Sprintf(`{"jsonrpc":"2.0","id":"r%d","method":"episode.reset","params":{"task_id":"t/count"}}`, i)), &r)
		if r.Result.EpisodeID == "" {
			t.Fatalf("reset %d started no episode", i)
		}
		ids = append(ids, r.Result.EpisodeID)
	}
	return ids
}

// readID reads a reply on rc and returns its id.
func readID(t *testing.T, rc *rawConn) int {
	t.Helper()
	rc.ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, b, err := rc.ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		ID    int            `json:"id"`
		Error *schemas.Error `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil || r.Error != nil {
		t.Fatalf("reply %s: %v", b, err)
	}
	return r.ID
}

// TestRepliesGathered: steps running on one socket at once have their
// replies sent together, in fewer writes than replies, and every reply
// arrives. The gathering timer is on a clock nobody moves: the replies
// wait for each other, never for it.
func TestRepliesGathered(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.ReplyDelay, c.Clock = time.Minute, clockwork.NewFakeClock()
	}})
	reg := h.mgr.Metrics().Registry
	rc := h.raw()
	const n = 4
	ids := resetN(t, rc, n)
	replies := waitMetric(t, reg, "sqlgym_websocket_replies_total", func(v float64) bool { return v >= n })
	flushes := metric(t, reg, "sqlgym_websocket_flushes_total")
	for i, id := range ids { // each runs until the statement timeout, all at once
		rc.sendStep(i, id, neverEnds)
	}
	seen := map[int]bool{}
	for range n {
		seen[readID(t, rc)] = true
	}
	if len(seen) != n {
		t.Fatalf("replies to %v, want one to each of %d steps", seen, n)
	}
	if r := metric(t, reg, "sqlgym_websocket_replies_total"); r != replies+n {
		t.Errorf("%v replies counted, want %v", r-replies, n)
	}
	if f := metric(t, reg, "sqlgym_websocket_flushes_total") - flushes; f < 1 || f >= n {
		t.Errorf("%d replies of steps that ran together took %v writes, want fewer", n, f)
	}
}

// TestReplyDelayBound: a reply waits for those of the other steps its
// socket runs no longer than the reply delay: a quick step's reply comes
// while a slow step on the same socket still runs, once the server's
// clock, moved by hand, has passed the delay.
func TestReplyDelayBound(t *testing.T) {
	const delay = time.Minute
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{
		server: func(c *transport.ServerConfig) { c.ReplyDelay, c.Clock = delay, clock },
		// The slow step must outlast the few steps of real time between its
		// start and the quick reply; the test waits it out at the end.
		engines: func(e *stack.EngineConfig) { e.Runner.QueryTimeout = 2 * time.Second },
	})
	reg := h.mgr.Metrics().Registry
	rc := h.raw()
	ids := resetN(t, rc, 2)
	rc.sendStep(1, ids[0], neverEnds)
	waitMetric(t, reg, "sqlgym_steps_running", func(v float64) bool { return v == 1 })
	rc.sendStep(2, ids[1], "SELECT count(*) FROM items")
	waitTimers(t, clock, 2) // the socket's ping timer, and its gathering timer once the quick reply waits
	clock.Advance(delay)
	if id := readID(t, rc); id != 2 {
		t.Fatalf("first reply is to step %d, want the quick step 2", id)
	}
	if running := metric(t, reg, "sqlgym_steps_running"); running != 1 {
		t.Errorf("%v steps running when the quick step's reply came, want the slow one still running", running)
	}
}

// waitTimers waits until n timers are set on clock.
func waitTimers(t *testing.T, clock *clockwork.FakeClock, n int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), waitfor.Timeout)
	defer cancel()
	if err := clock.BlockUntilContext(ctx, n); err != nil {
		t.Fatalf("waiting for %d timers on the server's clock: %v", n, err)
	}
}
