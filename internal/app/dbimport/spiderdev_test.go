package dbimport

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// Spider-dev imported whole (issue 10's acceptance): every database with
// every row, at least 90% of the tasks with a verified PostgreSQL gold
// that scores correct when submitted, and every other task scorable on
// its answer rows.
func TestImportSpiderDev(t *testing.T) {
	dir := spiderdev.Dir(t)
	ctx := context.Background()
	conn := connect(t, pgtest.Database(t))
	ds, err := datasets.Load(datasets.Source{Name: "spider", Format: datasets.FormatSpider, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	eng := sqlite.New(sqlite.Config{})
	imp, err := Import(ctx, Config{Dataset: ds, SQLite: eng, Conn: conn})
	if err != nil {
		t.Fatal(err)
	}
	checkAllRows(t, ctx, eng, ds, conn)
	out := t.TempDir()
	if err := WriteDataset(out, ds, imp); err != nil {
		t.Fatal(err)
	}
	pg, err := datasets.Load(datasets.Source{Name: "pg", Format: datasets.FormatJSONL, Path: out})
	if err != nil {
		t.Fatal(err)
	}
	checkImported(t, pg, env.Postgres, "PostgreSQL")
	checkScorable(t, ctx, conn, pg)
	checkTies(t, ctx, conn, pg, imp)
	pgEng := postgres.New(postgres.Config{})
	dbs := map[string]env.DB{}
	for id := range pg.DBs {
		dbs[id] = openSchema(t, pgEng, conn, id)
	}
	checkTieVerdicts(t, ctx, pg, imp, dbs)
	t.Logf("%d tasks: kept %d, rewritten %d, answer rows only %d", len(pg.Tasks),
		imp.Report.Counts[Kept], imp.Report.Counts[Rewritten], imp.Report.Counts[AnswerOnly])
}

// checkImported checks the imported dataset: every task of Spider-dev,
// in dialect, at least 90% of them with a gold SQL of target's.
func checkImported(t *testing.T, ds *env.Dataset, dialect env.Dialect, target string) {
	t.Helper()
	if ds.Dialect != dialect || len(ds.Tasks) != spiderdev.Tasks {
		t.Fatalf("imported dataset: dialect %q, %d tasks; want %s, %d", ds.Dialect, len(ds.Tasks), dialect, spiderdev.Tasks)
	}
	withSQL := 0
	for i := range ds.Tasks {
		if ds.Tasks[i].GoldSQL != "" {
			withSQL++
		}
	}
	if withSQL*10 < len(ds.Tasks)*9 {
		t.Errorf("%d of %d tasks carry a %s gold SQL; want at least 90%%", withSQL, len(ds.Tasks), target)
	}
}

// checkAllRows compares every table's row count in PostgreSQL with SQLite's.
func checkAllRows(t *testing.T, ctx context.Context, eng env.Engine, ds *env.Dataset, conn *pgx.Conn) {
	t.Helper()
	checkRowCounts(t, ctx, eng, ds, "PostgreSQL", func(id, table string) (got int64, err error) {
		q := "SELECT count(*) FROM " + pgx.Identifier{id, strings.ToLower(table)}.Sanitize()
		err = conn.QueryRow(ctx, q).Scan(&got)
		return got, err
	})
}

// checkRowCounts compares every table's row count in the target, as
// count reads it, with SQLite's.
func checkRowCounts(t *testing.T, ctx context.Context, eng env.Engine, ds *env.Dataset, target string, count func(id, table string) (int64, error)) {
	t.Helper()
	if len(ds.DBs) != 19 {
		t.Errorf("%d databases; want Spider-dev's 19", len(ds.DBs))
	}
	for id, path := range ds.DBs {
		db, err := eng.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		tables, err := db.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range tables {
			rs, err := db.Query(ctx, "SELECT count(*) FROM "+quoteSQLite(tb.Name), env.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got, err := count(id, tb.Name); err != nil || got != rs.Rows[0][0] {
				t.Errorf("%s.%s: %d rows in %s (%v), %v in SQLite", id, tb.Name, got, target, err, rs.Rows[0][0])
			}
		}
		db.Close()
	}
}

// checkScorable judges each task as serve --engine does (the judge over
// env/postgres, as the reader role): its gold SQL submitted, or, for a
// task with answer rows only, a statement returning those rows.
func checkScorable(t *testing.T, ctx context.Context, conn *pgx.Conn, ds *env.Dataset) {
	t.Helper()
	j := judge.New(judge.Config{})
	spec := schemas.DefaultRewardSpec()
	eng := postgres.New(postgres.Config{})
	dbs := map[string]env.DB{}
	for id := range ds.DBs {
		dbs[id] = openSchema(t, eng, conn, id)
	}
	for i := range ds.Tasks {
		task := &ds.Tasks[i]
		db := dbs[task.DBID]
		sub := task.GoldSQL
		if sub == "" {
			sub = valuesQuery(task.GoldRows)
		}
		v, err := j.Judge(ctx, db, ds.DBKey(task.DBID), task, sub, spec)
		if err != nil || v.Outcome != schemas.OutcomeCorrect {
			t.Errorf("%s: submitting %q: %s (pred error %v, gold error %v), %v; want correct", task.ID, sub, v.Outcome, v.PredErr, v.GoldErr, err)
		}
	}
}

// checkTies judges, as serve does, the PostgreSQL statement tried and
// not kept on each task with answer rows only: where it returned SQLite's
// rows in another order (ties under ORDER BY without a limit) it scores
// correct, as the answer rows are compared as a bag; where it returned
// other rows (another of the rows tied under ORDER BY ... LIMIT, say) it
// does not.
func checkTies(t *testing.T, ctx context.Context, conn *pgx.Conn, ds *env.Dataset, imp *Imported) {
	t.Helper()
	j := judge.New(judge.Config{})
	eng := postgres.New(postgres.Config{})
	dbs := map[string]env.DB{}
	order, other := 0, 0
	for i, g := range imp.Golds {
		if g.Category != AnswerOnly || !strings.HasPrefix(g.Reason, "the rewrite returns") {
			continue
		}
		task := &ds.Tasks[i]
		if dbs[task.DBID] == nil {
			dbs[task.DBID] = openSchema(t, eng, conn, task.DBID)
		}
		v, err := j.Judge(ctx, dbs[task.DBID], ds.DBKey(task.DBID), task, g.Tried, schemas.DefaultRewardSpec())
		if err != nil {
			t.Fatal(err)
		}
		if ok := v.Outcome == schemas.OutcomeCorrect; ok != (g.Reason == ReasonTieOrder) {
			t.Errorf("%s (%s): the tried rewrite scores %s: %q", task.ID, g.Reason, v.Outcome, g.Tried)
		}
		if g.Reason == ReasonTieOrder {
			order++
		} else {
			other++
		}
	}
	t.Logf("answer rows only: %d tasks tie-ordered (their rewrite scores correct), %d with other rows (it does not)", order, other)
}

// valuesQuery is a statement returning rows as they are.
func valuesQuery(rows [][]any) string {
	if len(rows) == 0 {
		return "SELECT 1 WHERE false"
	}
	lits := literalRows(rows, func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) + "::float8" }, "::bigint", sqlString)
	for i, row := range lits {
		lits[i] = []string{"(" + strings.Join(row, ", ") + ")"}
	}
	return "SELECT * FROM (VALUES " + strings.Join(slices.Concat(lits...), ", ") + ") AS v"
}

// literalRows writes each value of rows as a literal: NULL, an integer
// with intSuffix, a float through float, anything else through str.
func literalRows(rows [][]any, float func(float64) string, intSuffix string, str func(string) string) [][]string {
	out := make([][]string, len(rows))
	for i, row := range rows {
		out[i] = make([]string, len(row))
		for j, v := range row {
			switch v := v.(type) {
			case nil:
				out[i][j] = "NULL"
			case int64:
				out[i][j] = strconv.FormatInt(v, 10) + intSuffix
			case float64:
				out[i][j] = float(v)
			default:
				out[i][j] = str(fmt.Sprint(v))
			}
		}
	}
	return out
}

// connect opens a connection closed when the test ends.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// openSchema opens schema on conn's server through eng (as the reader
// role); it is closed when the test ends.
func openSchema(t *testing.T, eng *postgres.Engine, conn *pgx.Conn, schema string) env.DB {
	t.Helper()
	db, err := eng.Open(context.Background(), postgres.Source(conn.Config().ConnString(), schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
