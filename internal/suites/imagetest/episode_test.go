package imagetest

import (
	"context"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// demoTask is the embedded demo's task the episode plays, and its gold.
const (
	demoTask = "demo/library-001"
	demoGold = "SELECT count(*) FROM books AS b JOIN authors AS a ON a.author_id = b.author_id WHERE a.name = 'Jane Austen'"
)

// playEpisode plays demoTask through the container's WebSocket: reset,
// an execute_sql, and the gold submitted; it returns the episode's id.
func playEpisode(t *testing.T, url, token string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, url, token)
	if err != nil {
		t.Fatalf("dial %s: %v", url, err)
	}
	defer c.Close()
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: demoTask})
	if err != nil {
		t.Fatalf("reset: %v", err)
	}
	step, err := c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolExecuteSQL, map[string]any{"sql": "SELECT count(*) FROM books"}))
	if err != nil || step.Terminated || step.Info.Error != nil {
		t.Fatalf("execute_sql: %v, %+v", err, step)
	}
	end, err := c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": demoGold}))
	if err != nil || !end.Terminated || end.Info.Outcome != "correct" || end.Reward <= 0 {
		t.Fatalf("submit the gold: %v, %+v", err, end)
	}
	return r.EpisodeID
}
