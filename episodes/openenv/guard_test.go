package openenv_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestTokenGuardsEveryRoute checks that with --token every route of the
// surface needs it, on HTTP and on the WebSocket upgrade.
func TestTokenGuardsEveryRoute(t *testing.T) {
	s := start(t, nil, func(c *transport.ServerConfig) { c.Token = "sekret" })
	for _, path := range []string{"/health", "/schema", "/metadata", "/state"} {
		if code, _ := getStatus(t, s.base+path, nil); code != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, code)
		}
	}
	if _, resp, err := websocket.DefaultDialer.Dial(s.ws, nil); err == nil || resp == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("upgrade without the token: %v %v", err, resp)
	}
	auth := http.Header{"Authorization": {"Bearer sekret"}}
	if code, _ := get(t, s.base+"/health", auth); code != http.StatusOK {
		t.Fatalf("GET /health with the token: %d", code)
	}
	c := s.dial(t, auth)
	data(t, c.call(reset(map[string]any{"task_id": s.Dataset.Tasks[0].ID})), "observation")
}

// TestOriginAndHostChecks checks that without a token a browser page of
// another origin, or a request addressed to another host name (DNS
// rebinding), is refused on the surface as on /v1.
func TestOriginAndHostChecks(t *testing.T) {
	s := start(t, nil, nil)
	evil := http.Header{"Origin": {"http://evil.example"}}
	if _, resp, err := websocket.DefaultDialer.Dial(s.ws, evil); err == nil || resp == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("upgrade from another origin: %v %v", err, resp)
	}
	if code, _ := getStatus(t, s.base+"/health", evil); code != http.StatusForbidden {
		t.Fatalf("GET from another origin: %d, want 403", code)
	}
	req, _ := http.NewRequest(http.MethodGet, s.base+"/health", nil)
	req.Host = "rebound.example"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("GET addressed to another host: %d, want 403", resp.StatusCode)
	}
	same := http.Header{"Origin": {s.HTTP.URL}}
	c := s.dial(t, same)
	data(t, c.call(map[string]any{"type": "state"}), "state")
}

// TestSilentSocketIsClosed checks the keep-alive: a client that stops
// answering pings is closed once PongWait passes, its room is freed and
// its episode closed (recorded no_submit).
func TestSilentSocketIsClosed(t *testing.T) {
	s := start(t, func(c *openenv.Config) { c.PingInterval, c.PongWait = 5*time.Millisecond, 50*time.Millisecond }, nil)
	c := s.dial(t, nil)
	obs := data(t, c.call(reset(map[string]any{"task_id": s.Dataset.Tasks[0].ID})), "observation")
	id := obs["observation"].(map[string]any)["episode_id"].(string)
	// The client reads nothing more, so it answers no ping: gorilla's
	// client answers pings only while reading.
	waitfor.Until(t, "the silent socket's session to end", func() bool { return s.handler.ActiveSessions() == 0 })
	waitfor.Until(t, "its episode to be closed", func() bool {
		rec, err := s.trajectory(id)
		return err == nil && rec.Outcome == "no_submit"
	})
}

// getStatus is GET without decoding the body.
func getStatus(t *testing.T, url string, header http.Header) (int, error) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// TestShutdownClosesSockets checks that when the server shuts down (the
// handler's context ends) each socket gets a close frame (1001) and its
// episode is closed, so recorded.
func TestShutdownClosesSockets(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	obs := data(t, c.call(reset(map[string]any{"task_id": s.Dataset.Tasks[0].ID})), "observation")
	id := obs["observation"].(map[string]any)["episode_id"].(string)
	s.stop()
	if _, _, err := c.conn.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseGoingAway) {
		t.Fatalf("after shutdown: %v, want close 1001", err)
	}
	waitfor.Until(t, "the episode to be closed", func() bool {
		rec, err := s.trajectory(id)
		return err == nil && rec.Outcome == "no_submit"
	})
}
