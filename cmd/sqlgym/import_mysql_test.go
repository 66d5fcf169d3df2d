package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/app/dbimport"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/schemas"
)

// importAgreement are the golds (SQLite's) of the dataset imported into
// MySQL, and a prediction for each, scored on both; differs marks the
// predictions whose verdicts differ, each by a class docs/engines.md
// names ("Where MySQL and SQLite disagree"). Both evals use Spider's
// rule (--match spider), as a jsonl dataset would otherwise take the
// reward spec's.
var importAgreement = []struct {
	gold, pred string
	differs    bool
}{
	{`SELECT count(*) FROM item WHERE name = "pen"`, `SELECT count(*) FROM item WHERE name = 'pen'`, false},
	{`SELECT name FROM Item ORDER BY price`, `SELECT name FROM item ORDER BY price DESC`, false},
	{`SELECT name FROM item WHERE qty > 1 ORDER BY id LIMIT 1, 1`, `SELECT name FROM item WHERE qty > 1 ORDER BY id LIMIT 1 OFFSET 1`, false},
	{`SELECT name FROM item WHERE name LIKE 'P%' ORDER BY id`, `SELECT name FROM item WHERE name LIKE 'P%' ORDER BY id`, true}, // LIKE compares case on the imported text
	{`SELECT sum(qty) / count(*) FROM item`, `SELECT sum(qty) / count(*) FROM item`, true},                                     // / divides exactly
	{`SELECT count(*) FROM item`, `SELECT count(*) FROM ITEM`, true},                                                           // table names are case-sensitive
	{`SELECT name FROM item WHERE id = 1`, `SELECT name FROM item WHERE name = "pen"`, true},                                   // "..." is a name
}

// A SQLite dataset imported into MySQL (sqlgym import --engine
// mysql://): the golds rewritten and verified, and eval and rescore of
// the same predictions on the imported dataset and on the SQLite
// original agree but for the classes docs/engines.md names.
func TestImportToMySQLScoresAgreeWithSQLite(t *testing.T) {
	url := mysqltest.ServerURL(t)
	db := mysqltest.Name()
	ds, dir := spiderDataset(t, "shop", map[string]string{db: `CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INT);
		INSERT INTO item VALUES (1, 'pen', 1.5, 1), (2, 'ink', 3.0, 2), (3, 'pad', 2.0, 4);`})
	type rec struct {
		DBID     string `json:"db_id"`
		Question string `json:"question"`
		Query    string `json:"query"`
	}
	var recs []rec
	var preds []string
	for _, c := range importAgreement {
		recs = append(recs, rec{DBID: db, Question: "q", Query: c.gold})
		preds = append(preds, c.pred)
	}
	data, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	writeJSON(t, dir, "dev.json", string(data))
	dropImportedMySQL(t, db)
	out := t.TempDir()
	stdout := mustRun(t, "import", "--dataset", ds, "--engine", url, "--out", out)
	for _, want := range []string{"answer rows only 0", "MySQL gold SQL on 100.0% of the tasks", "jsonl:" + out + " --engine " + filepath.Base(out) + "=" + url} {
		if !strings.Contains(stdout, want) {
			t.Errorf("import printed no %q:\n%s", want, stdout)
		}
	}
	predFile := writeJSON(t, t.TempDir(), "pred.sql", strings.Join(preds, "\n")+"\n")
	verdicts := func(args ...string) []any {
		path := filepath.Join(t.TempDir(), "verdicts.jsonl")
		mustRun(t, append([]string{"eval", "--match", "spider", "--predictions", predFile, "--out", path}, args...)...)
		var v []any
		for _, r := range jsonLines(t, path) {
			v = append(v, r["outcome"])
		}
		return v
	}
	onMySQL := verdicts("--dataset", "shop=jsonl:"+out, "--engine", "shop="+url)
	onSQLite := verdicts("--dataset", ds)
	if len(onMySQL) != len(importAgreement) || len(onSQLite) != len(importAgreement) {
		t.Fatalf("verdicts: MySQL %v, SQLite %v; want %d each", onMySQL, onSQLite, len(importAgreement))
	}
	checkAgreement(t, "eval", onMySQL, onSQLite)
	checkAgreement(t, "rescore", rescored(t, preds, "--dataset", "shop=jsonl:"+out, "--engine", "shop="+url), rescored(t, preds, "--dataset", ds))
}

// checkAgreement compares the outcomes of importAgreement's predictions
// on MySQL and on SQLite: they differ exactly where differs says.
func checkAgreement(t *testing.T, what string, onMySQL, onSQLite []any) {
	t.Helper()
	if len(onMySQL) != len(importAgreement) || len(onSQLite) != len(importAgreement) {
		t.Fatalf("%s: MySQL %v, SQLite %v; want %d outcomes each", what, onMySQL, onSQLite, len(importAgreement))
	}
	for i, c := range importAgreement {
		if differs := onMySQL[i] != onSQLite[i]; differs != c.differs {
			t.Errorf("%s of %q: %v on MySQL, %v on SQLite; want them to differ: %v", what, c.pred, onMySQL[i], onSQLite[i], c.differs)
		}
		if onSQLite[i] == nil {
			t.Errorf("%s of %q: no outcome", what, c.pred)
		}
	}
}

// rescored serves the dataset args name, submits each of preds as an
// episode of task shop/i, and returns the outcomes rescore gives them
// under Spider's rule, in task order.
func rescored(t *testing.T, preds []string, args ...string) []any {
	t.Helper()
	data := t.TempDir()
	served := append(append([]string{}, args...), "--data-dir", data)
	serveAndDrive(t, served, func(c *client.Client) {
		ctx := context.Background()
		for i, pred := range preds {
			r, err := c.Reset(ctx, schemas.ResetParams{TaskID: fmt.Sprintf("shop/%d", i)})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Step(ctx, r.EpisodeID, client.ToolCall("submit", map[string]any{"sql": pred})); err != nil {
				t.Fatal(err)
			}
		}
	})
	spec := writeJSON(t, data, "spider.json", `{"match": "spider"}`)
	out := filepath.Join(data, "rescored.jsonl")
	mustRun(t, append([]string{"rescore", "--reward", spec, "--out", out}, served...)...)
	byTask := map[string]any{}
	for _, rec := range jsonLines(t, out) {
		task, _ := rec["task"].(map[string]any)
		byTask[fmt.Sprint(task["task_id"])] = rec["outcome"]
	}
	outcomes := make([]any, len(preds))
	for i := range preds {
		outcomes[i] = byTask[fmt.Sprintf("shop/%d", i)]
	}
	return outcomes
}

// dropImportedMySQL drops, when the test ends, the database db an import
// makes, its entry in the import's list and its account.
func dropImportedMySQL(t *testing.T, db string) {
	t.Helper()
	mysqltest.DropUser(t, mysql.Account(mysql.DefaultAccount, db))
	admin := mysqltest.Admin(t)
	t.Cleanup(func() {
		for _, q := range []string{"DROP DATABASE IF EXISTS " + mysql.QuoteIdent(db),
			"DELETE FROM " + mysql.QuoteIdent(dbimport.ImportDatabase) + ".imported WHERE db = '" + db + "'"} {
			if _, err := admin.Exec(q); err != nil {
				t.Errorf("%s: %v", q, err)
			}
		}
	})
}

// An import into MySQL replaces only a database an import made: a db_id
// naming another database is refused, naming it, and that database is
// left as it was.
func TestImportToMySQLLeavesOtherDatabasesAlone(t *testing.T) {
	url := mysqltest.ServerURL(t)
	db := mysqltest.Name()
	mysqltest.Create(t, db, "CREATE TABLE keep (a INT); INSERT INTO keep VALUES (7);")
	ds, _ := spiderDataset(t, "shop", map[string]string{db: "CREATE TABLE item(id INTEGER PRIMARY KEY)"})
	dropImportedMySQL(t, db)
	_, _, err := sqlgym(t, "import", "--dataset", ds, "--engine", url, "--out", t.TempDir())
	if want := "database \"" + db + "\" already exists and was not made by sqlgym import"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("import over another database: %v; want %q", err, want)
	}
	var a int
	if err := mysqltest.Admin(t).QueryRow("SELECT a FROM " + mysql.QuoteIdent(db) + ".keep").Scan(&a); err != nil || a != 7 {
		t.Errorf("the database was changed: %v, %d", err, a)
	}
}

// Two tables MySQL would make one (the import writes names in lower
// case; SQLite folds ASCII letters only) are refused, both named, before
// any database is created.
func TestImportToMySQLRefusesCollidingNames(t *testing.T) {
	url := mysqltest.ServerURL(t)
	db := mysqltest.Name()
	ds, _ := spiderDataset(t, "shop", map[string]string{db: `CREATE TABLE "Äpfel" (a INT); CREATE TABLE "äpfel" (a INT)`})
	dropImportedMySQL(t, db)
	_, _, err := sqlgym(t, "import", "--dataset", ds, "--engine", url, "--out", t.TempDir())
	for _, want := range []string{`tables "Äpfel" and "äpfel" would both be table "äpfel"`, "nothing was imported"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("import: %v; want %q", err, want)
		}
	}
	var n int
	if err := mysqltest.Admin(t).QueryRow("SELECT count(*) FROM information_schema.schemata WHERE schema_name = ?", db).Scan(&n); err != nil || n != 0 {
		t.Errorf("database %s: %d made (%v); want none", db, n, err)
	}
}
