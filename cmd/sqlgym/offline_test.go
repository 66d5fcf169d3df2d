package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/schemas"
)

// demoTasks are the demo's tasks, with their golds.
func demoTasks(t *testing.T) []env.Task {
	t.Helper()
	ds, err := demo.Load(context.Background(), t.TempDir(), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	return ds.Tasks
}

// playDemo plays n demo episodes, each task four ways: the gold submitted, a wrong
// submission, the gold run then submitted, and the gold as a hermes text
// action under a tag.
func playDemo(t *testing.T, n int) func(c *client.Client) {
	tasks := demoTasks(t)
	return func(c *client.Client) {
		ctx := context.Background()
		for i := range n {
			task := tasks[(i/4)%len(tasks)] // each task four ways
			r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID, Tags: json.RawMessage(`{"policy":"p` + string(rune('0'+i%4)) + `"}`)})
			if err != nil {
				t.Fatal(err)
			}
			sql := func(q string) map[string]any { return map[string]any{"sql": q} }
			var actions []schemas.Action
			switch i % 4 {
			case 0:
				actions = []schemas.Action{client.ToolCall("submit", sql(task.GoldSQL))}
			case 1:
				actions = []schemas.Action{client.ToolCall("submit", sql("SELECT 1 WHERE 0"))}
			case 2:
				actions = []schemas.Action{client.ToolCall("execute_sql", sql(task.GoldSQL)), client.ToolCall("submit", sql(task.GoldSQL))}
			case 3:
				b, _ := json.Marshal(map[string]any{"name": "submit", "arguments": sql(task.GoldSQL)})
				actions = []schemas.Action{client.Text("<tool_call>" + string(b) + "</tool_call>")}
			}
			for _, a := range actions {
				if _, err := c.Step(ctx, r.EpisodeID, a); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// sqlgym runs a command in-process and returns what it printed.
func sqlgym(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut strings.Builder
	err = run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

// mustRun runs a command that must succeed.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, err := sqlgym(t, args...)
	if err != nil {
		t.Fatalf("sqlgym %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// jsonLines decodes each line of a file.
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, m)
	}
	return out
}

func writeJSON(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
