package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/schemas"
)

// The golds of the dataset the offline commands are tested on, in
// SQLite's dialect, and what a prediction for each is on either engine.
// Task 3's number differs between the engines in its last digit: SQLite
// multiplies doubles (1.5 * 1.1 = 1.6500000000000001), the PostgreSQL
// prediction multiplies numerics (1.65), so it matches under tolerant
// matching only. Task 4 keeps answer rows only (SQLite takes the bare
// columns from the row of max(price), which PostgreSQL refuses).
var offlineTasks = []struct{ gold, sqlitePred, pgPred string }{
	{`SELECT count(*) FROM item WHERE name = "pen"`, `SELECT count(*) FROM item WHERE name = 'pen'`, `SELECT count(*) FROM item WHERE name = 'pen'`},
	{"SELECT name FROM item ORDER BY price", "SELECT name FROM item ORDER BY price", "SELECT name FROM item ORDER BY price"},
	{"SELECT price * 1.1 FROM item WHERE id = 1", "SELECT price * 1.1 FROM item WHERE id = 1", "SELECT price::numeric * 1.1 FROM item WHERE id = 1"},
	{"SELECT name, max(price), id FROM item", "SELECT name, max(price), id FROM item", "SELECT 'ink', 3.0, 2"},
	{"SELECT sum(id) FROM item", "SELECT sum(id) FROM item", "SELECT sum(id) FROM item"},
}

// importOffline imports offlineTasks' dataset into a fresh database of
// the test server (as sqlgym import does, the reader role being the one
// serve logs in as) and returns the SQLite dataset's --dataset value, the
// imported folder and the server's URL.
func importOffline(t *testing.T) (string, string, string) {
	t.Helper()
	golds := make([]string, len(offlineTasks))
	for i, tk := range offlineTasks {
		golds[i] = tk.gold
	}
	src := checkSpiderDir(t, golds...)
	dsn := pgtest.Database(t)
	out := t.TempDir()
	report := mustRun(t, "import", "--dataset", src, "--engine", dsn, "--out", out)
	if !strings.Contains(report, "kept as written 3, rewritten and verified 1, answer rows only 1") {
		t.Fatalf("import report:\n%s", report)
	}
	return src, out, dsn
}

// tolerantSpec is tolerant matching with numbers equal within a relative
// 1e-9 (tolerant's float_tolerance is 0, exact, unless given).
const tolerantSpec = `{"match": "tolerant", "float_tolerance": 1e-9}`

// predictions writes one prediction per line, in task order.
func predictions(t *testing.T, pick func(i int) string) string {
	t.Helper()
	lines := make([]string, len(offlineTasks))
	for i := range offlineTasks {
		lines[i] = pick(i)
	}
	return evalWrite(t, "pred.sql", strings.Join(lines, "\n")+"\n")
}

// TestOfflineCommandsOnPostgres: check and eval run unchanged on an
// imported dataset served by PostgreSQL, and eval's numbers from
// PostgreSQL compare with SQLite's under tolerant matching.
func TestOfflineCommandsOnPostgres(t *testing.T) {
	src, out, dsn := importOffline(t)
	pg := []string{"--dataset", "pg=jsonl:" + out, "--engine", "pg=" + dsn}
	stdout := mustRun(t, append([]string{"check"}, pg...)...)
	if !strings.Contains(stdout, "pg: 5 tasks\n  ran ok         4\n  given as rows  1\n  errors         0\n  timeouts       0") {
		t.Errorf("check on PostgreSQL printed:\n%s", stdout)
	}
	sqlitePreds := predictions(t, func(i int) string { return offlineTasks[i].sqlitePred })
	pgPreds := predictions(t, func(i int) string { return offlineTasks[i].pgPred })
	tolerant := writeJSON(t, t.TempDir(), "tolerant.json", tolerantSpec)
	for _, tc := range []struct{ spec, sqlite, pg string }{
		{tolerant, "EX 1.000 (5/5)", "EX 1.000 (5/5)"},
		{"", "EX 1.000 (5/5)", "EX 0.800 (4/5)"}, // bird, exact: 1.65 is not 1.6500000000000001
	} {
		var spec []string
		if tc.spec != "" {
			spec = []string{"--reward", tc.spec}
		}
		onSQLite := mustRun(t, append([]string{"eval", "--dataset", src, "--predictions", sqlitePreds}, spec...)...)
		onPG := mustRun(t, append(append([]string{"eval", "--predictions", pgPreds}, spec...), pg...)...)
		if !strings.Contains(onSQLite, tc.sqlite) || !strings.Contains(onPG, tc.pg) {
			t.Errorf("eval %v: SQLite printed\n%s\nPostgreSQL printed\n%s\nwant %q and %q", spec, onSQLite, onPG, tc.sqlite, tc.pg)
		}
	}
}

// TestReplayAndRescoreOnPostgres records episodes served from an imported
// dataset on PostgreSQL, replays them on it, and rescores them there
// under tolerant matching, which turns the numeric-against-double
// submission correct.
func TestReplayAndRescoreOnPostgres(t *testing.T) {
	_, out, dsn := importOffline(t)
	dir := t.TempDir()
	pg := []string{"--dataset", "pg=jsonl:" + out, "--engine", "pg=" + dsn, "--data-dir", dir}
	ds, err := loadDataset("pg=jsonl:"+out, &engineFlags{servers: map[string]string{"pg": dsn}}, datasets.Load)
	if err != nil {
		t.Fatal(err)
	}
	serveAndDrive(t, pg, func(c *client.Client) {
		ctx := context.Background()
		for i, task := range ds.Tasks {
			for _, sql := range []string{offlineTasks[i].pgPred, "SELECT 1 WHERE false"} {
				r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID})
				if err != nil {
					t.Fatal(err)
				}
				run := client.ToolCall("execute_sql", map[string]any{"sql": sql})
				submit := client.ToolCall("submit", map[string]any{"sql": sql})
				for _, a := range []schemas.Action{run, submit} {
					if _, err := c.Step(ctx, r.EpisodeID, a); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	})
	verifyPostgresUnchanged(t, dsn)
	replayed := mustRun(t, append([]string{"replay"}, pg...)...)
	if !strings.Contains(replayed, "10 episodes: 10 reproduced, 0 diverged, 0 unverifiable") {
		t.Errorf("replay on PostgreSQL printed:\n%s", replayed)
	}
	tolerant := writeJSON(t, dir, "tolerant.json", tolerantSpec)
	rescored := filepath.Join(dir, "rescored.jsonl")
	report := mustRun(t, append([]string{"rescore", "--reward", tolerant, "--out", rescored}, pg...)...)
	if !strings.Contains(report, "rescored 10 episodes (10 submissions judged again); 0 could not be rescored") ||
		!strings.Contains(report, "outcome changed                                       1") {
		t.Errorf("rescore on PostgreSQL printed:\n%s", report)
	}
	correct := 0
	for _, rec := range jsonLines(t, rescored) {
		if rec["outcome"] == "correct" {
			correct++
		}
	}
	if correct != 5 {
		t.Errorf("%d episodes correct under tolerant matching; want 5 (each task's prediction, task 3's numeric included)\n%s", correct, report)
	}
}
