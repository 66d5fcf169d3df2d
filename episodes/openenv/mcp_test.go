package openenv_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/schemas"
)

// jsonRPC is a JSON-RPC request as MCPToolClient's _production_mcp_request
// sends it (src/openenv/core/mcp_client.py): jsonrpc, method, params (an
// object, {} for none) and a numeric id.
func jsonRPC(id int, method string, params map[string]any) map[string]any {
	if params == nil {
		params = map[string]any{}
	}
	return map[string]any{"jsonrpc": "2.0", "method": method, "params": params, "id": id}
}

// TestMCPOverHTTPEqualsNative drives an episode through POST /mcp as
// MCPToolClient's production mode does: openenv/session/create, then
// tools/list and tools/call naming the session, then
// openenv/session/close; rewards equal the native protocol's.
func TestMCPOverHTTPEqualsNative(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[2]
	moves := script("SELECT 1")
	want := native(t, s, task.ID, moves[:3])
	code, res := post(t, s.base+"/mcp", jsonRPC(1, "openenv/session/create", map[string]any{"task_id": task.ID}), nil)
	if code != 200 || res["result"] == nil {
		t.Fatalf("session/create: %d %v", code, res)
	}
	sid := res["result"].(map[string]any)["session_id"].(string)
	_, res = post(t, s.base+"/mcp", jsonRPC(2, "tools/list", map[string]any{"session_id": sid}), nil)
	tools := res["result"].(map[string]any)["tools"].([]any)
	if len(tools) != 3 || res["id"] != 2.0 {
		t.Fatalf("tools/list: %v", res)
	}
	var got outcome
	for i, m := range moves[:3] {
		_, res := post(t, s.base+"/mcp", jsonRPC(3+i, "tools/call", map[string]any{"name": m.tool, "arguments": m.args, "session_id": sid}), nil)
		r, ok := res["result"].(map[string]any)
		if !ok || r["data"] == "" || len(r["content"].([]any)) != 1 {
			t.Fatalf("tools/call %s: %v", m.tool, res)
		}
		sc := r["structuredContent"].(map[string]any)
		got.rewards = append(got.rewards, sc["reward"].(float64))
		got.done = append(got.done, sc["done"].(bool))
	}
	if !equalOutcomes(got, want) {
		t.Fatalf("MCP %+v, native %+v", got, want)
	}
	_, res = post(t, s.base+"/mcp", jsonRPC(9, "openenv/session/close", map[string]any{"session_id": sid}), nil)
	if res["result"].(map[string]any)["closed"] != true || s.handler.ActiveSessions() != 0 {
		t.Fatalf("session/close: %v, %d sessions", res, s.handler.ActiveSessions())
	}
	_, res = post(t, s.base+"/mcp", jsonRPC(10, "tools/call", map[string]any{"name": "inspect_schema", "session_id": sid}), nil)
	if e, _ := res["error"].(map[string]any); e == nil || e["code"] != -32602.0 {
		t.Fatalf("tools/call on a closed session: %v", res)
	}
	rec, err := s.trajectory(sid)
	if err != nil || rec.Outcome != "no_submit" {
		t.Fatalf("closed session's record: %v %v", rec, err)
	}
	checkOrigin(t, s, sid)
}

// TestMCPMessagesOnSocket sends mcp messages on /ws: tools/list before
// any reset lists the server's tools, tools/call runs within the
// socket's episode, and malformed requests get JSON-RPC errors.
func TestMCPMessagesOnSocket(t *testing.T) {
	s := start(t, nil, nil)
	c := s.dial(t, nil)
	d := data(t, c.call(map[string]any{"type": "mcp", "data": jsonRPC(1, "tools/list", nil)}), "mcp")
	if len(d["result"].(map[string]any)["tools"].([]any)) != 3 {
		t.Fatalf("tools/list: %v", d)
	}
	d = data(t, c.call(map[string]any{"type": "mcp", "data": jsonRPC(2, "tools/call", map[string]any{"name": "inspect_schema"})}), "mcp")
	if d["error"] == nil {
		t.Fatalf("tools/call before a reset: %v", d)
	}
	data(t, c.call(reset(map[string]any{"task_id": s.Dataset.Tasks[0].ID})), "observation")
	d = data(t, c.call(map[string]any{"type": "mcp", "data": jsonRPC(3, "tools/call", map[string]any{"name": "inspect_schema", "arguments": map[string]any{}})}), "mcp")
	r := d["result"].(map[string]any)
	if r["isError"] != false || r["structuredContent"].(map[string]any)["metadata"].(map[string]any)["turn"] != 1.0 {
		t.Fatalf("tools/call: %v", d)
	}
	for _, bad := range []map[string]any{
		{"method": "tools/list", "id": 4},                             // no jsonrpc
		{"jsonrpc": "2.0", "method": "tools/list", "params": []any{}}, // params not an object
		{"jsonrpc": "2.0", "method": "resources/list", "id": 5},
	} {
		d := data(t, c.call(map[string]any{"type": "mcp", "data": bad}), "mcp")
		if d["error"] == nil || d["jsonrpc"] != "2.0" {
			t.Fatalf("%v: %v", bad, d)
		}
	}
	if code, res := post(t, s.base+"/mcp", map[string]any{"jsonrpc": "2.0", "method": "tools/call", "params": map[string]any{"name": "submit"}, "id": 1}, nil); code != http.StatusOK || res["error"] == nil {
		t.Fatalf("HTTP tools/call without a session: %d %v", code, res)
	}
}

// TestMCPWebSocket drives GET /openenv/mcp, where each frame is a
// JSON-RPC request (http_server.py's mcp_websocket_endpoint): tools/list
// before any episode, openenv/session/create starting the socket's
// episode, tools/call paying what the native protocol pays, a parse
// error, and the session bound.
func TestMCPWebSocket(t *testing.T) {
	s := start(t, func(c *openenv.Config) { c.MaxSessions = 1 }, nil)
	task := s.Dataset.Tasks[4]
	want := native(t, s, task.ID, []move{{schemas.ToolSubmit, map[string]any{"sql": task.GoldSQL}}})
	url := "ws" + strings.TrimPrefix(s.base, "http") + "/mcp"
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	c := &envClient{t: t, conn: conn}
	if tools := c.call(jsonRPC(1, "tools/list", nil))["result"].(map[string]any)["tools"].([]any); len(tools) != 3 {
		t.Fatalf("tools/list: %v", tools)
	}
	if r := c.call(jsonRPC(2, "tools/call", map[string]any{"name": "inspect_schema"})); r["error"] == nil {
		t.Fatalf("tools/call before session/create: %v", r)
	}
	sid := c.call(jsonRPC(3, "openenv/session/create", map[string]any{"task_id": task.ID}))["result"].(map[string]any)["session_id"]
	if again := c.call(jsonRPC(4, "openenv/session/create", nil))["result"].(map[string]any)["session_id"]; again != sid {
		t.Fatalf("session/create while the episode runs: %v, want %v", again, sid)
	}
	r := c.call(jsonRPC(5, "tools/call", map[string]any{"name": "submit", "arguments": map[string]any{"sql": task.GoldSQL}}))
	sc := r["result"].(map[string]any)["structuredContent"].(map[string]any)
	if sc["reward"] != want.rewards[0] || sc["done"] != true || want.final != schemas.OutcomeCorrect {
		t.Fatalf("tools/call submit: %v; native %+v", r, want)
	}
	if r := c.raw([]byte("{")); r["error"].(map[string]any)["code"] != -32700.0 {
		t.Fatalf("a frame that is not JSON: %v", r)
	}
	over, _, err := websocket.DefaultDialer.Dial(url, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer over.Close()
	var refused map[string]any
	if err := over.ReadJSON(&refused); err != nil {
		t.Fatal(err)
	}
	if e := refused["error"].(map[string]any); e["code"] != -32000.0 || e["data"].(map[string]any)["max_sessions"] != 1.0 {
		t.Fatalf("over the session bound: %v", refused)
	}
	checkOrigin(t, s, sid.(string))
}
