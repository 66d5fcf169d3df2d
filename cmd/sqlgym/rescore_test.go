package main

import (
	"path/filepath"
	"strings"
	"testing"
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
