package episodes_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/schemas"
)

// neverEnds runs until the query timeout (1 s in the harness).
const neverEnds = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n+1 FROM r) SELECT count(*) FROM r"

// sendStep writes an execute_sql step of episode ep on a raw socket.
func (r *rawConn) sendStep(id int, ep, sql string) {
	r.t.Helper()
	f := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"episode.step","params":{"episode_id":%q,"action":{"tool":"execute_sql","arguments":{"sql":%q}}}}`, id, ep, sql)
	if err := r.ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
		r.t.Fatal(err)
	}
}

// throttled is the server of throttledDrop: one frame in flight per
// socket, and pings often enough that a socket whose client went away
// fails a write at once; a live client slowed by a loaded machine still
// has long to answer them.
func throttled(c *transport.ServerConfig) {
	c.MaxInFlight = 1
	c.PingInterval = 50 * time.Millisecond
	c.PongWait = 10 * time.Second
}

// throttledDrop sets up the case where a frame is sent while its
// socket's one slot (MaxInFlight 1) is taken by a step that runs for the
// query timeout, and its client goes away before that step ends. It
// returns the episode of that frame.
func throttledDrop(t *testing.T, h *harness, c *client.Client) string {
	t.Helper()
	slow := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	victim := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	running := metric(t, h.mgr.Metrics().Registry, "sqlgym_steps_running")
	rc := h.raw()
	rc.sendStep(1, slow.EpisodeID, neverEnds)
	// Once the slow step runs, its frame holds the socket's only slot
	// until it ends, so the next frame waits for the slot.
	waitMetric(t, h.mgr.Metrics().Registry, "sqlgym_steps_running", func(v float64) bool { return v > running })
	rc.sendStep(2, victim.EpisodeID, "SELECT 1")
	if err := rc.ws.UnderlyingConn().Close(); err != nil {
		t.Fatal(err)
	}
	return victim.EpisodeID
}

// TestDroppedSocketNeverWedgesAnEpisode: a frame read just before its
// client went away still runs, and the episode goes on from another socket.
func TestDroppedSocketNeverWedgesAnEpisode(t *testing.T) {
	h := newHarness(t, options{server: throttled})
	victim := throttledDrop(t, h, h.dial())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := h.dial().Step(ctx, victim, execSQL("SELECT 2")); err != nil {
		t.Fatalf("the episode of a dropped socket cannot go on: %v", err)
	}
}

// TestShutdownRecordsEveryEpisode: Manager.Shutdown ends and records every
// live episode, whatever state the others are in.
func TestShutdownRecordsEveryEpisode(t *testing.T) {
	h := newHarness(t, options{server: throttled})
	c := h.dial()
	var others []string
	for i := 0; i < 20; i++ {
		others = append(others, reset(t, c, schemas.ResetParams{TaskID: "t/count"}).EpisodeID)
	}
	throttledDrop(t, h, c)
	// The dropped socket's connection ends once its frames have run or
	// been dropped: only c's is left.
	waitMetric(t, h.mgr.Metrics().Registry, "sqlgym_websocket_connections", func(v float64) bool { return v == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	h.mgr.Shutdown(ctx)
	for _, id := range others {
		if g, err := h.trajectory(id); err != nil || g.Outcome != schemas.OutcomeAbandoned {
			t.Errorf("%s after Shutdown: %v, %v; want abandoned", id, outcomeOrNil(g), err)
		}
	}
}

func outcomeOrNil(t *schemas.Trajectory) any {
	if t == nil {
		return nil
	}
	return t.Outcome
}

// TestBackpressureKeepsAResponsiveClient: a client the server throttles
// for longer than PongWait, answering pings all along, keeps its socket.
func TestBackpressureKeepsAResponsiveClient(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) {
		c.MaxInFlight = 1
		c.PingInterval = 100 * time.Millisecond
		c.PongWait = 400 * time.Millisecond
	}})
	ep := reset(t, h.dial(), schemas.ResetParams{TaskID: "t/count"})
	rc := h.raw()
	replies := make(chan string, 10)
	go func() { // reading also answers the server's pings
		for {
			_, b, err := rc.ws.ReadMessage()
			if err != nil {
				replies <- "read error: " + err.Error()
				return
			}
			replies <- string(b)
		}
	}()
	rc.sendStep(1, ep.EpisodeID, neverEnds)
	rc.sendStep(2, ep.EpisodeID, "SELECT 1")
	rc.sendStep(3, ep.EpisodeID, "SELECT 3")
	for i := 0; i < 3; i++ {
		select {
		case r := <-replies:
			if strings.HasPrefix(r, "read error") || !strings.Contains(r, `"result"`) {
				t.Fatalf("reply %d: %s", i+1, r)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no reply %d", i+1)
		}
	}
}

// TestCloseRunsBeforeAStepSentAfterIt: a close and a submit pipelined in
// that order run in that order: the episode is recorded as closed.
func TestCloseRunsBeforeAStepSentAfterIt(t *testing.T) {
	h := newHarness(t, options{})
	c := h.dial()
	rc := h.raw()
	for i := 0; i < 20; i++ {
		ep := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
		for _, f := range []string{
			fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"episode.close","params":{"episode_id":%q}}`, ep.EpisodeID),
			fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"episode.step","params":{"episode_id":%q,"action":{"tool":"submit","arguments":{"sql":"SELECT count(*) FROM items"}}}}`, ep.EpisodeID),
		} {
			if err := rc.ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
				t.Fatal(err)
			}
		}
		for k := 0; k < 2; k++ {
			if err := rc.ws.SetReadDeadline(time.Now().Add(5 * time.Second)); err != nil {
				t.Fatal(err)
			}
			if _, b, err := rc.ws.ReadMessage(); err != nil {
				t.Fatal(err)
			} else if strings.Contains(string(b), `"id":2,"result"`) {
				t.Fatalf("a submit sent after episode.close ran: %s", b)
			}
		}
		if g, err := h.trajectory(ep.EpisodeID); err != nil || g.Outcome != schemas.OutcomeNoSubmit {
			t.Fatalf("episode recorded as %v, %v; want no_submit", outcomeOrNil(g), err)
		}
	}
}

// TestIdleClockStartsWhenAStepEnds: a long step does not eat into the
// idle time that follows it. The manager's clock is moved by hand, and
// Expire sweeps at chosen moments.
func TestIdleClockStartsWhenAStepEnds(t *testing.T) {
	const idle = time.Minute
	clock := clockwork.NewFakeClock()
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.IdleTimeout, c.Clock = idle, clock }})
	c := h.dial()
	ep := reset(t, c, schemas.ResetParams{TaskID: "t/count"})
	ctx := context.Background()
	stepped := make(chan error, 1)
	go func() { _, err := c.Step(ctx, ep.EpisodeID, execSQL(neverEnds)); stepped <- err }()
	waitMetric(t, h.mgr.Metrics().Registry, "sqlgym_steps_running", func(v float64) bool { return v == 1 })
	clock.Advance(2 * idle) // the step takes twice the idle timeout
	h.mgr.Expire(ctx)
	live(t, h, ep.EpisodeID, "while its step runs")
	select {
	case err := <-stepped:
		if err != nil {
			t.Fatalf("long step: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no reply to the long step")
	}
	h.mgr.Expire(ctx)
	live(t, h, ep.EpisodeID, "as its step ended, twice the idle timeout after it began")
	clock.Advance(idle - time.Nanosecond)
	h.mgr.Expire(ctx)
	live(t, h, ep.EpisodeID, "just short of the idle timeout after its step ended")
	clock.Advance(2 * time.Nanosecond)
	h.mgr.Expire(ctx)
	if g, err := h.trajectory(ep.EpisodeID); err != nil || g.Outcome != schemas.OutcomeAbandoned {
		t.Fatalf("episode idle past the timeout after its step ended: %v, %v; want abandoned", outcomeOrNil(g), err)
	}
}

// live fails the test unless the episode is still live.
func live(t *testing.T, h *harness, id, when string) {
	t.Helper()
	if g, err := h.trajectory(id); err != nil || g.Outcome != "" {
		t.Fatalf("episode ended %s: %v, %v; want live", when, outcomeOrNil(g), err)
	}
}

// chattyPeer is a WebSocket client that keeps sending requests and never
// answers the server's close frame. It stops only when a write fails or
// when stop is closed.
type chattyPeer struct {
	ws         *websocket.Conn
	chatting   chan struct{} // closed when the first reply arrives
	replied    chan struct{} // one per reply received, before the close frame
	closeFrame chan struct{} // closed when the server's close frame arrives (or reading fails)
	done       chan struct{} // closed when the peer has stopped sending
	afterClose atomic.Int64  // requests written after the close frame arrived
	err        error         // why it stopped: the failed write, or nil when told to; read after done
}

// startChattyPeer dials the server and starts sending: one request per
// reply until the close frame, then requests back to back, ignoring it.
func startChattyPeer(t *testing.T, h *harness, stop <-chan struct{}) *chattyPeer {
	p := &chattyPeer{ws: h.raw().ws, chatting: make(chan struct{}), replied: make(chan struct{}, 1),
		closeFrame: make(chan struct{}), done: make(chan struct{})}
	p.ws.SetCloseHandler(func(int, string) error { return nil }) // no close frame back
	go p.read()
	go p.write(stop)
	t.Cleanup(func() { <-p.done })
	return p
}

// read takes replies until the server's close frame (or a failed read).
func (p *chattyPeer) read() {
	defer close(p.closeFrame)
	for n := 0; ; n++ {
		if _, _, err := p.ws.ReadMessage(); err != nil {
			return
		}
		if n == 0 {
			close(p.chatting)
		}
		select {
		case p.replied <- struct{}{}:
		default:
		}
	}
}

func (p *chattyPeer) write(stop <-chan struct{}) {
	defer close(p.done)
	req := []byte(`{"jsonrpc":"2.0","id":1,"method":"server.info"}`)
	closed := false
	for {
		if err := p.ws.WriteMessage(websocket.TextMessage, req); err != nil {
			p.err = err
			return
		}
		if closed {
			p.afterClose.Add(1)
		}
		select {
		case <-stop:
			return
		case <-p.replied:
		case <-p.closeFrame:
			closed = true
		}
	}
}

// TestServerCloseIsBoundedWithAChattyPeer: a peer that ignores the close
// frame and keeps sending cannot hold Server.Close: Close ends the
// connection itself (after CloseWait) while the peer is still sending,
// and the peer's sending stops only because the server closed its socket.
func TestServerCloseIsBoundedWithAChattyPeer(t *testing.T) {
	h := newHarness(t, options{server: func(c *transport.ServerConfig) { c.CloseWait = 200 * time.Millisecond }})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stop := make(chan struct{})
	stopped := context.AfterFunc(ctx, func() { close(stop) }) // only if Close waits for the peer
	p := startChattyPeer(t, h, stop)
	select {
	case <-p.chatting:
	case <-p.done:
		t.Fatalf("the peer stopped before Close: %v", p.err)
	case <-ctx.Done():
		t.Fatal("no reply to the chatty peer")
	}
	if err := h.srv.Close(ctx); err != nil {
		t.Fatalf("Server.Close waited for a peer that never closed: %v", err)
	}
	if n := metric(t, h.mgr.Metrics().Registry, "sqlgym_websocket_connections"); n != 0 {
		t.Errorf("%v connections open after Server.Close; want 0", n)
	}
	<-p.done
	if !stopped() || p.err == nil {
		t.Fatal("the peer was told to stop: Server.Close did not end its connection")
	}
	if p.afterClose.Load() == 0 {
		t.Error("the peer sent nothing after the close frame: nothing showed it was ignored")
	}
}

// TestFailedBeginCountsNothing: a reset whose begin cannot be written
// starts no episode, in the stats too.
func TestFailedBeginCountsNothing(t *testing.T) {
	var rec *filelog.Log
	h := newHarness(t, options{cfg: fileLogged(t, &rec)})
	rec.Close()
	c := h.dial()
	for i := 0; i < 3; i++ {
		if _, err := c.Reset(context.Background(), schemas.ResetParams{TaskID: "t/count"}); rpcCode(err) != schemas.CodeInternal {
			t.Fatalf("reset with a closed log: %v, want -32603", err)
		}
	}
	info, err := c.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s := info.Stats; s.LiveEpisodes != 0 || s.Started != 0 || s.WriteErrors != 3 {
		t.Errorf("stats = %+v; want nothing live or started, 3 write errors", s)
	}
}
