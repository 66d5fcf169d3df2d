package mcpserver_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/internal/testkit/needs"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// tsClient is the official MCP TypeScript SDK's client (testdata/tsclient),
// installed with npm ci from its lock file into a folder of the user's
// cache named for the lock's hash, so that it is installed once. Without
// node or npm the test is skipped, and fails under CI=true.
func tsClient(t *testing.T) (node, script string) {
	t.Helper()
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		needs.Missing(t, fmt.Sprintf("node and npm are needed to run the TypeScript SDK's client (scripts/node-up installs them): %v %v", errNode, errNpm))
	}
	src := filepath.Join("testdata", "tsclient")
	files := map[string][]byte{}
	h := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json", "client.mjs"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
		h.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "sqlgym", "mcp-tsclient-"+hex.EncodeToString(h.Sum(nil))[:16])
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return node, filepath.Join(dir, "client.mjs")
	}
	// Installed beside the final folder, then renamed into place: a
	// folder of that name is always a whole install.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			t.Fatal(err)
		}
		if tmp, err = os.MkdirTemp(filepath.Dir(dir), "install-"); err != nil {
			t.Fatal(err)
		}
	}
	defer os.RemoveAll(tmp)
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(tmp, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci: %v\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil && !os.IsExist(err) {
		if _, statErr := os.Stat(dir); statErr != nil { // another run put it there first
			t.Fatal(err)
		}
	}
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
