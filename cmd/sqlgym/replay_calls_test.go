package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestReplayKeepsMaxCallsPerTurn serves with --max-calls-per-turn 2 and
// --prompt-style native, plays a turn of three calls (the third, a right
// submission, answered as not run) and then the submission, and replays
// with replay's default bound (8): the replay runs the turn as the server
// did, from the bound and the style the record keeps, and reproduces it.
func TestReplayKeepsMaxCallsPerTurn(t *testing.T) {
	dir := t.TempDir()
	task := demoTasks(t)[0]
	var third string
	serveAndDrive(t, []string{"--data-dir", dir, "--max-calls-per-turn", "2", "--prompt-style", "native"}, func(c *client.Client) {
		ctx := context.Background()
		info, err := c.Info(ctx)
		if err != nil || info.PromptStyle != schemas.PromptStyleNative || info.Limits.MaxCallsPerTurn != 2 {
			t.Fatalf("server.info: %+v (%v), want prompt_style native and max_calls_per_turn 2", info, err)
		}
		r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID})
		if err != nil {
			t.Fatal(err)
		}
		call := func(tool, sql string) schemas.ToolCall {
			args, _ := json.Marshal(map[string]string{"sql": sql})
			return schemas.ToolCall{Type: "function", Function: schemas.FunctionCall{Name: tool, Arguments: args}}
		}
		turn := schemas.AssistantMessage{Role: "assistant", ToolCalls: []schemas.ToolCall{
			call(schemas.ToolExecuteSQL, "SELECT 1"), call(schemas.ToolExecuteSQL, task.GoldSQL), call(schemas.ToolSubmit, task.GoldSQL)}}
		res, err := c.Step(ctx, r.EpisodeID, client.Message(turn))
		if err != nil {
			t.Fatal(err)
		}
		if res.Terminated || len(res.Observations) != 3 {
			t.Fatalf("the turn of three calls: terminated %v, %d observations; want the submission not run", res.Terminated, len(res.Observations))
		}
		third = res.Observations[2].Content
		if _, err := c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": task.GoldSQL})); err != nil {
			t.Fatal(err)
		}
	})
	if !strings.Contains(third, "at most 2 calls") {
		t.Fatalf("the third call was answered %q, want it not run", third)
	}
	raw := filepath.Join(dir, "raw.jsonl")
	mustRun(t, "export", "--data-dir", dir, "--format", "raw", "--out", raw)
	if lines := jsonLines(t, raw); len(lines) != 1 || lines[0]["max_calls_per_turn"] != 2.0 || lines[0]["prompt_style"] != "native" {
		t.Fatalf("recorded %v, want max_calls_per_turn 2 and prompt_style native", lines)
	}
	out := mustRun(t, "replay", "--data-dir", dir)
	if !strings.Contains(out, "1 episodes: 1 reproduced, 0 diverged") || !strings.Contains(out, "2 of 2 steps reproduced") {
		t.Errorf("replay printed:\n%s", out)
	}
}
