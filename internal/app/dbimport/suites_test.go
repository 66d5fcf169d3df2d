package dbimport

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/app/suitegen"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/reward/testsuite"
	"github.com/sqlgym/sqlgym/schemas"
)

// suiteDBs are the Spider-dev databases whose suites the carry tests
// build and carry: three small ones, 103 tasks between them.
var suiteDBs = []string{"battle_death", "concert_singer", "pets_1"}

// carried is a dataset imported with its test suites, as serve loads
// it: the imported dataset on its server, and the suites' store.
type carried struct {
	src    *env.Dataset // the SQLite dataset imported
	srcFix *suiteFixture
	ds     *env.Dataset // the imported dataset, bound to its server
	imp    *Imported
	store  *testsuite.Store
	dbs    map[string]env.DB // the imported databases, by db_id
	// rewrite turns SQLite SQL of db_id into the target's dialect.
	rewrite func(sql, dbID string) string
}

// suiteFixture is the SQLite side: a Spider-dev subset and its suites
// built under root.
type suiteFixture struct {
	ds    *env.Dataset
	root  string
	store *testsuite.Store
}

// newSuiteFixture builds the suites of suiteDBs (few candidates, so the
// test stays quick) and opens them.
func newSuiteFixture(t *testing.T) *suiteFixture {
	t.Helper()
	ds, err := datasets.Load(datasets.Source{Name: "spider", Format: datasets.FormatSpider, Path: spiderdev.Dir(t)})
	if err != nil {
		t.Fatal(err)
	}
	ds = subsetOf(t, ds, suiteDBs)
	f := &suiteFixture{ds: ds, root: t.TempDir()}
	if _, err := suitegen.Build(context.Background(), ds, f.root, suitegen.Config{Seed: 11, Candidates: 12, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	f.store = openSuites(t, f.root, ds, sqlite.New(sqlite.Config{}))
	return f
}

// subsetOf is ds with the databases ids and their tasks alone.
func subsetOf(t *testing.T, ds *env.Dataset, ids []string) *env.Dataset {
	t.Helper()
	out := &env.Dataset{Name: ds.Name, Dialect: ds.Dialect, DBs: map[string]string{}, Notes: ds.Notes}
	for _, id := range ids {
		out.DBs[id] = ds.DBs[id]
	}
	for _, task := range ds.Tasks {
		if slices.Contains(ids, task.DBID) {
			out.Tasks = append(out.Tasks, task)
		}
	}
	if err := out.Index(); err != nil {
		t.Fatal(err)
	}
	return out
}

// openSuites opens the suites of ds under root through a catalog of eng.
func openSuites(t *testing.T, root string, ds *env.Dataset, eng env.Engine) *testsuite.Store {
	t.Helper()
	cat := env.NewCatalog(eng)
	t.Cleanup(func() { cat.Close() })
	store, err := testsuite.Open(context.Background(), root, []*env.Dataset{ds}, cat)
	if err != nil {
		t.Fatal(err)
	}
	return store
}

// load writes imp, loads the written dataset as serve does with --engine
// NAME=url (each db_id bound to its schema or database there through
// source), writes the carried suites and opens them through eng.
func (f *suiteFixture) load(t *testing.T, imp *Imported, name string, source func(id string) string, eng env.Engine) *carried {
	t.Helper()
	out := t.TempDir()
	if err := WriteDataset(out, f.ds, imp); err != nil {
		t.Fatal(err)
	}
	if err := WriteSuites(f.root, name, f.ds, imp); err != nil {
		t.Fatal(err)
	}
	ds, err := datasets.LoadKeepingMissing(datasets.Source{Name: name, Format: datasets.FormatJSONL, Path: out})
	if err != nil {
		t.Fatal(err)
	}
	ds.Dialect = eng.Dialect()
	c := &carried{src: f.ds, srcFix: f, ds: ds, imp: imp, dbs: map[string]env.DB{}}
	for id := range ds.DBs {
		ds.DBs[id] = source(id)
		db, err := eng.Open(context.Background(), ds.DBs[id])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		c.dbs[id] = db
	}
	c.store = openSuites(t, f.root, ds, eng)
	return c
}

// TestCarrySuitesPostgres carries Spider-dev suites into PostgreSQL.
func TestCarrySuitesPostgres(t *testing.T) {
	f := newSuiteFixture(t)
	url := pgtest.Database(t)
	conn := connect(t, url)
	imp, err := Import(context.Background(), Config{Dataset: f.ds, SQLite: sqlite.New(sqlite.Config{}), Conn: conn, Suites: f.root})
	if err != nil {
		t.Fatal(err)
	}
	c := f.load(t, imp, "pg", func(id string) string { return postgres.Source(url, id) }, postgres.New(postgres.Config{}))
	c.rewrite = func(sql, dbID string) string { s, _ := Rewrite(sql, schemaOf(imp, dbID)); return s }
	checkCarried(t, c)
}

// TestCarrySuitesMySQL carries Spider-dev suites into MySQL/MariaDB.
func TestCarrySuitesMySQL(t *testing.T) {
	f := newSuiteFixture(t)
	url := mysqltest.ServerURL(t)
	prefix := "sqlgym_test_suites"
	dropImported(t, f.ds, prefix)
	imp, err := ImportMySQL(context.Background(), MySQLConfig{Dataset: f.ds, SQLite: sqlite.New(sqlite.Config{}), URL: url, Account: prefix, Suites: f.root})
	if err != nil {
		t.Fatal(err)
	}
	dropSuites(t, imp, prefix)
	c := f.load(t, imp, "my", func(id string) string { return mysql.Source(url, id) }, mysql.New(mysql.Config{Account: prefix}))
	c.rewrite = func(sql, dbID string) string { s, _ := RewriteMySQL(sql, schemaOf(imp, dbID)); return s }
	checkCarried(t, c)
}

// dropSuites drops, when the test ends, the suite databases imp carried
// into MySQL and their accounts.
func dropSuites(t *testing.T, imp *Imported, prefix string) {
	t.Helper()
	admin := mysqltest.Admin(t)
	for _, m := range imp.Suites {
		for _, d := range m.Databases {
			t.Cleanup(func() {
				for _, q := range []string{"DROP DATABASE IF EXISTS " + mysql.QuoteIdent(d.Source), "DELETE FROM " + importList + " WHERE db = '" + d.Source + "'"} {
					if _, err := admin.Exec(q); err != nil {
						t.Errorf("%s: %v", q, err)
					}
				}
			})
			mysqltest.DropUser(t, mysql.Account(prefix, d.Source))
		}
	}
}

// schemaOf is the schema imp copied dbID into.
func schemaOf(imp *Imported, dbID string) *Schema {
	for _, d := range imp.Report.Databases {
		if d.DBID == dbID {
			return SchemaOf(d)
		}
	}
	return nil
}

// checkCarried checks a carried dataset: every database's suites are
// current on the server, as many suite databases as on SQLite are
// carried, each target gold keeps nearly all of its SQLite suite, every
// gold is correct on its suite, and near misses the SQLite suites tell
// apart are told apart on the server too.
func checkCarried(t *testing.T, c *carried) {
	t.Helper()
	st := c.store.Status()[0]
	if !slices.Equal(st.Current, suiteDBs) || len(st.Stale) > 0 {
		t.Fatalf("status of the carried suites %+v: want %v current", st, suiteDBs)
	}
	rep := c.imp.Report.Suites
	var b strings.Builder
	rep.writeText(&b)
	t.Logf("%s", b.String())
	if want := c.srcFix.store.Status()[0].Covered; st.Covered*10 < want*9 {
		t.Errorf("%d tasks covered on the server, %d on SQLite: want nine in ten or more", st.Covered, want)
	}
	if len(rep.Dropped) > 0 {
		t.Errorf("suite databases not carried: %v", rep.Dropped)
	}
	checkCarriedGolds(t, c)
	checkCarriedCatches(t, c)
}

// checkCarriedGolds judges each task's gold, respelled, on its carried
// suite: correct on every database of it.
func checkCarriedGolds(t *testing.T, c *carried) {
	t.Helper()
	j := judge.New(judge.Config{Suites: c.store, Ties: judge.TiesAny})
	judged := 0
	for i := range c.ds.Tasks {
		task := &c.ds.Tasks[i]
		if task.GoldSQL == "" {
			continue
		}
		v, err := j.Judge(context.Background(), c.dbs[task.DBID], c.ds.DBKey(task.DBID), task, "\n"+task.GoldSQL, schemas.DefaultRewardSpec())
		if err != nil {
			t.Fatal(err)
		}
		if v.Outcome != schemas.OutcomeCorrect || v.Suite.Judged != v.Suite.Databases || v.Suite.GoldFailed > 0 {
			t.Errorf("%s: its gold %q judged %s, suite %+v; want correct on every suite database", task.ID, task.GoldSQL, v.Outcome, v.Suite)
		}
		judged += v.Suite.Databases
	}
	if judged == 0 {
		t.Error("no gold was judged on a carried suite database")
	}
}

// checkCarriedCatches judges near misses of each gold, its neighbours
// (suitegen.Neighbours), on SQLite and, rewritten, on the server: of
// those the task's database pays and the SQLite suite tells apart, the
// carried suite must tell apart nine in ten or more wherever the
// server's own database pays them too (the judge runs the same way on
// every engine; a suite database a target gold does not keep is the one
// way to lose one).
func checkCarriedCatches(t *testing.T, c *carried) {
	t.Helper()
	ctx := context.Background()
	onSQLite := judge.New(judge.Config{Suites: c.srcFix.store, Ties: judge.TiesAny})
	onServer := judge.New(judge.Config{Suites: c.store, Ties: judge.TiesAny})
	sqliteDBs := map[string]env.DB{}
	sch := map[string]*suitegen.Schema{}
	eng := sqlite.New(sqlite.Config{})
	for _, id := range suiteDBs {
		db, err := eng.Open(ctx, c.src.DBs[id])
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		sqliteDBs[id] = db
		if sch[id], err = suitegen.SchemaOf(ctx, db); err != nil {
			t.Fatal(err)
		}
	}
	spec := schemas.DefaultRewardSpec()
	var paid, caught int
	for i := range c.src.Tasks {
		src := &c.src.Tasks[i]
		task, ok := c.ds.Task(c.ds.Name + "/" + taskKey(src))
		if !ok || task.GoldSQL == "" {
			continue
		}
		for _, n := range suitegen.Neighbours(src.GoldSQL, sch[src.DBID], 1) {
			v, err := onSQLite.Judge(ctx, sqliteDBs[src.DBID], c.src.DBKey(src.DBID), src, n.SQL, spec)
			if err != nil {
				t.Fatal(err)
			}
			if v.ExecOutcome != schemas.OutcomeCorrect || v.Suite.ToldApartBy == "" {
				continue
			}
			w, err := onServer.Judge(ctx, c.dbs[task.DBID], c.ds.DBKey(task.DBID), task, c.rewrite(n.SQL, task.DBID), spec)
			if err != nil {
				t.Fatal(err)
			}
			if w.ExecOutcome != schemas.OutcomeCorrect {
				continue
			}
			paid++
			if w.Suite.ToldApartBy != "" {
				caught++
			}
		}
	}
	t.Logf("near misses the SQLite suites tell apart and the server's database pays: %d; the carried suites tell apart %d", paid, caught)
	if paid == 0 || caught*10 < paid*9 {
		t.Errorf("the carried suites tell apart %d of %d near misses; want nine in ten or more", caught, paid)
	}
}
