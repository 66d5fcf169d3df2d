package mcpserver_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// admit is a guard that serves requests bearing one of tokens and
// refuses the others with 401; with no tokens it lets every request
// through.
func admit(tokens []string, next http.Handler) http.Handler {
	if len(tokens) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !slices.Contains(tokens, token) {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// perCall makes one tool call in a session of its own.
type perCall func(t *testing.T, h *harness, token, tool string, args any) *mcp.CallToolResult

// cliCall makes a call as the Inspector CLI makes each one: a session of
// its own (initialize, notifications/initialized), tools/list, then
// tools/call, over plain HTTP; the session is left open, as the CLI
// leaves it, to idle out.
func cliCall(t *testing.T, h *harness, token, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	header, _ := h.rpc(t, token, "", initialize)
	session := header.Get("Mcp-Session-Id")
	if session == "" {
		t.Fatal("initialize: no session id")
	}
	h.rpc(t, token, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	h.rpc(t, token, session, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": args}})
	_, body := h.rpc(t, token, session, string(req))
	var reply struct {
		Result *mcp.CallToolResult `json:"result"`
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(body, &reply); err != nil || reply.Result == nil {
		t.Fatalf("tools/call %s: %s (%v)", tool, body, err)
	}
	return reply.Result
}

// rpc posts a JSON-RPC message to /mcp in a session ("" for none) and
// returns the reply's header and body, failing on an HTTP error.
func (h *harness) rpc(t *testing.T, token, session, body string) (http.Header, []byte) {
	t.Helper()
	headers := map[string]string{"MCP-Protocol-Version": "2025-06-18"}
	if session != "" {
		headers["Mcp-Session-Id"] = session
	}
	if token != "" {
		headers["Authorization"] = "Bearer " + token
	}
	resp, b := h.send(t, body, headers)
	if resp.StatusCode >= 300 {
		t.Fatalf("POST %.80s: %d %s", body, resp.StatusCode, b)
	}
	return resp.Header, bytes.TrimSpace(b)
}

// nativeClient dials the server's native protocol with a token.
func nativeClient(t *testing.T, h *harness, token string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), h.demo.URL, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// sdkCall makes a call in a session of its own opened by the Go SDK's
// client, ended (HTTP DELETE) as soon as the call returns.
func sdkCall(t *testing.T, h *harness, token, tool string, args any) *mcp.CallToolResult {
	t.Helper()
	cs, err := h.dial(token)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	return call(t, cs, tool, args)
}

// TestOneSessionPerCall plays a right and a wrong answer with every call
// in a session of its own, naming the episode by the episode_id
// start_episode returned: as the Inspector CLI plays (sessions left
// open), and as a client that ends each session at once. Behind a token,
// every step earns what the same calls earn natively, and the episode
// ends as native ones do.
func TestOneSessionPerCall(t *testing.T) {
	h := start(t, options{token: "sekret"})
	native := nativeClient(t, h, "sekret")
	for mode, do := range map[string]perCall{"inspector cli": cliCall, "session ended after each call": sdkCall} {
		for name, p := range map[string]play{"right": rightPlay, "wrong": wrongPlay} {
			t.Run(mode+"/"+name, func(t *testing.T) {
				viaMCP, id := playPerCall(t, h, do, p)
				viaNative, nativeID := playNative(t, native, p)
				compare(t, name, viaMCP, viaNative, id, nativeID)
				if traj, err := h.trajectory(id); err != nil || len(traj.Steps) != len(p.calls) {
					t.Errorf("trajectory %+v (%v), want %d steps", traj, err, len(p.calls))
				}
			})
		}
	}
}

// playPerCall plays p with do, every call in a session of its own, and
// returns what it earned and the episode's id.
func playPerCall(t *testing.T, h *harness, do perCall, p play) (outcome, string) {
	t.Helper()
	var ep schemas.ResetResult
	structured(t, do(t, h, "sekret", mcpserver.ToolStartEpisode, map[string]any{"task_id": p.task}), &ep)
	named := map[string]any{"episode_id": ep.EpisodeID}
	var o outcome
	for _, a := range p.calls {
		var args map[string]any
		if err := json.Unmarshal(a.Arguments, &args); err != nil {
			t.Fatal(err)
		}
		args["episode_id"] = ep.EpisodeID
		var sr schemas.StepResult
		structured(t, do(t, h, "sekret", a.Tool, args), &sr)
		o.steps = append(o.steps, sr)
	}
	b, _ := json.Marshal(do(t, h, "sekret", mcpserver.ToolGetReward, named).StructuredContent)
	o.summary = rewardSummary(t, b)
	return o, ep.EpisodeID
}
