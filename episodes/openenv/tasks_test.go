package openenv_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/openenv"
	"github.com/sqlgym/sqlgym/schemas"
)

// mcpToolClient does what OpenEnv's MCPToolClient does with
// use_production_mode set (src/openenv/core/mcp_client.py,
// meta-pytorch/OpenEnv 685de411e5f7): every request is a POST to
// _production_mcp_url() with _production_mcp_request's body
// {"jsonrpc": "2.0", "method", "params" (or {}), "id" counting from 1};
// the first list_tools or call_tool creates the session with
// openenv/session/create and params {} (_ensure_production_session), and
// each later request names it.
type mcpToolClient struct {
	t       *testing.T
	url     string
	id      int
	session string
}

// newMCPToolClient is MCPToolClient(base_url=baseURL) in production mode.
func newMCPToolClient(t *testing.T, baseURL string) *mcpToolClient {
	return &mcpToolClient{t: t, url: productionMCPURL(baseURL)}
}

// productionMCPURL is _production_mcp_url() of a client made with
// baseURL: EnvClient.__init__ keeps convert_to_ws_url(base_url) + "/ws"
// (env_client.py, utils.py: the trailing slashes cut, http:// made
// ws://), and production mode makes it http:// again, cuts "/ws" and adds
// "/mcp". A query in base_url would end up before "/mcp": only the path
// can carry a choice, hence .../tasks/{task_id}.
func productionMCPURL(baseURL string) string {
	ws := strings.TrimRight(baseURL, "/")
	switch {
	case strings.HasPrefix(ws, "http://"):
		ws = "ws://" + ws[len("http://"):]
	case strings.HasPrefix(ws, "https://"):
		ws = "wss://" + ws[len("https://"):]
	}
	u := strings.ReplaceAll(strings.ReplaceAll(ws+"/ws", "ws://", "http://"), "wss://", "https://")
	u = strings.TrimSuffix(u, "/ws")
	return strings.TrimRight(u, "/") + "/mcp"
}

// TestProductionMCPURL pins productionMCPURL to what OpenEnv's own code
// makes of each base_url: the pairs were printed by
// MCPToolClient(base_url=...)._production_mcp_url() at 685de411e5f7. The
// query's pair is why a query cannot choose the task.
func TestProductionMCPURL(t *testing.T) {
	for _, tt := range []struct{ base, want string }{
		{"http://127.0.0.1:8765/openenv/tasks/demo/shop-014", "http://127.0.0.1:8765/openenv/tasks/demo/shop-014/mcp"},
		{"http://127.0.0.1:8765/openenv/tasks/demo%2Fshop-014/", "http://127.0.0.1:8765/openenv/tasks/demo%2Fshop-014/mcp"},
		{"http://h/openenv?task_id=demo/x", "http://h/openenv?task_id=demo/x/mcp"},
		{"https://h/openenv", "https://h/openenv/mcp"},
	} {
		if got := productionMCPURL(tt.base); got != tt.want {
			t.Errorf("productionMCPURL(%q) = %q, want %q", tt.base, got, tt.want)
		}
	}
}

// request is _production_mcp_request.
func (c *mcpToolClient) request(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.id++
	code, res := post(c.t, c.url, jsonRPC(c.id, method, params), nil)
	if code != http.StatusOK { // raise_for_status
		c.t.Fatalf("%s: HTTP %d %v", method, code, res)
	}
	return res
}

// ensureSession is _ensure_production_session, its RuntimeError an error.
func (c *mcpToolClient) ensureSession() error {
	if c.session != "" {
		return nil
	}
	res := c.request("openenv/session/create", nil)
	if e, ok := res["error"].(map[string]any); ok {
		return fmt.Errorf("Failed to create MCP session: %v", e["message"])
	}
	r, _ := res["result"].(map[string]any)
	if c.session, _ = r["session_id"].(string); c.session == "" {
		return fmt.Errorf("Failed to create MCP session: missing session_id")
	}
	return nil
}

// listTools is list_tools(): the tools' names (none when a request failed,
// as list_tools swallows the error).
func (c *mcpToolClient) listTools() []string {
	if c.ensureSession() != nil {
		return nil
	}
	res := c.request("tools/list", map[string]any{"session_id": c.session})
	var names []string
	if r, ok := res["result"].(map[string]any); ok {
		for _, tool := range asSlice(r["tools"]) {
			names = append(names, tool.(map[string]any)["name"].(string))
		}
	}
	return names
}

// callTool is call_tool(name, **kwargs): result["data"], or the error
// call_tool raises.
func (c *mcpToolClient) callTool(name string, kwargs map[string]any) (any, error) {
	if err := c.ensureSession(); err != nil {
		return nil, err
	}
	res := c.request("tools/call", map[string]any{"name": name, "arguments": kwargs, "session_id": c.session})
	if e, ok := res["error"].(map[string]any); ok {
		return nil, fmt.Errorf("Tool '%s' failed: %v", name, e["message"])
	}
	if r, ok := res["result"].(map[string]any); ok && r["data"] != nil {
		return r["data"], nil
	}
	return res["result"], nil
}

// close is close(): openenv/session/close of the session, if any.
func (c *mcpToolClient) close() map[string]any {
	if c.session == "" {
		return nil
	}
	res := c.request("openenv/session/close", map[string]any{"session_id": c.session})
	c.session = ""
	return res
}

// TestProductionMCPClientChoosesItsTask plays tasks through
// MCPToolClient's production-mode sequence, which creates its session
// with no parameters: each client is made with base_url
// .../openenv/tasks/{task_id}, and so plays that task, its submit paid
// what the native protocol pays. A task id's slash may be sent as is or
// escaped. A base_url naming no task the server has fails the session,
// as MCPToolClient reports it.
func TestProductionMCPClientChoosesItsTask(t *testing.T) {
	s := start(t, nil, nil)
	for _, tt := range []struct {
		task   int
		escape bool // the task id's slash sent as %2F
	}{{1, false}, {5, true}} {
		task := s.Dataset.Tasks[tt.task]
		path := task.ID
		if tt.escape {
			path = url.PathEscape(task.ID)
		}
		want := native(t, s, task.ID, []move{{schemas.ToolSubmit, map[string]any{"sql": task.GoldSQL}}})
		c := newMCPToolClient(t, s.base+"/tasks/"+path)
		if tools := c.listTools(); len(tools) != 3 {
			t.Fatalf("%s: list_tools %v", path, tools)
		}
		rec, err := s.trajectory(c.session)
		if err != nil || rec.Task.TaskID != task.ID {
			t.Fatalf("%s: the session's episode %v (%v), want task %s", path, rec, err, task.ID)
		}
		text, err := c.callTool(schemas.ToolSubmit, map[string]any{"sql": task.GoldSQL})
		if err != nil || text == "" {
			t.Fatalf("%s: call_tool submit: %v %v", path, text, err)
		}
		if rec, err = s.trajectory(rec.EpisodeID); err != nil || rec.Outcome != want.final || rec.TotalReward != want.rewards[0] {
			t.Fatalf("%s: the record %v (%v); native %+v", path, rec, err, want)
		}
		if res := c.close(); res["result"] == nil || res["result"].(map[string]any)["closed"] != true {
			t.Fatalf("%s: close after the submit: %v", path, res)
		}
		checkOrigin(t, s, rec.EpisodeID)
	}
	if res := (&mcpToolClient{t: t, url: s.base + "/mcp", session: "ep_none"}).close(); res["error"] == nil {
		t.Fatalf("session/close of a session the server never had: %v", res)
	}
	c := newMCPToolClient(t, s.base+"/tasks/demo/none")
	if _, err := c.callTool(schemas.ToolInspectSchema, nil); err == nil || !strings.Contains(err.Error(), "Failed to create MCP session: no task") {
		t.Fatalf("a base_url naming no task: %v", err)
	}
}

// TestProductionMCPSessionPlaysToTheEnd plays one production-mode session
// of a chosen task call by call, and closes it as MCPToolClient.close
// does; each reward equals the native protocol's, and the record is the
// chosen task's.
func TestProductionMCPSessionPlaysToTheEnd(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[2]
	moves := script(task.GoldSQL)[:3]
	want := native(t, s, task.ID, moves)
	c := newMCPToolClient(t, s.base+"/tasks/"+task.ID)
	for _, m := range moves {
		if _, err := c.callTool(m.tool, m.args); err != nil {
			t.Fatalf("call_tool %s: %v", m.tool, err)
		}
	}
	id := c.session
	if res := c.close(); res["result"].(map[string]any)["closed"] != true {
		t.Fatalf("close: %v", res)
	}
	rec, err := s.trajectory(id)
	if err != nil || rec.Task.TaskID != task.ID || rec.Outcome != schemas.OutcomeNoSubmit || len(rec.Steps) != len(moves) {
		t.Fatalf("the closed session's record: %v %v", rec, err)
	}
	for i, st := range rec.Steps {
		if st.Reward != want.rewards[i] {
			t.Fatalf("step %d paid %v, native %v", i, st.Reward, want.rewards[i])
		}
	}
}

// TestTaskBaseURLOnTheWebSocket: an EnvClient made with the same base_url
// (its WebSocket is base_url + "/ws") plays the task on a reset with no
// data, may name the same task, and is refused another; the other routes
// answer below it as at the surface's root.
func TestTaskBaseURLOnTheWebSocket(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[4].ID
	base := s.base + "/tasks/" + task
	s.ws = "ws" + strings.TrimPrefix(base, "http") + "/ws"
	c := s.dial(t, nil)
	for _, kw := range []map[string]any{{}, {"task_id": task}, {"seed": 9, "unknown": 1}} {
		obs := data(t, c.call(reset(kw)), "observation")["observation"].(map[string]any)
		if obs["task"].(map[string]any)["task_id"] != task {
			t.Fatalf("reset %v at %s: task %v", kw, base, obs["task"])
		}
	}
	if got := errCode(t, c.call(reset(map[string]any{"task_id": s.Dataset.Tasks[0].ID}))); got != openenv.CodeValidation {
		t.Fatalf("a reset naming another task: %s, want %s", got, openenv.CodeValidation)
	}
	if code, res := post(t, base+"/reset", map[string]any{}, nil); code != http.StatusOK ||
		res["observation"].(map[string]any)["task"].(map[string]any)["task_id"] != task {
		t.Fatalf("POST /reset below the task: %d %v", code, res)
	}
	if code, h := get(t, base+"/health", nil); code != http.StatusOK || h["status"] != "healthy" {
		t.Fatalf("GET /health below the task: %d %v", code, h)
	}
	for _, path := range []string{"/tasks/" + task, "/tasks//mcp", "/tasks/mcp"} {
		if code, res := get(t, s.base+path, nil); code != http.StatusNotFound {
			t.Fatalf("GET %s: %d %v, want 404", path, code, res)
		}
	}
}
