package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// TestRescoreWithoutItsDataset: rescoring Spider-dev episodes under a
// spec that judges submissions again, without --dataset, is one error
// naming the dataset and the flag, exit status 2, and no --out file; with
// --dataset it rescores them all.
func TestRescoreWithoutItsDataset(t *testing.T) {
	dir := spiderdev.Dir(t)
	data := t.TempDir()
	args := []string{"rollout", "--dataset", "spider:" + dir, "--model-url", submitOne(t), "--model", "m1", "--limit", "12",
		"--data-dir", data, "--out", filepath.Join(data, "report"), "--run", "r1"}
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("rollout: %v\n%s", err, &stderr)
	}
	spec := writeJSON(t, data, "spider.json", `{"match": "spider"}`)
	out := filepath.Join(data, "rescored.jsonl")
	got, errOut, err := sqlgym(t, "rescore", "--data-dir", data, "--reward", spec, "--out", out)
	want := `rescore: the episodes' submissions must be judged again under this spec, on dataset "spider-dev", which is not loaded: ` +
		`give it with --dataset spider-dev=FORMAT:PATH`
	if err == nil || !strings.Contains(err.Error(), want) || exitCode(err) != 2 {
		t.Fatalf("rescore without --dataset: %v (exit %d), want %q and exit 2", err, exitCode(err), want)
	}
	if got != "" || strings.Contains(errOut, "not rescored") {
		t.Errorf("printed more than the error:\nstdout:\n%s\nstderr:\n%s", got, errOut)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out %s written: %v", out, err)
	}
	report := mustRun(t, "rescore", "--data-dir", data, "--reward", spec, "--dataset", "spider:"+dir)
	if !strings.Contains(report, "rescored 12 episodes (12 submissions judged again); 0 could not be rescored") {
		t.Errorf("rescore with --dataset:\n%s", report)
	}
}
