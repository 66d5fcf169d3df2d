package main

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestMaxCallsPerTurnUsage: --max-calls-per-turn outside 1 to 1024 is a
// usage error naming it, before anything starts.
func TestMaxCallsPerTurnUsage(t *testing.T) {
	for _, n := range []string{"0", "1025"} {
		_, _, err := sqlgym(t, "serve", "--addr", "127.0.0.1:0", "--max-calls-per-turn", n)
		if !errors.As(err, new(usageError)) || !strings.Contains(err.Error(), "--max-calls-per-turn must be from 1 to 1024") {
			t.Errorf("serve --max-calls-per-turn %s: %v, want a usage error naming it", n, err)
		}
	}
}

// TestMaxCallsPerTurnServed: serve reports its --max-calls-per-turn in
// server.info, runs that many calls of a message, and answers the others
// with a not_run tool message that names the flag.
func TestMaxCallsPerTurnServed(t *testing.T) {
	url := startServe(t, "--data-dir", t.TempDir(), "--max-calls-per-turn", "2")
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	info, err := c.Info(ctx)
	if err != nil || info.Limits.MaxCallsPerTurn != 2 {
		t.Fatalf("server.info limits %+v (%v), want max_calls_per_turn 2", info.Limits, err)
	}
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001"})
	if err != nil {
		t.Fatal(err)
	}
	look := schemas.ToolCall{Function: schemas.FunctionCall{Name: schemas.ToolInspectSchema}}
	res, err := c.Step(ctx, r.EpisodeID, client.Message(schemas.AssistantMessage{ToolCalls: []schemas.ToolCall{look, look, look}}))
	if err != nil {
		t.Fatal(err)
	}
	third := res.Info.Calls[2]
	if len(res.Observations) != 3 || third.Error == nil || third.Error.Code != schemas.ErrCodeNotRun ||
		!strings.Contains(res.Observations[2].Content, "a turn runs at most 2 calls (the server's --max-calls-per-turn), and this reply holds 3") ||
		res.Info.Calls[1].Error != nil {
		t.Fatalf("three calls under a bound of 2: %+v", res)
	}
}
