package soaktest

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/peer"
)

// The fairness soak's bounds, each a count, never a time: the surfaces'
// pools are small so that the flooder fills them in a few requests; the
// honest client must get what it asks for within honestTries attempts,
// in every one of honestRounds rounds, while the flooder keeps asking.
const (
	fairEpisodes = 24
	fairSessions = 8
	fairLive     = 4
	honestRounds = 5
	honestTries  = 2
	floodTries   = 400 // the flooder's requests on each surface while the honest client plays
	flooder      = 2   // peer numbers: 127.0.0.2 and 127.0.0.3
	honestPeer   = 3
)

// fairServer is the real binary on the demo dataset with small pools.
func fairServer(t *testing.T) *binserver.Process {
	return binserver.Start(t, binserver.Build(t), "--data-dir", filepath.Join(t.TempDir(), "data"),
		"--log-format", "json", "--log-level", "warn",
		"--max-episodes", strconv.Itoa(fairEpisodes), "--max-openenv-sessions", strconv.Itoa(fairSessions),
		"--max-mcp-sessions", strconv.Itoa(fairSessions), "--console-max-live", strconv.Itoa(fairLive))
}

// TestSoakFloodingClientLeavesHonestOnesServed is issue #32's soak: one
// client fills the live episodes (native WebSocket), the OpenEnv
// sessions, the MCP sessions and the live streams, and keeps asking for
// more; an honest client on another address is served on each surface,
// round after round, within honestTries attempts.
func TestSoakFloodingClientLeavesHonestOnesServed(t *testing.T) {
	srv := fairServer(t)
	base := srv.HTTP()
	f := &surfaces{t: t, base: base, ws: srv.URL, http: peer.HTTPClient(flooder), dial: peer.WSDialer(flooder)}
	h := &surfaces{t: t, base: base, ws: srv.URL, http: peer.HTTPClient(honestPeer), dial: peer.WSDialer(honestPeer)}
	defer f.close()
	defer h.close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Alone, the flooder fills every pool (the OpenEnv sessions hold
	// live episodes too, so the native surface gets the rest of those),
	// and is refused at the next attempt.
	whole := []int{fairSessions, fairEpisodes - fairSessions, fairSessions, fairLive}
	for i, s := range f.each() {
		if got := fillUp(s, whole[i]+1); got != whole[i] {
			t.Fatalf("alone, the flooder got %d of %s, want the whole pool (%d) and then a refusal", got, s.name, whole[i])
		}
	}
	var flood sync.WaitGroup
	for _, s := range f.each() {
		flood.Go(func() {
			for range floodTries {
				if ctx.Err() != nil {
					return
				}
				s.take()
			}
		})
	}
	for round := range honestRounds {
		for _, s := range h.each() {
			if !served(s) {
				t.Errorf("round %d: the honest client was not served %s within %d attempts while the flooder asked",
					round, s.name, honestTries)
			}
		}
	}
	cancel()
	flood.Wait()
}

// served asks for a surface's resource up to honestTries times, and
// gives back what it got.
func served(s surface) bool {
	for range honestTries {
		if release, ok := s.take(); ok {
			release()
			return true
		}
	}
	return false
}

// fillUp takes a surface's resource until it is refused, keeping all it
// got, and returns how many; at most max attempts.
func fillUp(s surface, max int) int {
	for n := range max {
		if _, ok := s.take(); !ok {
			return n
		}
	}
	return max
}

// surface is one kind of bounded resource: take asks for one and
// returns how to give it back, or false when refused.
type surface struct {
	name string
	take func() (func(), bool)
}

// surfaces is one client's way to each surface.
type surfaces struct {
	t     *testing.T
	base  string // http://127.0.0.1:PORT
	ws    string // ws://127.0.0.1:PORT/v1/ws
	http  *http.Client
	dial  *websocket.Dialer
	mu    sync.Mutex
	conns []*websocket.Conn
	live  []*http.Response
}

func (c *surfaces) each() []surface {
	// OpenEnv first: its sessions hold live episodes too, which the
	// native flood would otherwise have taken whole.
	return []surface{{"an OpenEnv session", c.openenv}, {"a native episode", c.episode},
		{"an MCP session", c.mcpSession}, {"a live stream", c.liveStream}}
}

// keep holds a socket until the test ends.
func (c *surfaces) keep(ws *websocket.Conn) {
	c.mu.Lock()
	c.conns = append(c.conns, ws)
	c.mu.Unlock()
}

func (c *surfaces) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ws := range c.conns {
		ws.Close()
	}
	for _, r := range c.live {
		r.Body.Close()
	}
	c.http.CloseIdleConnections()
}

// episode resets a native episode on a socket of its own; giving it
// back closes the episode.
func (c *surfaces) episode() (func(), bool) {
	ws, _, err := c.dial.Dial(c.ws, nil)
	if err != nil {
		c.t.Errorf("native dial: %v", err)
		return nil, false
	}
	c.keep(ws)
	reply := rpc(ws, `{"jsonrpc":"2.0","id":1,"method":"episode.reset","params":{}}`)
	res, _ := reply["result"].(map[string]any)
	if res == nil {
		ws.Close()
		return nil, false
	}
	id := res["episode_id"].(string)
	return func() { rpc(ws, `{"jsonrpc":"2.0","id":2,"method":"episode.close","params":{"episode_id":"`+id+`"}}`) }, true
}

// rpc sends a request and reads its reply (nil if the socket failed).
func rpc(ws *websocket.Conn, frame string) map[string]any {
	if ws.WriteMessage(websocket.TextMessage, []byte(frame)) != nil {
		return nil
	}
	var reply map[string]any
	if ws.ReadJSON(&reply) != nil {
		return nil
	}
	return reply
}

// openenv opens an OpenEnv WebSocket and resets its episode; giving it
// back sends close.
func (c *surfaces) openenv() (func(), bool) {
	ws, _, err := c.dial.Dial(strings.Replace(c.base, "http", "ws", 1)+"/openenv/ws", nil)
	if err != nil {
		c.t.Errorf("openenv dial: %v", err)
		return nil, false
	}
	c.keep(ws)
	ws.WriteJSON(map[string]any{"type": "reset", "data": map[string]any{}})
	var reply map[string]any
	if ws.ReadJSON(&reply) != nil || reply["type"] != "observation" {
		ws.Close() // a session whose reset was refused would still hold its room
		return nil, false
	}
	return func() { ws.WriteJSON(map[string]string{"type": "close"}); ws.Close() }, true
}

// initialize is an MCP client's first request.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}`

// mcpSession opens an MCP session; giving it back deletes it.
func (c *surfaces) mcpSession() (func(), bool) {
	req, _ := http.NewRequest(http.MethodPost, c.base+"/mcp", strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Errorf("mcp initialize: %v", err)
		return nil, false
	}
	var body json.RawMessage
	json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		return nil, false
	}
	return func() {
		del, _ := http.NewRequest(http.MethodDelete, c.base+"/mcp", nil)
		del.Header.Set("Mcp-Session-Id", id)
		if r, err := c.http.Do(del); err == nil {
			r.Body.Close()
		}
	}, true
}

// liveStream opens a live page's stream and reads its first event;
// giving it back closes it.
func (c *surfaces) liveStream() (func(), bool) {
	resp, err := c.http.Get(c.base + "/ui/live/events")
	if err != nil {
		c.t.Errorf("live stream: %v", err)
		return nil, false
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, false
	}
	if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, ": connected") {
		resp.Body.Close()
		return nil, false
	}
	c.mu.Lock()
	c.live = append(c.live, resp)
	c.mu.Unlock()
	return func() { resp.Body.Close() }, true
}
