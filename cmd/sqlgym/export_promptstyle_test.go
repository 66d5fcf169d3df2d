package main

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestExportPromptStyleNative plays two text-style episodes through the
// real server, one of native calls and one of a hermes text action, and
// exports sft with --prompt-style native: the first is written with the
// native system prompt and its tools, the second is dropped as
// prompt-style, and the report says so. --prompt-style for raw, or of
// another style, is a usage error.
func TestExportPromptStyleNative(t *testing.T) {
	dir := t.TempDir()
	task := demoTasks(t)[0]
	serveAndDrive(t, []string{"--data-dir", dir}, func(c *client.Client) {
		ctx := context.Background()
		args, _ := json.Marshal(map[string]string{"sql": task.GoldSQL})
		for _, a := range []schemas.Action{
			client.Message(schemas.AssistantMessage{Role: "assistant", ToolCalls: []schemas.ToolCall{
				{Function: schemas.FunctionCall{Name: schemas.ToolSubmit, Arguments: args}}}}),
			client.Text(`<tool_call>{"name": "submit", "arguments": ` + string(args) + `}</tool_call>`),
		} {
			r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Step(ctx, r.EpisodeID, a); err != nil {
				t.Fatal(err)
			}
		}
	})
	sft := filepath.Join(dir, "sft.jsonl")
	out := mustRun(t, "export", "--data-dir", dir, "--format", "sft", "--prompt-style", "native", "--out", sft)
	lines := jsonLines(t, sft)
	if len(lines) != 1 || !strings.Contains(out, "dropped      1  prompt-style") {
		t.Fatalf("wrote %d lines; report:\n%s", len(lines), out)
	}
	system := lines[0]["messages"].([]any)[0].(map[string]any)["content"].(string)
	if strings.Contains(system, "<tool_call>") || strings.Contains(system, "execute_sql") || len(lines[0]["tools"].([]any)) != 3 {
		t.Errorf("the row's system prompt is not native, or its tools are not given:\n%s", system)
	}
	for _, args := range [][]string{{"--format", "raw", "--prompt-style", "native"}, {"--format", "sft", "--prompt-style", "text"}} {
		_, _, err := sqlgym(t, append([]string{"export", "--data-dir", dir}, args...)...)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--prompt-style") {
			t.Errorf("export %q: %v, want a usage error naming --prompt-style", args, err)
		}
	}
}
