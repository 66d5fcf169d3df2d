package main

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/internal/testkit/binserver"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// TestMCPStdioExitsQuietly runs short stdio sessions of `sqlgym mcp` as
// the Inspector CLI does, a process per call, every tool offered (so
// search_values's index is there to build), on the demo and on Spider's
// dev set, whose 20 databases take longer to index than a call takes:
// each process exits 0 and logs nothing at warn or error, the episode a
// session left live included.
func TestMCPStdioExitsQuietly(t *testing.T) {
	bin := binserver.Build(t)
	datasets := map[string][]string{"demo": nil, "spider-dev": {"--dataset", "spider:" + spiderdev.Dir(t)}}
	sessions := map[string][]call{
		"tools/list":                  nil,
		"list_tasks":                  {{tool: mcpserver.ToolListTasks, args: map[string]any{"limit": 1}}},
		"an episode left live":        {{tool: mcpserver.ToolStartEpisode}, {tool: schemas.ToolInspectSchema}},
		"a search that builds values": {{tool: mcpserver.ToolStartEpisode}, {tool: schemas.ToolSearchValues, args: map[string]any{"query": "x"}}},
	}
	for ds, dsArgs := range datasets {
		dir := t.TempDir()
		for name, calls := range sessions {
			args := append([]string{"mcp", "--data-dir", dir, "--tools", strings.Join(tools.Names(), ","),
				"--log-format", "json", "--log-level", "debug"}, dsArgs...)
			log := runMCPSession(t, bin, args, calls)
			for _, line := range loudLines(t, log) {
				t.Errorf("%s, %s: logged %s", ds, name, line)
			}
		}
	}
}

// call is one tools/call of a session.
type call struct {
	tool string
	args map[string]any
}

// runMCPSession starts the binary, lists the tools, makes the calls,
// closes stdin and returns the process's log once it has exited 0.
func runMCPSession(t *testing.T, bin string, args []string, calls []call) string {
	t.Helper()
	cs, cmd, stderr := connectMCP(t, bin, args...)
	ctx := context.Background()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v\n%s", c.tool, err, res, stderr.String())
		}
	}
	if err := cs.Close(); err != nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("exit: %v (status %d)\n%s", err, cmd.ProcessState.ExitCode(), stderr.String())
	}
	return stderr.String()
}

// loudLines are the JSON log lines at warn or above.
func loudLines(t *testing.T, log string) []string {
	t.Helper()
	var loud []string
	sc := bufio.NewScanner(strings.NewReader(log))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var entry struct{ Level string }
		if err := json.Unmarshal(sc.Bytes(), &entry); err != nil {
			t.Fatalf("a log line that is not JSON: %q", sc.Text())
		}
		if entry.Level != "debug" && entry.Level != "info" {
			loud = append(loud, sc.Text())
		}
	}
	return loud
}
