package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/internal/binserver"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// TestMCPStdio runs the real `sqlgym mcp` binary under the Go SDK's
// client over stdio: the tools list, a whole episode to a right answer
// and its reward, and the episode in the trajectory log of the data
// directory, tagged origin=mcp, once the client has closed the session.
func TestMCPStdio(t *testing.T) {
	bin := binserver.Build(t)
	dir := t.TempDir()
	cmd := exec.Command(bin, "mcp", "--data-dir", dir, "--tools", strings.Join(tools.Names(), ","))
	var stderr binserver.LockedBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "sqlgym-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	for _, want := range append(tools.Names(), mcpserver.ToolListTasks, mcpserver.ToolStartEpisode, mcpserver.ToolGetReward) {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list %q lacks %s", names, want)
		}
	}
	callOK := func(name string, args any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", name, err, res, stderr.String())
		}
		return res
	}
	start := callOK(mcpserver.ToolStartEpisode, map[string]any{"task_id": "demo/library-001"})
	var ep schemas.ResetResult
	remarshal(t, start.StructuredContent, &ep)
	callOK(schemas.ToolSearchValues, map[string]any{"query": "jane austin"})
	callOK(schemas.ToolSubmit, map[string]any{"sql": "SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'"})
	var r mcpserver.Reward
	remarshal(t, callOK(mcpserver.ToolGetReward, nil).StructuredContent, &r)
	if r.Outcome != schemas.OutcomeCorrect || r.TotalReward <= 0 || r.Turns != 2 {
		t.Errorf("reward %+v", r)
	}
	if err := cs.Close(); err != nil { // closes stdin; the process exits
		t.Fatalf("close: %v\n%s", err, stderr.String())
	}
	l, err := trajlog.Open(trajlog.LogDir(dir), trajlog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var found []string
	err = l.Episodes(ctx, trajlog.Filter{Tags: map[string]string{"origin": "mcp"}}, func(rec *trajlog.Record) error {
		found = append(found, rec.EpisodeID+" "+rec.Outcome)
		return nil
	})
	if err != nil || !slices.Equal(found, []string{ep.EpisodeID + " correct"}) {
		t.Errorf("episodes tagged origin=mcp in the log: %q (%v), want %s correct", found, err, ep.EpisodeID)
	}
}

// remarshal decodes a result's structured content into v.
func remarshal(t *testing.T, from, v any) {
	t.Helper()
	b, _ := json.Marshal(from)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
}

// TestServeMountsMCP runs `sqlgym serve` with a token and
// --max-mcp-sessions 1: /mcp needs the token, opens one session, and
// refuses the next with 503 naming the flag.
func TestServeMountsMCP(t *testing.T) {
	p := binserver.Start(t, binserver.Build(t), "--data-dir", t.TempDir(), "--token", "sekret", "--max-mcp-sessions", "1")
	endpoint := p.HTTP() + "/mcp"
	initialize := func(token string) (int, string) {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
			`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, _ := initialize(""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d", code)
	}
	if code, body := initialize("sekret"); code != http.StatusOK || !strings.Contains(body, `"name":"sqlgym"`) {
		t.Errorf("first session: %d %s", code, body)
	}
	if code, body := initialize("sekret"); code != http.StatusServiceUnavailable || !strings.Contains(body, "--max-mcp-sessions") {
		t.Errorf("second session: %d %s", code, body)
	}
}
