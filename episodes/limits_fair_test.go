package episodes_test

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/base/fairshare"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/peer"
	"github.com/sqlgym/sqlgym/schemas"
)

// fairEpisodes is the --max-episodes of the fairness tests.
const fairEpisodes = 16

// rawCall sends one JSON-RPC request on ws and reads its reply.
func rawCall(t *testing.T, ws *websocket.Conn, id int, method, params string) map[string]any {
	t.Helper()
	f := `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":` + params + `}`
	if err := ws.WriteMessage(websocket.TextMessage, []byte(f)); err != nil {
		t.Fatal(err)
	}
	var reply map[string]any
	if err := ws.ReadJSON(&reply); err != nil {
		t.Fatal(err)
	}
	return reply
}

// dialFrom opens a native socket from peer n.
func (h *harness) dialFrom(n int) *websocket.Conn {
	h.t.Helper()
	ws, _, err := peer.WSDialer(n).Dial(h.url, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.t.Cleanup(func() { ws.Close() })
	return ws
}

// TestFloodOfEpisodesLeavesOthersServed checks the native surface's
// live-episode bound under issue #32's rule: one client may start every
// episode while it is alone; an honest client on another address then
// gets its episode at its first reset, by the flooder's least recently
// used idle episode being abandoned (recorded as the idle sweep records
// it); the flooder, at or above its share, is refused with -32003 saying
// so.
func TestFloodOfEpisodesLeavesOthersServed(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxEpisodes = fairEpisodes }})
	flood := h.dialFrom(2)
	var first string
	for i := range fairEpisodes {
		r := rawCall(t, flood, i, "episode.reset", `{"task_id":"t/count"}`)
		if r["error"] != nil {
			t.Fatalf("alone, reset %d of %d refused: %v", i+1, fairEpisodes, r)
		}
		if i == 0 {
			first = r["result"].(map[string]any)["episode_id"].(string)
		}
	}
	honest := h.dialFrom(3)
	if r := rawCall(t, honest, 1, "episode.reset", `{"task_id":"t/count"}`); r["error"] != nil {
		t.Fatalf("an honest reset while the flooder holds every episode: %v", r)
	}
	r := rawCall(t, flood, 2, "episode.reset", `{"task_id":"t/count"}`)
	e, _ := r["error"].(map[string]any)
	if e == nil || e["code"] != float64(schemas.CodeCapacity) || !strings.Contains(e["message"].(string), "fair share") {
		t.Fatalf("the flooder above its share asking again: %v, want -32003 saying it holds its share", r)
	}
	tr, err := h.trajectory(first)
	if err != nil || tr.Outcome != schemas.OutcomeAbandoned {
		t.Fatalf("the flooder's least recently used episode: %v %v, want it recorded abandoned", tr, err)
	}
}

// TestFloodAndHonestResetsAtOnce runs a flooder's resets on eight
// goroutines while an honest client resets and closes, in process: every
// honest reset is served within two attempts, and when all is done the
// episodes live are within the
// bound's at most (counted by sqlgym_live_episodes).
func TestFloodAndHonestResetsAtOnce(t *testing.T) {
	h := newHarness(t, options{cfg: func(c *episodes.Config) { c.MaxEpisodes = fairEpisodes }})
	flood := fairshare.WithClient(context.Background(), "flooder")
	honest := fairshare.WithClient(context.Background(), "honest")
	const floodResets, honestRounds = 64, 20
	var wg sync.WaitGroup
	done := make(chan struct{})
	for range 8 {
		wg.Go(func() {
			for range floodResets {
				select {
				case <-done:
					return
				default:
				}
				h.mgr.Reset(flood, schemas.ResetParams{TaskID: "t/count"})
			}
		})
	}
	for round := range honestRounds {
		var r *schemas.ResetResult
		var err error
		for range 2 {
			if r, err = h.mgr.Reset(honest, schemas.ResetParams{TaskID: "t/count"}); err == nil {
				break
			}
		}
		if err != nil {
			t.Fatalf("round %d: the honest reset refused twice while the flooder asked: %v", round, err)
		}
		if _, err := h.mgr.Close(honest, r.EpisodeID); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	if live := metricstest.Value(t, h.mgr.Metrics().Registry, "sqlgym_live_episodes"); live > fairEpisodes {
		t.Fatalf("%v episodes live, past the bound of %d", live, fairEpisodes)
	}
}

// TestFloodOfSocketsLeavesOthersServed checks --max-connections under
// issue #32's rule: one client's idle sockets may fill it while no one
// else connects; an honest client on another address then connects and
// is served at its first attempt, the flooder's least recently used idle
// socket closed for it (1013); the flooder, at its share, gets 503
// saying so.
func TestFloodOfSocketsLeavesOthersServed(t *testing.T) {
	const bound = 8
	h := newHarness(t, options{server: func(c *transport.ServerConfig) { c.MaxConnections = bound }})
	var flood []*websocket.Conn
	for range bound {
		ws := h.dialFrom(2)
		if r := rawCall(t, ws, 1, "server.info", `{}`); r["result"] == nil {
			t.Fatalf("alone, the flooder's socket: %v", r)
		}
		flood = append(flood, ws)
	}
	honest := h.dialFrom(3)
	if r := rawCall(t, honest, 1, "episode.reset", `{"task_id":"t/count"}`); r["result"] == nil {
		t.Fatalf("the honest client's socket while the flooder holds every one: %v", r)
	}
	if _, _, err := flood[0].ReadMessage(); !websocket.IsCloseError(err, websocket.CloseTryAgainLater) {
		t.Fatalf("the flooder's least recently used socket: %v, want it closed with 1013", err)
	}
	_, resp, err := peer.WSDialer(2).Dial(h.url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("the flooder above its share: %v, want 503", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "fair share") {
		t.Fatalf("the flooder's refusal %q does not say it holds its share", body)
	}
}
