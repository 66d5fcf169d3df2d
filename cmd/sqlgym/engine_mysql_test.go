package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/schemas"
)

// mysqlTasks are the tasks of the MySQL test dataset: golds in MySQL's
// dialect (DIV, CONCAT, LIMIT m, n, backticks), and a prediction for
// each that agrees with its gold.
var mysqlTasks = []struct{ question, gold, pred string }{
	{"Who is older than 28, oldest first?", "SELECT name FROM singer WHERE age > 28 ORDER BY age DESC",
		"SELECT `name` FROM `singer` WHERE age >= 29 ORDER BY age DESC"},
	{"Each singer's name and a mark, by id", "SELECT CONCAT(name, '!') FROM singer ORDER BY singer_id",
		`SELECT CONCAT("name", '!') FROM singer ORDER BY 1`},
	{"Half of each known age, whole, by id", "SELECT age DIV 2 FROM singer WHERE age IS NOT NULL ORDER BY singer_id",
		"SELECT FLOOR(age / 2) FROM singer WHERE age IS NOT NULL ORDER BY singer_id"},
	{"The second oldest", "SELECT name FROM singer ORDER BY age DESC LIMIT 1, 1",
		"SELECT name FROM singer ORDER BY age DESC LIMIT 1 OFFSET 1"},
}

// mysqlDataset creates a database of its own on the test server with a
// small table, gives it its reading account, and writes a JSONL dataset
// of mysqlTasks on it. It returns the dataset's folder and the server's
// URL.
func mysqlDataset(t *testing.T) (string, string) {
	t.Helper()
	db := mysqltest.Name()
	mysqltest.Create(t, db, `CREATE TABLE singer (singer_id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, age INT, net_worth DECIMAL(8, 2));
INSERT INTO singer VALUES (1, 'Ana', 30, 1.50), (2, 'Bo', 41, 20), (3, 'Cy', 25, NULL), (4, 'Di', NULL, 3);`)
	mysqltest.DropUser(t, mysql.Account(mysql.DefaultAccount, db))
	if err := mysql.EnsureReader(context.Background(), mysqltest.Admin(t), mysql.DefaultAccount, db); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	var lines strings.Builder
	for i, task := range mysqlTasks {
		fmt.Fprintf(&lines, `{"task_id": "%d", "db_id": %q, "question": %q, "gold_sql": %q, "dialect": "mysql"}`+"\n", i+1, db, task.question, task.gold)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, mysqltest.ServerURL(t)
}

func TestServeRunsAnEpisodeOnMySQL(t *testing.T) {
	dir, url := mysqlDataset(t)
	args := []string{"--dataset", "my=jsonl:" + dir, "--engine", "my=" + url, "--data-dir", t.TempDir(),
		"--tools", "inspect_schema,execute_sql,describe_column,search_values,submit", "--max-turns", "12"}
	serveAndDrive(t, args, func(c *client.Client) {
		playOnEngine(t, c, "mysql", "MySQL", "my/1", []stepWant{
			{client.ToolCall("inspect_schema", map[string]any{}), "singer(singer_id int(11), name varchar(20), age int(11), net_worth decimal(8,2))"},
			{client.ToolCall("inspect_schema", map[string]any{"table": "singer"}), "Primary key: singer_id"},
			{client.ToolCall("describe_column", map[string]any{"table": "singer", "column": "name"}), "Column singer.name"},
			{client.ToolCall("search_values", map[string]any{"query": "Cy"}), "singer.name = 'Cy'"},
			{client.ToolCall("execute_sql", sqlArgs("SELECT `name`, net_worth FROM singer ORDER BY singer_id")), "Ana"},
			{client.ToolCall("execute_sql", sqlArgs("SELEC name FROM singer")), `syntax error at or near "SELEC"`},
			{client.ToolCall("execute_sql", sqlArgs("DELETE FROM singer")), "statement denied"},
			{client.ToolCall("execute_sql", sqlArgs("SELECT LOAD_FILE('/etc/hostname')")), "statement denied"},
		}, mysqlTasks[0].pred)
	})
}

// TestOfflineCommandsOnMySQL: check verifies the MySQL golds, eval
// scores predictions on the server, and replay and rescore take the
// episodes served from it.
func TestOfflineCommandsOnMySQL(t *testing.T) {
	dir, url := mysqlDataset(t)
	ds := []string{"--dataset", "my=jsonl:" + dir, "--engine", "my=" + url}
	if out := mustRun(t, append([]string{"check"}, ds...)...); !strings.Contains(strings.Join(strings.Fields(out), " "), "ran ok 4 given as rows 0 errors 0") {
		t.Errorf("check printed:\n%s", out)
	}
	var preds strings.Builder
	for _, task := range mysqlTasks {
		preds.WriteString(task.pred + "\n")
	}
	predFile := writeJSON(t, t.TempDir(), "pred.sql", preds.String())
	if out := mustRun(t, append([]string{"eval", "--predictions", predFile}, ds...)...); !strings.Contains(out, "EX 1.000 (4/4)") {
		t.Errorf("eval on MySQL printed:\n%s", out)
	}
	data := t.TempDir()
	served := append(append([]string{}, ds...), "--data-dir", data)
	serveAndDrive(t, served, func(c *client.Client) {
		ctx := context.Background()
		for i, task := range mysqlTasks {
			r, err := c.Reset(ctx, schemas.ResetParams{TaskID: fmt.Sprintf("my/%d", i+1)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Step(ctx, r.EpisodeID, client.ToolCall("submit", map[string]any{"sql": task.pred})); err != nil {
				t.Fatal(err)
			}
		}
	})
	if out := mustRun(t, append([]string{"replay"}, served...)...); !strings.Contains(out, "4 episodes: 4 reproduced, 0 diverged, 0 unverifiable") {
		t.Errorf("replay on MySQL printed:\n%s", out)
	}
	rescored := filepath.Join(data, "rescored.jsonl")
	if out := mustRun(t, append([]string{"rescore", "--reward", "binary", "--out", rescored}, served...)...); !strings.Contains(out, "rescored 4 episodes") {
		t.Errorf("rescore on MySQL printed:\n%s", out)
	}
	for _, rec := range jsonLines(t, rescored) {
		if rec["outcome"] != "correct" {
			t.Errorf("rescored %v: outcome %v, want correct", rec["task_id"], rec["outcome"])
		}
	}
}

// TestEvalOnMySQLAgreesWithSQLite scores the same predictions on the
// MySQL dataset and on a SQLite copy of it (the golds in each one's
// dialect): the verdicts agree but where the dialects do, and the one
// that differs is a class docs/engines.md names ("/ divides exactly").
func TestEvalOnMySQLAgreesWithSQLite(t *testing.T) {
	myDir, url := mysqlDataset(t)
	tasks := jsonLines(t, filepath.Join(myDir, "tasks.jsonl"))
	db := tasks[0]["db_id"].(string)
	dir := t.TempDir()
	path := filepath.Join(dir, db+".sqlite")
	err := sqlite.Build(context.Background(), path, `CREATE TABLE singer (singer_id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, age INT, net_worth DECIMAL(8, 2));
INSERT INTO singer VALUES (1, 'Ana', 30, 1.50), (2, 'Bo', 41, 20), (3, 'Cy', 25, NULL), (4, 'Di', NULL, 3);`)
	if err != nil {
		t.Fatal(err)
	}
	sqliteGolds := []string{mysqlTasks[0].gold, "SELECT name || '!' FROM singer ORDER BY singer_id",
		"SELECT age / 2 FROM singer WHERE age IS NOT NULL ORDER BY singer_id", mysqlTasks[3].gold}
	var lines strings.Builder
	for i, task := range mysqlTasks {
		fmt.Fprintf(&lines, `{"task_id": "%d", "db_id": %q, "question": %q, "gold_sql": %q, "db_path": %q}`+"\n", i+1, db, task.question, sqliteGolds[i], path)
	}
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(lines.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	preds := writeJSON(t, t.TempDir(), "pred.sql", strings.Join([]string{
		"SELECT name FROM singer WHERE age >= 29 ORDER BY age DESC",           // right on both
		"SELECT name FROM singer ORDER BY singer_id",                          // wrong on both
		"SELECT age / 2 FROM singer WHERE age IS NOT NULL ORDER BY singer_id", // / divides exactly on MySQL
		"SELECT name FROM singer ORDER BY age DESC LIMIT 1 OFFSET 1",          // right on both
	}, "\n")+"\n")
	verdicts := func(args ...string) []any {
		out := filepath.Join(t.TempDir(), "verdicts.jsonl")
		mustRun(t, append([]string{"eval", "--predictions", preds, "--out", out}, args...)...)
		var v []any
		for _, rec := range jsonLines(t, out) {
			v = append(v, rec["outcome"])
		}
		return v
	}
	onMySQL := verdicts("--dataset", "my=jsonl:"+myDir, "--engine", "my="+url)
	onSQLite := verdicts("--dataset", "my=jsonl:"+dir)
	if len(onMySQL) != 4 || len(onSQLite) != 4 {
		t.Fatalf("verdicts: MySQL %v, SQLite %v; want 4 each", onMySQL, onSQLite)
	}
	for i := range onMySQL {
		if differs := onMySQL[i] != onSQLite[i]; differs != (i == 2) {
			t.Errorf("prediction %d: %v on MySQL, %v on SQLite; want them to differ only for the division", i+1, onMySQL[i], onSQLite[i])
		}
	}
}

// TestMySQLCapacityWarning: serve warns when the server's
// max_connections is less than --mysql-conns lets the engine open.
func TestMySQLCapacityWarning(t *testing.T) {
	dir, url := mysqlDataset(t)
	var max int
	if err := mysqltest.Admin(t).QueryRow("SELECT @@max_connections").Scan(&max); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		conns int
		warns bool
	}{{max / 2, false}, {max, true}} {
		var m engineFlags
		fs := newFlagSet("serve", &strings.Builder{})
		m.register(fs)
		if err := parseFlags(fs, []string{"--mysql-conns", fmt.Sprint(tc.conns), "--engine", "my=" + url}); err != nil {
			t.Fatal(err)
		}
		if err := m.parse(); err != nil {
			t.Fatal(err)
		}
		ds, err := m.load(datasets.Source{Name: "my", Format: "jsonl", Path: dir}, datasets.Load)
		if err != nil {
			t.Fatal(err)
		}
		catalog := m.catalog(0)
		db, err := catalog.DB(context.Background(), ds, ds.Tasks[0].DBID)
		if err != nil || db == nil {
			t.Fatal(err)
		}
		core, logs := observer.New(zapcore.WarnLevel)
		m.warnCapacity(context.Background(), zap.New(core))
		if warned := logs.FilterMessageSnippet("--mysql-conns is more than half").Len() == 1; warned != tc.warns {
			t.Errorf("--mysql-conns %d against max_connections %d: warned %v, want %v (%v)", tc.conns, max, warned, tc.warns, logs.All())
		}
		catalog.Close()
	}
}
