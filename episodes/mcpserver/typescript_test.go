package mcpserver_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/internal/testkit/nodepkg"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// tsClient is the official MCP TypeScript SDK's client (testdata/tsclient),
// installed by nodepkg (npm ci from its lock file, once). Without node or
// npm the test is skipped, and fails under CI=true.
func tsClient(t *testing.T) (node, script string) {
	t.Helper()
	files := map[string][]byte{}
	for _, name := range []string{"package.json", "package-lock.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join("testdata", "tsclient", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	node, dir := nodepkg.Install(t, "mcp-tsclient", files,
		filepath.Join("node_modules", "@modelcontextprotocol", "sdk", "package.json"), "the TypeScript SDK's client")
	return node, filepath.Join(dir, "client.mjs")
}

// tsRun is what client.mjs prints.
type tsRun struct {
	Server struct{ Name string } `json:"server"`
	Tools  []struct {
		Name         string               `json:"name"`
		Title        string               `json:"title"`
		Description  string               `json:"description"`
		InputSchema  json.RawMessage      `json:"inputSchema"`
		OutputSchema json.RawMessage      `json:"outputSchema"`
		Annotations  *mcp.ToolAnnotations `json:"annotations"`
	} `json:"tools"`
	Start          tsAnswer        `json:"start"`
	Steps          []tsAnswer      `json:"steps"`
	Reward         tsAnswer        `json:"reward"`
	SchemaRefusals map[string]bool `json:"schema_refusals"`
}

type tsAnswer struct {
	Text       string          `json:"text"`
	IsError    bool            `json:"isError"`
	Structured json.RawMessage `json:"structured"`
}

// TestTypeScriptClient drives whole episodes with the official TypeScript
// SDK over Streamable HTTP, behind a token, in one session and with a
// session per call as the Inspector CLI makes them: a right and a wrong
// answer earn what the same calls earn natively, every structured
// content passes the SDK's validation against its tool's output schema
// (whose validator refuses what is not the tool's), and tools/list
// carries titles, annotations and the native tools' schemas.
func TestTypeScriptClient(t *testing.T) {
	node, script := tsClient(t)
	h := start(t, options{token: "sekret"})
	native := nativeClient(t, h, "sekret")
	for _, perCall := range []bool{false, true} {
		for name, p := range map[string]play{"right": rightPlay, "wrong": wrongPlay} {
			t.Run(fmt.Sprintf("per call %v/%s", perCall, name), func(t *testing.T) {
				run := runTS(t, node, script, map[string]any{"url": h.url, "token": "sekret", "task_id": p.task,
					"calls": tsCalls(p), "per_call": perCall})
				checkTSTools(t, run)
				var viaMCP outcome
				for _, s := range run.Steps {
					var sr schemas.StepResult
					if err := json.Unmarshal(s.Structured, &sr); err != nil {
						t.Fatal(err)
					}
					if s.Text != sr.Observation.Content || s.IsError != (sr.Info.Error != nil) {
						t.Errorf("text %q, isError %v, for %s", s.Text, s.IsError, s.Structured)
					}
					viaMCP.steps = append(viaMCP.steps, sr)
				}
				var ep schemas.ResetResult
				json.Unmarshal(run.Start.Structured, &ep)
				viaMCP.summary = rewardSummary(t, run.Reward.Structured)
				viaNative, id := playNative(t, native, p)
				compare(t, name, viaMCP, viaNative, ep.EpisodeID, id)
			})
		}
	}
}

// runTS runs client.mjs on a script and reads what it printed.
func runTS(t *testing.T, node, script string, arg map[string]any) tsRun {
	t.Helper()
	b, _ := json.Marshal(arg)
	cmd := exec.Command(node, script, string(b))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, out)
	}
	var run tsRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if run.Server.Name != "sqlgym" || run.Start.IsError {
		t.Fatalf("server %q, start %+v", run.Server.Name, run.Start)
	}
	return run
}

// tsCalls is a play's calls as client.mjs takes them.
func tsCalls(p play) []map[string]any {
	var calls []map[string]any
	for _, a := range p.calls {
		calls = append(calls, map[string]any{"tool": a.Tool, "arguments": json.RawMessage(a.Arguments)})
	}
	return calls
}

// checkTSTools checks the tools the TypeScript client listed: each with
// a title, annotations and an output schema whose validator refuses what
// is not the tool's, the episode's tools with the native definitions.
func checkTSTools(t *testing.T, run tsRun) {
	t.Helper()
	listed := map[string]json.RawMessage{}
	for _, tool := range run.Tools {
		listed[tool.Name] = tool.InputSchema
		if tool.Title == "" || tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil || len(tool.OutputSchema) == 0 {
			t.Errorf("%s: title %q, annotations %+v, output schema %s", tool.Name, tool.Title, tool.Annotations, tool.OutputSchema)
		}
		if !run.SchemaRefusals[tool.Name] {
			t.Errorf("%s: the SDK's validator of its output schema accepts {\"bogus\": 1}", tool.Name)
		}
	}
	for _, def := range tools.AllSet().Definitions() {
		got, ok := listed[def.Function.Name]
		if native, named := withoutEpisodeID(t, got); !ok || !named || native != canonical(t, def.Function.Parameters) {
			t.Errorf("%s: listed schema %s, want %s with episode_id", def.Function.Name, got, def.Function.Parameters)
		}
	}
}
