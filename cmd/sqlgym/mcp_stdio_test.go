package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// TestMCPStdio runs the real `sqlgym mcp` binary under the Go SDK's
// client over stdio: the tools list, a whole episode to a right answer
// and its reward, and the episode in the trajectory log of the data
// directory, tagged origin=mcp and played with the native prompt style,
// once the client has closed the session.
func TestMCPStdio(t *testing.T) {
	dir := t.TempDir()
	cs, _, stderr := connectMCP(t, binserver.Build(t), "mcp", "--data-dir", dir, "--tools", strings.Join(tools.Names(), ","))
	ctx := context.Background()
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
	if sys := ep.Messages[0].Content; strings.Contains(sys, "<tool_call>") || strings.Contains(sys, "search_values") {
		t.Errorf("the episode's prompt names tools or a call syntax:\n%s", sys)
	}
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
	l, err := filelog.Open(filelog.LogDir(dir), filelog.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var found []string
	err = l.Episodes(ctx, trajlog.Filter{Tags: map[string]string{"origin": "mcp"}}, func(rec *trajlog.Record) error {
		found = append(found, rec.EpisodeID+" "+rec.Outcome+" "+rec.PromptStyle)
		return nil
	})
	if err != nil || !slices.Equal(found, []string{ep.EpisodeID + " correct native"}) {
		t.Errorf("episodes tagged origin=mcp in the log: %q (%v), want %s correct native", found, err, ep.EpisodeID)
	}
}

// connectMCP starts the binary with args and connects the Go SDK's
// client to it over stdio; the process's log is in the buffer.
func connectMCP(t *testing.T, bin string, args ...string) (*mcp.ClientSession, *exec.Cmd, *binserver.LockedBuffer) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	stderr := new(binserver.LockedBuffer)
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "sqlgym-test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr.String())
	}
	return cs, cmd, stderr
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
// refuses the next with 503.
func TestServeMountsMCP(t *testing.T) {
	p := binserver.Start(t, binserver.Build(t), "--data-dir", t.TempDir(), "--token", "sekret", "--max-mcp-sessions", "1")
	connect := func(token string) (*mcp.ClientSession, error) {
		c := mcp.NewClient(&mcp.Implementation{Name: "sqlgym-test", Version: "1"}, nil)
		return c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: p.HTTP() + "/mcp",
			HTTPClient: &http.Client{Transport: bearerTransport(token)}, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	}
	if _, err := connect(""); err == nil || !strings.Contains(err.Error(), "Unauthorized") {
		t.Errorf("no token: %v", err)
	}
	cs, err := connect("sekret")
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: mcpserver.ToolListTasks}); err != nil || res.IsError {
		t.Errorf("list_tasks: %v %+v", err, res)
	}
	if _, err := connect("sekret"); err == nil || !strings.Contains(err.Error(), "Service Unavailable") {
		t.Errorf("second session: %v", err)
	}
}

// bearerTransport sends the token, when there is one, with each request.
type bearerTransport string

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if b != "" {
		r = r.Clone(r.Context())
		r.Header.Set("Authorization", "Bearer "+string(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}
