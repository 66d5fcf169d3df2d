package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/reward"
	"github.com/sqlgym/sqlgym/schemas"
)

// TestRescore pays recorded demo episodes correct 2 instead of 1, writes
// them out, and replays the rescored records: under their new spec they
// reproduce, which checks the rescoring against the server's own logic.
func TestRescore(t *testing.T) {
	dir := t.TempDir()
	serveAndDrive(t, []string{"--data-dir", dir}, playDemo(t, 16))
	spec := writeJSON(t, dir, "double.json", `{"final": {"correct": 2}}`)
	out := filepath.Join(dir, "rescored.jsonl")
	report := mustRun(t, "rescore", "--data-dir", dir, "--reward", spec, "--out", out)
	for _, want := range []string{"rescored 16 episodes (0 submissions judged again)", "mean", "p50", "outcome changed", "wrote 16 rescored records"} {
		if !strings.Contains(report, want) {
			t.Errorf("rescore report lacks %q:\n%s", want, report)
		}
	}
	correct := 0
	for _, rec := range jsonLines(t, out) {
		spec := rec["reward_spec"].(map[string]any)["final"].(map[string]any)
		if spec["correct"] != 2.0 {
			t.Errorf("%s: rescored record carries spec %v", rec["episode_id"], spec)
		}
		if rec["outcome"] == "correct" {
			correct++
			if rec["final_reward"] != 2.0 {
				t.Errorf("%s: correct episode's final_reward %v, want 2", rec["episode_id"], rec["final_reward"])
			}
		}
	}
	if correct < 8 {
		t.Errorf("%d correct episodes, want at least the 8 golds submitted as calls", correct)
	}
	replayed := mustRun(t, "replay", "--data-dir", dir, "--trajectories", out)
	if !strings.Contains(replayed, "16 episodes: 16 reproduced") {
		t.Errorf("replay of the rescored records:\n%s", replayed)
	}
	// Another match mode judges every submission again.
	spider := writeJSON(t, dir, "spider.json", `{"match": "spider"}`)
	report = mustRun(t, "rescore", "--data-dir", dir, "--reward", spider, "--outcome", "correct")
	if !strings.Contains(report, "submissions judged again") || strings.Contains(report, "(0 submissions judged again)") {
		t.Errorf("rescore under spider judged nothing again:\n%s", report)
	}
	// A preset by name: its paper terms need the submissions judged
	// again, and the rescored records replay under it.
	out = filepath.Join(dir, "retoolsql.jsonl")
	report = mustRun(t, "rescore", "--data-dir", dir, "--reward", "retoolsql", "--outcome", "correct", "--out", out)
	if !strings.Contains(report, "submissions judged again") || strings.Contains(report, "(0 submissions judged again)") {
		t.Errorf("rescore --reward retoolsql judged nothing again:\n%s", report)
	}
	for _, rec := range jsonLines(t, out) {
		final := rec["reward_spec"].(map[string]any)["final"].(map[string]any)
		if final["table_jaccard"] != 0.5 || final["correct"] != 2.0 {
			t.Errorf("%s: rescored record carries spec %v, want retoolsql's", rec["episode_id"], final)
		}
		if r, _ := rec["final_reward"].(float64); rec["outcome"] == "correct" && r <= 2 {
			t.Errorf("%s: correct episode's final_reward %v, want over 2 (correct 2 and the shaping terms)", rec["episode_id"], r)
		}
	}
	replayed = mustRun(t, "replay", "--data-dir", dir, "--trajectories", out)
	if !strings.Contains(replayed, "reproduced") || strings.Contains(replayed, "differ") {
		t.Errorf("replay of the records rescored under retoolsql:\n%s", replayed)
	}
}

// TestRescoreHugeRewards rescores a log whose episodes were paid ±1e308
// (under a spec with such weights, as servers accepted before weights
// were bounded): the report is printed and every rescored reward is
// finite.
func TestRescoreHugeRewards(t *testing.T) {
	dir := t.TempDir()
	writeHugeRewards(t, dir, 1e308, -1e308)
	out := filepath.Join(dir, "rescored.jsonl")
	report := mustRun(t, "rescore", "--data-dir", dir, "--reward", "default", "--out", out)
	if !strings.Contains(report, "rescored 2 episodes") || !strings.Contains(report, "total_reward from") {
		t.Errorf("rescore report:\n%s", report)
	}
	for _, rec := range jsonLines(t, out) {
		if r := rec["total_reward"]; r != -0.2 {
			t.Errorf("%s: rescored total_reward %v, want -0.2 (default no_submit)", rec["episode_id"], r)
		}
	}
}

// TestRewardSpecFilesAreBounded: a spec file whose weights could pay an
// episode +Inf is refused by serve and rescore, naming the weight.
func TestRewardSpecFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	spec := writeJSON(t, dir, "huge.json", `{"final": {"no_submit": 1.7e308}, "turn": {"ok": 1.7e308, "cap": 1.7e308}}`)
	want := "reward.final.no_submit: must be within ±1e+06"
	if _, _, err := sqlgym(t, "rescore", "--data-dir", dir, "--reward", spec); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("rescore --reward %s: %v, want %q", spec, err, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	listened := false
	opts := serverOpts{maxEpisodes: 16, idleTimeout: time.Hour, frameBytes: 4 << 20, grace: time.Second}
	err := runServer(ctx, parseStack(t, "--data-dir", dir, "--reward", spec), opts, zap.NewNop(),
		func() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") },
		func(*serveStack, net.Listener) { listened = true; cancel() })
	if listened || err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("serve --reward %s: listened %v, %v; want %q before listening", spec, listened, err, want)
	}
}

// writeHugeRewards writes one ended demo episode per total into the
// trajectory log under dir, each paid its total by final.no_submit under
// a spec whose no_submit weight is that total.
func writeHugeRewards(t *testing.T, dir string, totals ...float64) {
	t.Helper()
	ctx := context.Background()
	log, err := filelog.Open(filelog.LogDir(dir), filelog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, total := range totals {
		spec := schemas.DefaultRewardSpec()
		spec.Final.NoSubmit = total
		tr := schemas.Trajectory{EpisodeID: fmt.Sprintf("ep_huge_%d", i), RewardSpec: spec, RewardSpecHash: reward.Hash(spec),
			Task:         schemas.TaskView{TaskID: "demo/library-001", Dataset: "demo", DBID: "library", Question: "?", Dialect: "sqlite"},
			ActionFormat: schemas.FormatHermes, MaxTurns: 1, StartedAt: at, Steps: []schemas.StepRecord{}, ServerVersion: "test"}
		if err := log.Begin(ctx, &tr); err != nil {
			t.Fatal(err)
		}
		st := schemas.StepRecord{Turn: 1, Action: schemas.Action{Tool: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`)},
			Tool: "execute_sql", Arguments: json.RawMessage(`{"sql":"SELECT 1"}`), Observation: "1", Reward: total,
			RewardComponents: map[string]float64{"turn.ok": 0, "final.no_submit": total}, Outcome: schemas.OutcomeNoSubmit, At: at}
		if err := log.Step(ctx, tr.EpisodeID, &st); err != nil {
			t.Fatal(err)
		}
		tr.Steps, tr.Outcome, tr.EndedAt = []schemas.StepRecord{st}, schemas.OutcomeNoSubmit, &at
		tr.FinalReward, tr.TotalReward = total, total
		if err := log.End(ctx, &tr); err != nil {
			t.Fatal(err)
		}
	}
}
