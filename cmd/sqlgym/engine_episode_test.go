package main

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// stepWant is a step of an episode on a server engine and a text its
// observation must hold.
type stepWant struct {
	action schemas.Action
	want   string
}

// sqlArgs are execute_sql's or submit's arguments.
func sqlArgs(q string) map[string]any { return map[string]any{"sql": q} }

// playOnEngine checks the server serves one dataset in dialect, resets
// task (whose prompt must name engine, as "MySQL"), plays steps, then
// submits answer, which must be correct.
func playOnEngine(t *testing.T, c *client.Client, dialect, engine, task string, steps []stepWant, answer string) {
	t.Helper()
	ctx := context.Background()
	info, err := c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Datasets) != 1 || info.Datasets[0].Dialect != dialect {
		t.Fatalf("datasets = %+v, want one of dialect %s", info.Datasets, dialect)
	}
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task})
	if err != nil {
		t.Fatal(err)
	}
	if r.Task.Dialect != dialect || !strings.Contains(r.Messages[0].Content, engine+" SQL") {
		t.Errorf("task dialect %q, prompt %q; want %s and a prompt naming %s", r.Task.Dialect, r.Messages[0].Content, dialect, engine)
	}
	for _, s := range steps {
		res, err := c.Step(ctx, r.EpisodeID, s.action)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Observation.Content, s.want) {
			t.Errorf("observation %q, want it to contain %q", res.Observation.Content, s.want)
		}
	}
	res, err := c.Step(ctx, r.EpisodeID, client.ToolCall("submit", sqlArgs(answer)))
	if err != nil {
		t.Fatal(err)
	}
	if res.Info.Outcome != "correct" || !res.Terminated {
		t.Errorf("submit: outcome %q, terminated %v; want correct: %+v", res.Info.Outcome, res.Terminated, res)
	}
}
