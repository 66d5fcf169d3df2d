package dbimport

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// Spider-dev imported whole into MySQL/MariaDB (issue 26's acceptance):
// every database with every row, at least 90% of the tasks with a
// verified MySQL gold that scores correct when submitted through
// env/mysql as the database's account, and every other task scorable on
// its answer rows.
func TestImportSpiderDevMySQL(t *testing.T) {
	dir := spiderdev.Dir(t)
	url := mysqltest.ServerURL(t)
	ctx := context.Background()
	ds, err := datasets.Load(datasets.Source{Name: "spider", Format: datasets.FormatSpider, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	prefix := "sqlgym_test_imp"
	dropImported(t, ds, prefix)
	eng := sqlite.New(sqlite.Config{})
	imp, err := ImportMySQL(ctx, MySQLConfig{Dataset: ds, SQLite: eng, URL: url, Account: prefix})
	if err != nil {
		t.Fatal(err)
	}
	checkAllRowsMySQL(t, ctx, eng, ds, mysqltest.Admin(t))
	out := t.TempDir()
	if err := WriteDataset(out, ds, imp); err != nil {
		t.Fatal(err)
	}
	my, err := datasets.Load(datasets.Source{Name: "my", Format: datasets.FormatJSONL, Path: out})
	if err != nil {
		t.Fatal(err)
	}
	checkImported(t, my, env.MySQL, "MySQL")
	checkScorableMySQL(t, ctx, url, prefix, my)
	eng2 := mysql.New(mysql.Config{Account: prefix})
	dbs := map[string]env.DB{}
	for id := range my.DBs {
		if dbs[id], err = eng2.Open(ctx, mysql.Source(url, id)); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { dbs[id].Close() })
	}
	checkTieVerdicts(t, ctx, my, imp, dbs)
	var b strings.Builder
	imp.Report.WriteText(&b)
	t.Logf("%d tasks: kept %d, rewritten %d, answer rows only %d\n%s", len(my.Tasks),
		imp.Report.Counts[Kept], imp.Report.Counts[Rewritten], imp.Report.Counts[AnswerOnly], b.String())
}

// dropImported drops, when the test ends, the databases an import of ds
// makes and their accounts.
func dropImported(t *testing.T, ds *env.Dataset, prefix string) {
	t.Helper()
	admin := mysqltest.Admin(t)
	t.Cleanup(func() {
		for id := range ds.DBs {
			for _, q := range []string{"DROP DATABASE IF EXISTS " + mysql.QuoteIdent(id),
				"DELETE FROM " + importList + " WHERE db = '" + id + "'"} {
				if _, err := admin.Exec(q); err != nil {
					t.Errorf("%s: %v", q, err)
				}
			}
		}
	})
	for id := range ds.DBs {
		mysqltest.DropUser(t, mysql.Account(prefix, id))
	}
}

// checkAllRowsMySQL compares every table's row count in MySQL with
// SQLite's.
func checkAllRowsMySQL(t *testing.T, ctx context.Context, eng env.Engine, ds *env.Dataset, admin *sql.DB) {
	t.Helper()
	checkRowCounts(t, ctx, eng, ds, "MySQL", func(id, table string) (got int64, err error) {
		q := "SELECT count(*) FROM " + mysql.QuoteIdent(id) + "." + mysql.QuoteIdent(strings.ToLower(table))
		err = admin.QueryRowContext(ctx, q).Scan(&got)
		return got, err
	})
}

// checkScorableMySQL judges each task as serve --engine does (the judge
// over env/mysql, as the database's account): its gold SQL submitted,
// or, for a task with answer rows only, a statement returning those rows.
func checkScorableMySQL(t *testing.T, ctx context.Context, url, prefix string, ds *env.Dataset) {
	t.Helper()
	j := judge.New(judge.Config{})
	spec := schemas.DefaultRewardSpec()
	eng := mysql.New(mysql.Config{Account: prefix})
	dbs := map[string]env.DB{}
	for id := range ds.DBs {
		db, err := eng.Open(ctx, mysql.Source(url, id))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		dbs[id] = db
	}
	for i := range ds.Tasks {
		task := &ds.Tasks[i]
		sub := task.GoldSQL
		if sub == "" {
			sub = mysqlRowsQuery(task.GoldRows)
		}
		v, err := j.Judge(ctx, dbs[task.DBID], ds.DBKey(task.DBID), task, sub, spec)
		if err != nil || v.Outcome != schemas.OutcomeCorrect {
			t.Errorf("%s: submitting %q: %s (pred error %v, gold error %v), %v; want correct", task.ID, sub, v.Outcome, v.PredErr, v.GoldErr, err)
		}
	}
}

// mysqlRowsQuery is a MySQL statement returning rows as they are.
func mysqlRowsQuery(rows [][]any) string {
	if len(rows) == 0 {
		return "SELECT 1 FROM DUAL WHERE 1 = 0"
	}
	sels := literalRows(rows, func(v float64) string { return strconv.FormatFloat(v, 'e', -1, 64) }, "",
		func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'" })
	out := make([]string, len(sels))
	for i, row := range sels {
		out[i] = "SELECT " + strings.Join(row, ", ")
	}
	return strings.Join(out, " UNION ALL ")
}
