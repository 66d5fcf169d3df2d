package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// TestEvalMatchFollowsDataset: without --match, eval scores a spider
// dataset by Spider's rule (an answer in the wrong order against an
// ORDER BY ... DESC gold is a mismatch), a bird dataset by BIRD's, and a
// jsonl dataset by the reward spec's; the summary says which rule and
// why.
func TestEvalMatchFollowsDataset(t *testing.T) {
	dir := spiderdev.Dir(t)
	// spider-dev/2's gold: SELECT name, country, age FROM singer ORDER BY age DESC
	ascending := evalWrite(t, "pred.sql", "SELECT name, country, age FROM singer ORDER BY age\tconcert_singer\n")
	stdout, stderr, err := evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", ascending, "--tasks", "spider-dev/2")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{
		"spider-dev: 1 predictions (of 972 tasks: --tasks), match spider (the spider benchmark's rule, the default for a spider dataset; --match to change)",
		"EX 0.000 (0/1)", "line 1      spider-dev/2  mismatch",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, err = evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", ascending, "--tasks", "spider-dev/2", "--match", "bird")
	if err != nil || !strings.Contains(stdout, "match bird (--match)") || !strings.Contains(stdout, "EX 1.000 (1/1)") {
		t.Errorf("--match bird: %v\n%s", err, stdout)
	}

	birdDir := evalBirdDir(t)
	// bird-mini/2's gold: SELECT name, legs FROM animal ORDER BY legs
	reversed := evalWrite(t, "pred.sql", "SELECT name, legs FROM animal ORDER BY legs DESC\n")
	stdout, _, err = evalCmd(t, "eval", "--dataset", "bird-mini=bird:"+birdDir, "--predictions", reversed, "--tasks", "bird-mini/2")
	if err != nil || !strings.Contains(stdout, "match bird (the bird benchmark's rule, the default for a bird dataset; --match to change)") ||
		!strings.Contains(stdout, "EX 1.000 (1/1)") {
		t.Errorf("bird: %v\n%s", err, stdout)
	}

	zoo := filepath.Join(birdDir, "dev_databases", "zoo", "zoo.sqlite")
	tasks := evalWrite(t, "tasks.jsonl", fmt.Sprintf(`{"task_id": "legs", "db_id": "zoo", "question": "By legs?", "gold_sql": "SELECT name, legs FROM animal ORDER BY legs", "db_path": %q}`+"\n", zoo))
	stdout, _, err = evalCmd(t, "eval", "--dataset", "mine=jsonl:"+tasks, "--predictions", reversed)
	if err != nil || !strings.Contains(stdout, "match bird (the reward spec's; a jsonl dataset names no benchmark; --match to change)") {
		t.Errorf("jsonl: %v\n%s", err, stdout)
	}
	spec := evalWrite(t, "spec.json", `{"match": "tolerant"}`)
	stdout, _, err = evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", ascending, "--tasks", "spider-dev/2", "--reward", spec)
	if err != nil || !strings.Contains(stdout, "match tolerant (--reward "+spec+")") {
		t.Errorf("a spec file's match: %v\n%s", err, stdout)
	}
}

// TestEvalSubset: --tasks picks tasks from a whole predictions file or
// pairs a file of one prediction per picked task; --limit takes the
// first N; the verdicts keep each task's index in the dataset and its
// prediction's line.
func TestEvalSubset(t *testing.T) {
	dataset := "bird-mini=bird:" + evalBirdDir(t)
	whole := evalWrite(t, "whole.sql", "SELECT count(*) FROM item\nSELECT 1\nSELECT name, legs FROM animal\nSELECT count(*) FROM animal WHERE legs = 4\n")
	two := evalWrite(t, "two.sql", "SELECT 1\nSELECT count(*) FROM animal WHERE legs = 4\n")
	tests := []struct {
		name, preds string
		args        []string
		ex          string
		records     []string // index pos task_id outcome
	}{
		{"tasks of a whole file", whole, []string{"--tasks", "bird-mini/3, bird-mini/1"}, "EX 0.500 (1/2)",
			[]string{"1 line 2 bird-mini/1 mismatch", "3 line 4 bird-mini/3 correct"}},
		{"one line per task", two, []string{"--tasks", "bird-mini/3,bird-mini/1"}, "EX 0.500 (1/2)",
			[]string{"1 line 1 bird-mini/1 mismatch", "3 line 2 bird-mini/3 correct"}},
		{"limit of a whole file", whole, []string{"--limit", "2"}, "EX 0.500 (1/2)",
			[]string{"0 line 1 bird-mini/0 correct", "1 line 2 bird-mini/1 mismatch"}},
		{"limit of a short file", two, []string{"--limit", "2"}, "EX 0.000 (0/2)",
			[]string{"0 line 1 bird-mini/0 mismatch", "1 line 2 bird-mini/1 pred_error"}},
		{"limit of tasks", whole, []string{"--tasks", "bird-mini/2,bird-mini/3,bird-mini/0", "--limit", "2"}, "EX 1.000 (2/2)",
			[]string{"0 line 1 bird-mini/0 correct", "2 line 3 bird-mini/2 correct"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "v.jsonl")
			args := append([]string{"eval", "--dataset", dataset, "--predictions", tt.preds, "--out", out}, tt.args...)
			stdout, _, err := evalCmd(t, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, tt.ex) || !strings.Contains(stdout, "(of 4 tasks: --") {
				t.Errorf("stdout lacks %q and the subset:\n%s", tt.ex, stdout)
			}
			var got []string
			for _, r := range evalRecords(t, out) {
				got = append(got, fmt.Sprintf("%d %s %s %s", r.Index, r.Pos, r.TaskID, r.Outcome))
			}
			if strings.Join(got, "\n") != strings.Join(tt.records, "\n") {
				t.Errorf("records:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.records, "\n"))
			}
		})
	}
}

func TestEvalSubsetErrors(t *testing.T) {
	dataset := "bird-mini=bird:" + evalBirdDir(t)
	two := evalWrite(t, "two.sql", "SELECT 1\nSELECT 2\n")
	tests := []struct {
		args     []string
		want     string
		exitCode int
	}{
		{[]string{"--tasks", "bird-mini/9"}, `no task "bird-mini/9" in bird-mini (its ids run bird-mini/0 to bird-mini/3)`, 1},
		{[]string{"--tasks", "bird-mini/1,bird-mini/1"}, `task "bird-mini/1" named twice`, 1},
		{[]string{"--tasks", "bird-mini/1"}, "2 predictions, but bird-mini has 4 tasks and 1 are selected", 1},
		{[]string{"--limit", "-1"}, "--limit must be 0 (all tasks) or more", 2},
		{nil, "2 predictions for 4 tasks of bird-mini: want one prediction per task, in dataset order; to score the first 2 tasks only, give --limit 2", 1},
	}
	for _, tt := range tests {
		_, _, err := evalCmd(t, append([]string{"eval", "--dataset", dataset, "--predictions", two}, tt.args...)...)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: error = %v, want one containing %q", tt.args, err, tt.want)
		} else if got := exitCode(err); got != tt.exitCode {
			t.Errorf("%v: exit code %d, want %d", tt.args, got, tt.exitCode)
		}
	}
}

// TestEvalNamesFailedLines: the summary names the first 20 predictions
// that were not correct by their line, and counts the rest.
func TestEvalNamesFailedLines(t *testing.T) {
	dir := spiderdev.Dir(t)
	lines := evalGoldLines(t, dir)
	for i := 100; i < 125; i++ {
		lines[i] = "SELECT 'wrong'"
	}
	preds := evalWrite(t, "pred.sql", strings.Join(lines, "\n")+"\n")
	stdout, _, err := evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", preds)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stdout, "not correct: 25 of 972\nprediction  task            outcome\nline 101    spider-dev/100  mismatch\n") ||
		!strings.Contains(stdout, "line 120    spider-dev/119  mismatch\n... and 5 more (--out writes every verdict)\n") ||
		strings.Contains(stdout, "line 121 ") {
		t.Errorf("failed lines:\n%s", stdout)
	}
}

// TestEvalSpiderDevByDifficulty: eval's by-difficulty table on
// Spider-dev's golds has the official evaluator's levels: the counts of
// each, and each verdict's difficulty, equal the official labels
// (spiderdev.OfficialHardness: taoyds/spider, evaluation.py,
// Evaluator.eval_hardness; its file says how they were computed).
func TestEvalSpiderDevByDifficulty(t *testing.T) {
	dir := spiderdev.Dir(t)
	labels := spiderdev.OfficialHardness(t)
	preds := evalWrite(t, "gold.sql", strings.Join(evalGoldLines(t, dir), "\n")+"\n")
	out := filepath.Join(t.TempDir(), "v.jsonl")
	stdout, _, err := evalCmd(t, "eval", "--dataset", "spider:"+dir, "--predictions", preds, "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range evalRecords(t, out) {
		if r.Difficulty != labels[r.TaskID] {
			t.Errorf("%s: difficulty %q, official %q", r.TaskID, r.Difficulty, labels[r.TaskID])
		}
		count[r.Difficulty]++
	}
	for _, level := range []string{"easy", "medium", "hard", "extra"} {
		want := fmt.Sprintf("\n%-10s  1.000  %-7d  %d\n", level, count[level], count[level])
		if count[level] == 0 || !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "no difficulty") {
		t.Errorf("no difficulty:\n%s", stdout)
	}
}
