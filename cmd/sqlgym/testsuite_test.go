package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
)

// singersDataset writes a JSONL dataset of two tasks over one database
// whose rows let two wrong answers pass: no age between 31 and 35, no
// country but France starting with "Fr".
func singersDataset(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	err := sqlite.Build(context.Background(), filepath.Join(dir, "singers.sqlite"), `
CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT NOT NULL, age INTEGER NOT NULL, country TEXT NOT NULL);
INSERT INTO singer VALUES (1,'Ann',25,'France'),(2,'Bob',41,'Spain'),(3,'Cid',30,'France'),
  (4,'Dee',52,'Japan'),(5,'Eve',28,'Spain'),(6,'Fay',38,'France'),(7,'Gus',22,'Japan');`)
	if err != nil {
		t.Fatal(err)
	}
	tasks := `{"task_id": "older", "db_id": "singers", "question": "Who is over 30?", "gold_sql": "SELECT id FROM singer WHERE age > 30"}
{"task_id": "french", "db_id": "singers", "question": "How many singers are from France?", "gold_sql": "SELECT count(*) FROM singer WHERE country = 'France'"}
`
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(tasks), 0o644); err != nil {
		t.Fatal(err)
	}
	return "singers=jsonl:" + dir
}

// TestTestsuiteBuildAndEval builds the suites of a small dataset, then
// scores predictions that the one database pays by chance: EX counts
// them correct, TS does not, and says which suite database told them
// apart.
func TestTestsuiteBuildAndEval(t *testing.T) {
	dataset, dataDir := singersDataset(t), t.TempDir()
	out, errOut, err := evalCmd(t, "testsuite", "build", "--dataset", dataset, "--data-dir", dataDir, "--candidates", "40", "--workers", "1")
	if err != nil {
		t.Fatalf("build: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "singers: test suites of 1 databases") || !strings.Contains(errOut, "singers 1/1 singers: 2 golds") {
		t.Errorf("build printed:\n%s\n%s", out, errOut)
	}
	out, _, err = evalCmd(t, "testsuite", "status", "--dataset", dataset, "--data-dir", dataDir)
	if err != nil || !strings.Contains(out, "singers: 2 of 2 tasks have a test suite; databases: 1 current, 0 stale, 0 missing") {
		t.Errorf("status: %v\n%s", err, out)
	}
	preds := evalWrite(t, "pred.sql", "SELECT id FROM singer WHERE age > 35\nSELECT count(*) FROM singer WHERE country LIKE 'Fr%'\n")
	verdicts := filepath.Join(t.TempDir(), "verdicts.jsonl")
	out, errOut, err = evalCmd(t, "eval", "--dataset", dataset, "--data-dir", dataDir, "--predictions", preds, "--out", verdicts)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, errOut)
	}
	if !strings.Contains(out, "EX 1.000 (2/2)\nTS 0.000 (0/2)\n") || !strings.Contains(out, "correct under EX, told apart by a test suite  2") {
		t.Errorf("eval printed:\n%s", out)
	}
	for _, r := range evalRecords(t, verdicts) {
		if r.TS == nil || r.TS.Correct || !strings.HasPrefix(r.TS.ToldApartBy, "singers/ts-") {
			t.Errorf("%s: TS %+v, want told apart by a suite database", r.TaskID, r.TS)
		}
	}
	out, _, err = evalCmd(t, "eval", "--dataset", dataset, "--data-dir", dataDir, "--predictions", preds, "--judge", "exec")
	if err != nil || strings.Contains(out, "\nTS ") {
		t.Errorf("eval --judge exec: %v, printed a TS figure:\n%s", err, out)
	}
}

// TestJudgeFlagErrors: a wrong --judge or --ties, and --judge suite where
// no suite was built, are usage errors that say what to do.
func TestJudgeFlagErrors(t *testing.T) {
	dataset, dataDir := singersDataset(t), t.TempDir()
	preds := evalWrite(t, "pred.sql", "SELECT 1\nSELECT 1\n")
	if err := os.MkdirAll(filepath.Join(dataDir, "testsuites"), 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--judge", "both"}, `--judge "both": want auto, suite or exec`},
		{[]string{"--ties", "random"}, `--ties "random": want any or official`},
		{[]string{"--judge", "suite"}, "--judge suite: no current test suite for every database of singers in " +
			filepath.Join(dataDir, "testsuites") + ": sqlgym testsuite build --dataset " + dataset + " --data-dir " + dataDir + " makes them"},
	}
	for _, tt := range tests {
		args := append([]string{"eval", "--dataset", dataset, "--data-dir", dataDir, "--predictions", preds}, tt.args...)
		_, _, err := evalCmd(t, args...)
		if !errors.As(err, new(usageError)) || err.Error() != tt.want {
			t.Errorf("%v: err = %v, want the usage error %q", tt.args, err, tt.want)
		}
	}
}
