package openenv_test

import (
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/schemas"
)

// answer is what MCPToolClient.call_tool makes of a call's reply
// (src/openenv/core/mcp_client.py, meta-pytorch/OpenEnv 685de411e5f7):
// over the WebSocket it raises when the observation's error is set
// ("Tool '{name}' failed: {error.message} (type: {error_type})"); in
// production mode it raises when the JSON-RPC reply is an error ("Tool
// '{name}' failed: {error.message}"), and returns result["data"]
// otherwise. turn is the episode's turn after the call.
type answer struct {
	raises    bool
	message   string // the error's message, when it raises
	errorType string // OpenEnv's ToolErrorType: the observation's, or the JSON-RPC error's data's
	turn      float64
}

// path plays one call of a fresh episode of the task one way.
type path struct {
	name string
	call func(t *testing.T, s *surface, task, tool string, args map[string]any) answer
}

// toolPaths are every way a tool call reaches an episode.
func toolPaths() []path {
	return []path{
		{"WebSocket step", func(t *testing.T, s *surface, task, tool string, args map[string]any) answer {
			c := s.dial(t, nil)
			data(t, c.call(reset(map[string]any{"task_id": task})), "observation")
			return stepAnswer(data(t, c.call(callTool(tool, args)), "observation"))
		}},
		{"POST /step", func(t *testing.T, s *surface, task, tool string, args map[string]any) answer {
			_, res := post(t, s.base+"/reset", map[string]any{"task_id": task}, nil)
			id := res["observation"].(map[string]any)["episode_id"]
			action := map[string]any{"type": "call_tool", "tool_name": tool, "arguments": args}
			_, res = post(t, s.base+"/step", map[string]any{"action": action, "episode_id": id}, nil)
			return stepAnswer(res)
		}},
		{"WebSocket mcp message", func(t *testing.T, s *surface, task, tool string, args map[string]any) answer {
			c := s.dial(t, nil)
			data(t, c.call(reset(map[string]any{"task_id": task})), "observation")
			rpc := jsonRPC(1, "tools/call", map[string]any{"name": tool, "arguments": args})
			return rpcAnswer(data(t, c.call(map[string]any{"type": "mcp", "data": rpc}), "mcp"))
		}},
		{"POST /mcp", func(t *testing.T, s *surface, task, tool string, args map[string]any) answer {
			c := newMCPToolClient(t, s.base+"/tasks/"+task)
			if err := c.ensureSession(); err != nil {
				t.Fatal(err)
			}
			return rpcAnswer(c.request("tools/call", map[string]any{"name": tool, "arguments": args, "session_id": c.session}))
		}},
		{"GET /mcp WebSocket", func(t *testing.T, s *surface, task, tool string, args map[string]any) answer {
			conn, _, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(s.base, "http")+"/mcp", nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			c := &envClient{t: t, conn: conn}
			c.call(jsonRPC(1, "openenv/session/create", map[string]any{"task_id": task}))
			return rpcAnswer(c.call(jsonRPC(2, "tools/call", map[string]any{"name": tool, "arguments": args})))
		}},
	}
}

// stepAnswer is call_tool's outcome of an observation reply.
func stepAnswer(d map[string]any) answer {
	obs := d["observation"].(map[string]any)
	a := answer{turn: obs["metadata"].(map[string]any)["turn"].(float64)}
	if e, ok := obs["error"].(map[string]any); ok {
		a.raises, a.message, a.errorType = true, e["message"].(string), e["error_type"].(string)
	}
	return a
}

// rpcAnswer is call_tool's outcome of a JSON-RPC reply; an error's data
// say what the call did.
func rpcAnswer(res map[string]any) answer {
	if e, ok := res["error"].(map[string]any); ok {
		d, _ := e["data"].(map[string]any)
		md, _ := d["metadata"].(map[string]any)
		turn, _ := md["turn"].(float64)
		et, _ := d["error_type"].(string)
		return answer{raises: true, message: e["message"].(string), errorType: et, turn: turn}
	}
	md := res["result"].(map[string]any)["structuredContent"].(map[string]any)["metadata"].(map[string]any)
	return answer{turn: md["turn"].(float64)}
}

// TestToolErrorsRaiseOnEveryPath calls a tool the episode does not have,
// and one with arguments that do not fit, on every path: OpenEnv's
// clients raise on each, with the same message, as OpenEnv's own server
// makes them (an observation error on the WebSocket; on /mcp a JSON-RPC
// error, http_server.py's mcp_handler answering "Tool not found"), and the
// call is a turn on each. A call that runs, bad SQL included, raises on
// none.
func TestToolErrorsRaiseOnEveryPath(t *testing.T) {
	s := start(t, nil, nil)
	task := s.Dataset.Tasks[0].ID
	for _, tt := range []struct {
		tool      string
		args      map[string]any
		errorType string
	}{
		{"no_such_tool", map[string]any{}, "tool_not_found"},
		{schemas.ToolExecuteSQL, map[string]any{"sql": 5}, "invalid_args"},
		{schemas.ToolExecuteSQL, map[string]any{"sql": "SELEC nothing"}, ""},
		{schemas.ToolInspectSchema, map[string]any{}, ""},
	} {
		paths := toolPaths()
		first := paths[0].call(t, s, task, tt.tool, tt.args)
		for _, p := range paths {
			got := p.call(t, s, task, tt.tool, tt.args)
			if got.raises != (tt.errorType != "") || got.errorType != tt.errorType || got.turn != 1 {
				t.Errorf("%s %v on %s: %+v, want error type %q and a turn spent", tt.tool, tt.args, p.name, got, tt.errorType)
			}
			if got.message != first.message {
				t.Errorf("%s on %s: message %q, on %s %q", tt.tool, p.name, got.message, paths[0].name, first.message)
			}
		}
	}
}
