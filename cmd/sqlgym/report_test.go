package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/schemas"
)

// play is one episode a plain client plays: its tags, task and actions
// (SQL of execute_sql, then of submit; "" leaves the episode and closes
// it).
type play struct {
	tags, task string
	sqls       []string
}

// TestReportByTagOnClientEpisodes records episodes through the Go
// client, as an RL trainer would (tags {run, policy}, no sample), on a
// running server, then runs sqlgym report --run --by policy on its store:
// one report per policy, numbers worked out by hand, another run's
// episodes left out, the episodes without the tag reported on their own.
func TestReportByTagOnClientEpisodes(t *testing.T) {
	clearAuthEnv(t)
	dir := t.TempDir()
	url := startServe(t, "--data-dir", dir)
	ds, err := demo.Load(context.Background(), t.TempDir(), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ds.Task("demo/library-001")
	c, _ := ds.Task("demo/clinic-001")
	v1, v2 := `{"run":"rl1","policy":"ckpt/v1"}`, `{"run":"rl1","policy":"v2"}`
	playAll(t, url, []play{
		{v1, a.ID, []string{a.GoldSQL}},                            // correct, first shot
		{v1, a.ID, []string{"SELECT -1"}},                          // mismatch
		{v1, c.ID, []string{c.GoldSQL}},                            // correct, first shot
		{v2, a.ID, []string{"SELECT 1", a.GoldSQL}},                // correct after exploring: repair
		{v2, c.ID, []string{"SELECT 1", ""}},                       // closed: no_submit
		{`{"run":"rl2","policy":"v2"}`, c.ID, []string{c.GoldSQL}}, // another run
		{`{"run":"rl1"}`, c.ID, []string{"SELECT -1"}},             // no policy tag
	})
	out := filepath.Join(dir, "out", "not-yet") // report makes the folder
	var stdout bytes.Buffer
	if err := run(context.Background(), []string{"report", "--data-dir", dir, "--run", "rl1", "--by", "policy", "--out", out},
		&stdout, &stdout); err != nil {
		t.Fatalf("report: %v\n%s", err, &stdout)
	}
	for _, want := range []string{"policy = ckpt/v1", "policy = v2", "policy = (untagged)", "vote by normalized SQL text"} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, &stdout)
		}
	}
	checkGroupReport(t, filepath.Join(out, "report-ckpt%2Fv1.json"), map[string]any{"episodes": 3.0, "tasks": 2.0,
		"samples": 2.0, "mean_accuracy": 2.0 / 3, "sc_accuracy": 1.0, "first_shot_accuracy": 2.0 / 3, "after_repair_accuracy": 0.0,
		"pass_at_k": map[string]any{"1": 0.75, "2": 1.0}, "sc_vote": "sql_text", "run": "rl1"})
	checkGroupReport(t, filepath.Join(out, "report-v2.json"), map[string]any{"episodes": 2.0, "mean_accuracy": 0.5,
		"first_shot_accuracy": 0.0, "after_repair_accuracy": 0.5, "outcomes": map[string]any{"correct": 1.0, "no_submit": 1.0},
		"tool_calls": map[string]any{"execute_sql": 2.0, "submit": 1.0}})
	checkGroupReport(t, filepath.Join(out, "report-.json"), map[string]any{"episodes": 1.0, "mean_accuracy": 0.0,
		"outcomes": map[string]any{"mismatch": 1.0}})
}

// playAll plays the episodes, one after the other, through the Go client.
func playAll(t *testing.T, url string, plays []play) {
	t.Helper()
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, p := range plays {
		ep, err := c.Reset(ctx, schemas.ResetParams{TaskID: p.task, Tags: json.RawMessage(p.tags)})
		if err != nil {
			t.Fatal(err)
		}
		for i, sql := range p.sqls {
			if sql == "" {
				if _, err := c.CloseEpisode(ctx, ep.EpisodeID); err != nil {
					t.Fatal(err)
				}
				break
			}
			tool := "execute_sql"
			if i == len(p.sqls)-1 {
				tool = "submit"
			}
			if _, err := c.Step(ctx, ep.EpisodeID, client.ToolCall(tool, map[string]any{"sql": sql})); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkGroupReport checks the named numbers of a report file.
func checkGroupReport(t *testing.T, path string, want map[string]any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range want {
		g, _ := json.Marshal(got[k])
		w, _ := json.Marshal(v)
		if !bytes.Equal(g, w) {
			t.Errorf("%s: %s = %s, want %s", filepath.Base(path), k, g, w)
		}
	}
}
