package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// TestRolloutReportSpiderHardness: a rollout over every Spider-dev task
// reports by_difficulty with the official evaluator's levels: each
// level's task count equals the official labels' (spiderdev.OfficialHardness:
// taoyds/spider, evaluation.py, Evaluator.eval_hardness), and no task is
// left without one.
func TestRolloutReportSpiderHardness(t *testing.T) {
	dir := spiderdev.Dir(t)
	want := map[string]float64{}
	for _, level := range spiderdev.OfficialHardness(t) {
		want[level]++
	}
	data, out := t.TempDir(), filepath.Join(t.TempDir(), "out")
	args := []string{"rollout", "--dataset", "spider:" + dir, "--model-url", submitOne(t), "--model", "m1",
		"--data-dir", data, "--out", out, "--run", "hardness"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("rollout: %v\n%s", err, &stderr)
	}
	rep := readReportJSON(t, out)
	byDiff, _ := rep["by_difficulty"].(map[string]any)
	if len(byDiff) != len(want) {
		t.Errorf("by_difficulty has %d groups, want %d (%v)", len(byDiff), len(want), want)
	}
	for level, n := range want {
		g, _ := byDiff[level].(map[string]any)
		if g == nil || g["tasks"] != n {
			t.Errorf("by_difficulty[%s] = %v, want %v tasks", level, g, n)
		}
	}
}
