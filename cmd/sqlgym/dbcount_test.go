package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// dbCountSchema is each generated database: three tables joined by
// foreign keys, a few dozen rows, 1 KiB pages (a file of about 6 KB).
const dbCountSchema = `PRAGMA page_size = 1024;
CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT NOT NULL, country TEXT, age INTEGER);
CREATE TABLE concert(id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES singer(id), year INTEGER, venue TEXT);
CREATE TABLE ticket(id INTEGER PRIMARY KEY, concert_id INTEGER REFERENCES concert(id), price REAL);
INSERT INTO singer(name, country, age) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20)
  SELECT 'singer ' || i, 'country ' || (i % 4), 20 + i FROM n;
INSERT INTO concert(singer_id, year, venue) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
  SELECT 1 + i % 20, 2000 + i % 10, 'venue ' || i FROM n;
INSERT INTO ticket(concert_id, price) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40)
  SELECT 1 + i % 30, i * 1.5 FROM n;`

// dbCountDataset writes a JSONL dataset of n databases under dir, one
// task on each: database/dbNNNNN/dbNNNNN.sqlite, each a copy of one file
// built from dbCountSchema (copied rather than built n times: building
// syncs each file, which would take minutes at 20,000). It returns the
// --dataset value.
func dbCountDataset(tb testing.TB, dir string, n int) string {
	tb.Helper()
	tpl := filepath.Join(dir, "template.sqlite")
	if err := sqlite.Build(context.Background(), tpl, dbCountSchema); err != nil {
		tb.Fatal(err)
	}
	data, err := os.ReadFile(tpl)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.Remove(tpl); err != nil {
		tb.Fatal(err)
	}
	var tasks strings.Builder
	enc := json.NewEncoder(&tasks)
	for i := range n {
		id := fmt.Sprintf("db%05d", i)
		path := filepath.Join(dir, "database", id, id+".sqlite")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			tb.Fatal(err)
		}
		rec := map[string]any{"task_id": i, "db_id": id, "question": "How many singers are older than 30?",
			"gold_sql": "SELECT count(*) FROM singer WHERE age > 30"}
		if err := enc.Encode(rec); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(tasks.String()), 0o644); err != nil {
		tb.Fatal(err)
	}
	return "jsonl:" + dir
}

// TestManyDatabasesOpenOnDemand is the small-size version of
// BenchmarkDatabaseCount's property, on 300 databases under
// --db-open-max 16: a bad file among them still stops serve at startup,
// named; once it is fixed, serve starts with no more than 16 SQLite
// connections open (the check leaves every database idle), an episode
// on a database not yet open plays, and after episodes on 40 databases
// the connections open are still those of at most 16 databases.
func TestManyDatabasesOpenOnDemand(t *testing.T) {
	clearAuthEnv(t)
	const n, openMax = 300, 16
	dir := t.TempDir()
	dataset := "many=" + dbCountDataset(t, dir, n)
	bad := filepath.Join(dir, "database", "db00123", "db00123.sqlite")
	good, err := os.ReadFile(bad)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte("these are notes, not a database\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--dataset", dataset, "--db-open-max", strconv.Itoa(openMax)}
	_, _, err = sqlgym(t, append([]string{"serve", "--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, flags...)...)
	if err == nil || !strings.Contains(err.Error(), "1 of 300 databases would not open") ||
		!strings.Contains(err.Error(), "many/db00123: "+bad+": file is not a database") {
		t.Fatalf("serve with a bad file among %d databases: %v, want it named", n, err)
	}
	if err := os.WriteFile(bad, good, 0o644); err != nil {
		t.Fatal(err)
	}
	url := startServe(t, append(flags, "--data-dir", t.TempDir())...)
	metrics := strings.TrimSuffix(strings.Replace(url, "ws://", "http://", 1), "/v1/ws") + "/metrics"
	if open := connectionsOpen(t, metrics); open > openMax {
		t.Errorf("%v SQLite connections open after startup, want at most %d", open, openMax)
	}
	ctx := context.Background()
	c, err := client.Dial(ctx, url, "")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for k := range 40 {
		playCountEpisode(t, c, (k*37)%n)
	}
	if open := connectionsOpen(t, metrics); open > openMax*sqlite.DefaultIdleConns {
		t.Errorf("%v SQLite connections open after episodes on 40 databases, want those of at most %d databases",
			open, openMax)
	}
}

// playCountEpisode plays task i of the many dataset: execute_sql of its
// gold, which must show 10, then a submit of it, which must be paid.
func playCountEpisode(t *testing.T, c *client.Client, i int) {
	t.Helper()
	ctx := context.Background()
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: fmt.Sprintf("many/%d", i)})
	if err != nil {
		t.Fatalf("reset on database %d: %v", i, err)
	}
	const gold = "SELECT count(*) FROM singer WHERE age > 30"
	res, err := c.Step(ctx, r.EpisodeID, client.ToolCall("execute_sql", map[string]any{"sql": gold}))
	if err != nil || res.Info.Error != nil || !strings.Contains(res.Observation.Content, "10") {
		t.Fatalf("execute_sql on database %d: %+v, %v", i, res, err)
	}
	res, err = c.Step(ctx, r.EpisodeID, client.ToolCall("submit", map[string]any{"sql": gold}))
	if err != nil || !res.Terminated || res.Reward <= 0 {
		t.Fatalf("submit on database %d: %+v, %v", i, res, err)
	}
}

// connectionsOpen reads sqlgym_db_connections_open from a server's
// metrics page.
func connectionsOpen(t *testing.T, url string) float64 {
	t.Helper()
	return metricValue(t, url, "sqlgym_db_connections_open")
}
