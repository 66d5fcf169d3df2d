package mcpserver_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
)

// TestHostileArgumentsGetErrors calls the tools with what their schemas
// refuse: wrong types, unknown fields, non-objects, an unknown tool, an
// episode's tool before any episode. Each gets an error naming what was
// wrong, and the session then plays an episode.
func TestHostileArgumentsGetErrors(t *testing.T) {
	h := start(t, options{})
	cs := h.connect(t, "")
	for _, tt := range []struct {
		tool string
		args any
		want string
	}{
		{"execute_sql", map[string]any{"sql": "SELECT 1"}, "start_episode"},
		{mcpserver.ToolStartEpisode, map[string]any{"task_id": 7}, "task_id"},
		{mcpserver.ToolStartEpisode, map[string]any{"task": "demo/library-001"}, "task"},
		{mcpserver.ToolStartEpisode, map[string]any{"tags": []int{1}}, "tags"},
		{mcpserver.ToolListTasks, map[string]any{"limit": "ten"}, "limit"},
		{mcpserver.ToolGetReward, map[string]any{"x": 1}, "x"},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
		msg := ""
		if err != nil {
			msg = err.Error()
		} else if res.IsError {
			msg = text(res)
		}
		if msg == "" || !strings.Contains(msg, tt.want) {
			t.Errorf("%s %v: error %q, want one naming %q", tt.tool, tt.args, msg, tt.want)
		}
	}
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "drop_table"}); err == nil || !strings.Contains(err.Error(), "drop_table") {
		t.Errorf("an unknown tool: %v, want an error naming it", err)
	}
	startEpisode(t, cs, "demo/library-001")
	for _, args := range []any{map[string]any{"sql": 5}, map[string]any{"sql": "SELECT 1", "bogus": 1}} {
		res := call(t, cs, "execute_sql", args)
		if !res.IsError || !strings.Contains(text(res), "argument") {
			t.Errorf("execute_sql %v: %q, want an error about its arguments", args, text(res))
		}
	}
	if res := call(t, cs, "execute_sql", map[string]any{"sql": "SELECT 1"}); res.IsError {
		t.Fatalf("the session after the bad calls: %s", text(res))
	}
}

// TestRawRequestsAreRefusedWithReasons sends what no MCP client sends:
// JSON nested past the decoder's depth, a body that is not JSON, a
// session id the server never issued, and, with a token, GET and DELETE
// without it or with it in the URL. None opens a session.
func TestRawRequestsAreRefusedWithReasons(t *testing.T) {
	h := start(t, options{})
	deep := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`
	for name, body := range map[string]string{"deep": deep, "not JSON": `{"jsonrpc":`} {
		if code, b := h.postBody(t, body, nil); code < 400 && !strings.Contains(b, `"error"`) {
			t.Errorf("%s body: %d %.200q, want an error", name, code, b)
		}
	}
	code, _ := h.postBody(t, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, map[string]string{"Mcp-Session-Id": "made-up"})
	if code != http.StatusNotFound {
		t.Errorf("a session id never issued: %d, want 404", code)
	}
	if got := h.scrape(t, "sqlgym_mcp_sessions"); got != 0 {
		t.Errorf("%v sessions open after refused requests", got)
	}

	ht := start(t, options{token: "sekret"})
	for _, m := range []string{"GET", "DELETE", "POST"} {
		for name, u := range map[string]string{"none": ht.url, "in the URL": ht.url + "?token=sekret&access_token=sekret"} {
			req, _ := http.NewRequest(m, u, strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", "any")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized {
				t.Errorf("%s /mcp, token %s: %d, want 401", m, name, resp.StatusCode)
			}
		}
	}
}
