package openenv_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jonboulle/clockwork"

	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// errCode is the code of an error reply, failing the test on any other.
func errCode(t *testing.T, reply map[string]any) string {
	t.Helper()
	d := data(t, reply, "error")
	if m, _ := d["message"].(string); m == "" {
		t.Fatalf("error without a message: %v", reply)
	}
	return d["code"].(string)
}

// TestWebSocketErrorCodes checks each malformed or untimely message gets
// OpenEnv's WSErrorCode (types.py), and the socket stays usable.
func TestWebSocketErrorCodes(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	taskID := s.Dataset.Tasks[0].ID
	for _, tt := range []struct {
		name  string
		frame string
		code  string
	}{
		{"not JSON", `{"type": "reset"`, openenv.CodeInvalidJSON},
		{"unknown type", `{"type": "render"}`, openenv.CodeUnknownType},
		{"step before reset", `{"type": "step", "data": {"type": "call_tool", "tool_name": "inspect_schema"}}`, openenv.CodeSession},
		{"unknown action", `{"type": "step", "data": {"type": "fly"}}`, openenv.CodeValidation},
		{"unknown action field", `{"type": "step", "data": {"type": "list_tools", "extra": 1}}`, openenv.CodeValidation},
		{"call_tool without a name", `{"type": "step", "data": {"type": "call_tool"}}`, openenv.CodeValidation},
		{"tags not an object", `{"type": "reset", "data": {"tags": [1]}}`, openenv.CodeValidation},
		{"no such task", `{"type": "reset", "data": {"task_id": "demo/none"}}`, openenv.CodeValidation},
		{"max_turns 0", `{"type": "reset", "data": {"max_turns": 0}}`, openenv.CodeValidation},
	} {
		if got := errCode(t, c.raw([]byte(tt.frame))); got != tt.code {
			t.Errorf("%s: code %s, want %s", tt.name, got, tt.code)
		}
	}
	first := data(t, c.call(reset(map[string]any{"task_id": taskID, "max_turns": 1})), "observation")
	firstID := first["observation"].(map[string]any)["episode_id"].(string)
	data(t, c.call(callTool("inspect_schema", nil)), "observation") // the only turn: the episode ends
	if got := errCode(t, c.call(callTool("inspect_schema", nil))); got != openenv.CodeSession {
		t.Errorf("step after the end: %s, want %s", got, openenv.CodeSession)
	}
	if rec, err := s.trajectory(firstID); err != nil || rec.Outcome != "no_submit" {
		t.Fatalf("episode out of turns: %v %v", rec, err)
	}
	second := data(t, c.call(reset(map[string]any{"task_id": taskID})), "observation")
	secondID := second["observation"].(map[string]any)["episode_id"].(string)
	data(t, c.call(reset(map[string]any{"task_id": taskID})), "observation") // replaces the second
	if rec, err := s.trajectory(secondID); err != nil || rec.Outcome != "no_submit" {
		t.Fatalf("episode a reset replaced: %v %v", rec, err)
	}
	c.conn.Close() // without a close message: the session still ends its episode
	waitfor.Until(t, "the socket's session to end", func() bool { return s.handler.ActiveSessions() == 0 })
}

// TestFrameBound checks a message past MaxFrameBytes closes the socket
// with 1009, and an HTTP body past it gets 413.
func TestFrameBound(t *testing.T) {
	s := start(t, func(c *openenv.Config) { c.MaxFrameBytes = 2048 }, nil)
	c := s.dial(t, nil)
	big := `{"type": "reset", "data": {"tags": {"pad": "` + strings.Repeat("x", 4096) + `"}}}`
	c.conn.WriteMessage(websocket.TextMessage, []byte(big))
	_, _, err := c.conn.ReadMessage()
	if !websocket.IsCloseError(err, websocket.CloseMessageTooBig) {
		t.Fatalf("after a frame past the bound: %v, want close 1009", err)
	}
	code, res := post(t, s.base+"/reset", map[string]any{"tags": map[string]string{"pad": strings.Repeat("x", 4096)}}, nil)
	if code != http.StatusRequestEntityTooLarge {
		t.Fatalf("HTTP body past the bound: %d %v", code, res)
	}
}

// TestCapacity checks the session bound: past it a WebSocket gets
// CAPACITY_REACHED with the counts and is closed, an HTTP reset 503 and
// session/create a JSON-RPC server error; a freed room serves again.
func TestCapacity(t *testing.T) {
	s := start(t, func(c *openenv.Config) { c.MaxSessions, c.Registry = 1, c.Manager.Metrics().Registry }, nil)
	held := s.dial(t, nil)
	data(t, held.call(map[string]any{"type": "state"}), "state") // the first socket holds the room
	over := s.dial(t, nil)
	var reply map[string]any
	if err := over.conn.ReadJSON(&reply); err != nil {
		t.Fatal(err)
	}
	d := data(t, reply, "error")
	if d["code"] != openenv.CodeCapacityReached || d["active_sessions"] != 1.0 || d["max_sessions"] != 1.0 {
		t.Fatalf("over capacity: %v", reply)
	}
	if _, _, err := over.conn.ReadMessage(); !websocket.IsCloseError(err, websocket.CloseTryAgainLater) {
		t.Fatalf("after CAPACITY_REACHED: %v, want close 1013", err)
	}
	if code, res := post(t, s.base+"/reset", map[string]any{}, nil); code != http.StatusServiceUnavailable || res["code"] != openenv.CodeCapacityReached {
		t.Fatalf("HTTP reset over capacity: %d %v", code, res)
	}
	_, res := post(t, s.base+"/mcp", jsonRPC(1, "openenv/session/create", nil), nil)
	if e, _ := res["error"].(map[string]any); e == nil || e["code"] != -32000.0 {
		t.Fatalf("session/create over capacity: %v", res)
	}
	if n, refused := metric(t, s, "sqlgym_openenv_sessions"), metric(t, s, "sqlgym_openenv_sessions_refused_total"); n != 1 || refused != 3 {
		t.Fatalf("metrics: %v sessions, %v refused; want 1 and 3", n, refused)
	}
	held.disconnect()
	waitfor.Until(t, "the room to be freed", func() bool { return s.handler.ActiveSessions() == 0 })
	if code, res := post(t, s.base+"/reset", map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("HTTP reset after the room was freed: %d %v", code, res)
	}
}

// TestAbandonedHTTPEpisodeFreesItsRoom checks an HTTP client's episode
// unused past the idle timeout gives its room back (the Manager has
// abandoned it by then), on a fake clock.
func TestAbandonedHTTPEpisodeFreesItsRoom(t *testing.T) {
	clock := clockwork.NewFakeClock()
	s := start(t, func(c *openenv.Config) { c.MaxSessions, c.IdleTimeout, c.Now = 1, time.Minute, clock.Now }, nil)
	if code, res := post(t, s.base+"/reset", map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("first reset: %d %v", code, res)
	}
	if code, _ := post(t, s.base+"/reset", map[string]any{}, nil); code != http.StatusServiceUnavailable {
		t.Fatalf("second reset while the first episode is fresh: %d, want 503", code)
	}
	clock.Advance(2 * time.Minute)
	if code, res := post(t, s.base+"/reset", map[string]any{}, nil); code != http.StatusOK {
		t.Fatalf("reset after the first episode idled past the timeout: %d %v", code, res)
	}
}

// metric is the value of a gauge or counter of the server's registry.
func metric(t *testing.T, s *surface, name string) float64 {
	t.Helper()
	return metricstest.Value(t, s.Manager.Metrics().Registry, name)
}
