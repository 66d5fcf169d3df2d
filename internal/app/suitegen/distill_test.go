package suitegen

import (
	"context"
	"github.com/sqlgym/sqlgym/internal/testkit/sqlitetest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward/testsuite"
)

// musicSchema is the schema of the hand-made database of the distillation
// tests.
const musicSchema = `CREATE TABLE singer(id INTEGER PRIMARY KEY, name TEXT, age INTEGER, country TEXT);
`

// musicRows are the source database's rows.
const musicRows = `INSERT INTO singer VALUES (1, 'Ann', 30, 'France'), (2, 'Bob', 40, 'Spain'), (3, 'Cid', 50, 'France');`

// musicCandidates are the candidates, by index: empty; the source's rows
// (twice); rows that tie on age under ORDER BY age LIMIT 1; rows made to
// separate comparisons, strings and NULLs.
var musicCandidates = []string{
	``,
	musicRows,
	musicRows,
	`INSERT INTO singer VALUES (1, 'Ann', 20, 'France'), (2, 'Bob', 20, 'France'), (3, 'Cid', 36, 'france'), (4, 'Ann', 35, 'FRANCE');`,
	`INSERT INTO singer VALUES (1, 'Dee', 36, 'France'), (2, 'Dee', 35, 'Franc'), (3, 'Eve', 34, 'Spain'), (4, NULL, NULL, NULL);`,
	`INSERT INTO singer VALUES (7, 'Fay', 41, 'France'), (8, 'Gus', 39, 'Frances'), (9, 'Hal', 60, 'Spain'), (10, 'Fay', 41, 'France');`,
}

// musicHeldOut are the held-out databases: rows no candidate has.
var musicHeldOut = []string{
	`INSERT INTO singer VALUES (1, 'Ivy', 35, 'France'), (2, 'Jon', 36, 'Spain');`,
	`INSERT INTO singer VALUES (1, 'Kim', 70, 'FRANCE'), (2, 'Lea', 10, 'France'), (3, 'Kim', 70, 'Spain');`,
}

// musicGolds are the golds of the hand-made dataset's tasks; the first is
// asked twice.
var musicGolds = []string{
	`SELECT name FROM singer WHERE age > 35`,
	`SELECT count(*) FROM singer WHERE country = 'France'`,
	`SELECT name FROM singer ORDER BY age LIMIT 1`,
	`SELECT name FROM singer WHERE age > 35`,
}

// musicDataset is a one-database dataset of musicGolds over a source
// database holding musicRows.
func musicDataset(t *testing.T) *env.Dataset {
	t.Helper()
	ds := &env.Dataset{Name: "music", Dialect: env.SQLite, DBs: map[string]string{"music": buildSQLite(t, musicSchema+musicRows)}}
	for i, g := range musicGolds {
		ds.Tasks = append(ds.Tasks, env.Task{ID: "music/" + string(rune('a'+i)), Dataset: "music", DBID: "music", GoldSQL: g})
	}
	if err := ds.Index(); err != nil {
		t.Fatal(err)
	}
	return ds
}

// musicConfig is the configuration of the distillation tests.
func musicConfig(workers int) Config {
	return Config{Seed: 3, Candidates: len(musicCandidates), HeldOut: len(musicHeldOut), Workers: workers,
		Planner: scripted(musicSchema, musicCandidates, musicHeldOut)}
}

// TestDistillScripted builds the hand-made dataset's suites and checks
// them against a brute-force reading of every candidate: a candidate that
// tells apart nothing new (empty, or the same rows as one kept before) is
// never kept, every neighbour some candidate tells apart is told apart by
// a database of the suite, the tie and the count figures are right, and
// the manifest does not depend on the number of workers.
func TestDistillScripted(t *testing.T) {
	ctx := context.Background()
	ds := musicDataset(t)
	root := t.TempDir()
	rep, err := Build(ctx, ds, root, musicConfig(1))
	if err != nil {
		t.Fatal(err)
	}
	m := readManifest(t, root, "music", "music")
	if got, want := len(m.Golds), 3; got != want {
		t.Fatalf("golds in the manifest: got %d, want %d", got, want)
	}
	b := newBuilder(ds, root, musicConfig(1).withDefaults())
	src := musicSources(t, ds)
	cands, held := musicDBs(t, musicCandidates), musicDBs(t, musicHeldOut)
	for _, g := range m.Golds {
		w, err := b.prepare(ctx, g.SQL, src)
		if err != nil {
			t.Fatal(err)
		}
		bySuite := checkSuite(t, b, w, g, cands, filepath.Join(root, "music", "music"))
		checkHeldOut(t, b, w, g, bySuite, held)
	}
	if rep.Totals.Tasks != 4 || rep.Totals.Golds != 3 {
		t.Errorf("totals: %d tasks and %d golds, want 4 and 3", rep.Totals.Tasks, rep.Totals.Golds)
	}
	tied := goldOf(t, m, musicGolds[2])
	if tied.Counts.TiedCandidates != 1 || slices.Contains(tied.Suite, testsuite.DBName(3)) {
		t.Errorf("ORDER BY age LIMIT 1: %d tied candidates, suite %v; want candidate 3 passed over for its tie", tied.Counts.TiedCandidates, tied.Suite)
	}
	again := t.TempDir()
	if _, err := Build(ctx, ds, again, musicConfig(4)); err != nil {
		t.Fatal(err)
	}
	if a, b := manifestText(t, root, "music", "music"), manifestText(t, again, "music", "music"); a != b {
		t.Errorf("manifests differ with 1 and 4 workers:\n%s\n%s", a, b)
	}
}

// checkSuite checks the suite of gold g, whose neighbours w holds: no
// candidate kept that an earlier kept one or the empty one makes useless,
// and every neighbour some usable candidate tells apart told apart by one
// of the suite's databases as stored in dir. It returns the neighbours the
// suite tells apart.
func checkSuite(t *testing.T, b *builder, w *goldWork, g testsuite.Gold, cands []env.DB, dir string) []bool {
	t.Helper()
	for _, useless := range []string{testsuite.DBName(0), testsuite.DBName(2)} {
		if slices.Contains(g.Suite, useless) {
			t.Errorf("%s: suite %v holds %s, which tells nothing new", g.SQL, g.Suite, useless)
		}
	}
	bySome := tellable(t, b, w, cands)
	var suite []env.DB
	for _, name := range g.Suite {
		suite = append(suite, openSQLite(t, filepath.Join(dir, name+".sqlite")))
	}
	bySuite := tellable(t, b, w, suite)
	if !slices.Equal(bySome, bySuite) {
		t.Errorf("%s: neighbours told apart by some candidate %v, by the suite %v", g.SQL, bySome, bySuite)
	}
	if got, want := g.Counts.BySuite, count(bySome, nil); got != want || want == 0 {
		t.Errorf("%s: by_suite %d, want %d (> 0)", g.SQL, got, want)
	}
	return bySuite
}

// checkHeldOut checks the held-out counts of gold g against the held-out
// databases read by brute force.
func checkHeldOut(t *testing.T, b *builder, w *goldWork, g testsuite.Gold, bySuite []bool, held []env.DB) {
	t.Helper()
	byHeld := tellable(t, b, w, held)
	got := [3]int{g.Counts.HeldOutApart, g.Counts.SuiteOfHeldOut, g.Counts.OriginalOfHeldOut}
	want := [3]int{count(byHeld, nil), count(byHeld, bySuite), count(byHeld, w.byOriginal)}
	if got != want || want[0] == 0 {
		t.Errorf("%s: held-out apart, of them by the suite, by the source: got %v, want %v (some)", g.SQL, got, want)
	}
}

// musicDBs opens a database of musicSchema for each rows script.
func musicDBs(t *testing.T, scripts []string) []env.DB {
	t.Helper()
	out := make([]env.DB, len(scripts))
	for i, rows := range scripts {
		out[i] = sqlitetest.Open(t, musicSchema+rows)
	}
	return out
}

// tellable marks the neighbours of w that some database of dbs on which
// the gold is usable tells apart.
func tellable(t *testing.T, b *builder, w *goldWork, dbs []env.DB) []bool {
	t.Helper()
	out := make([]bool, len(w.neighbours))
	for _, db := range dbs {
		g, err := b.run.gold(context.Background(), db, w.sql)
		if err != nil {
			t.Fatal(err)
		}
		for i, n := range w.neighbours {
			r, err := b.run.query(context.Background(), db, n.SQL)
			if err != nil {
				t.Fatal(err)
			}
			out[i] = out[i] || g.usable() && g.apart(r)
		}
	}
	return out
}

// musicSources are the source database of the hand-made dataset, its
// empty copy and its schema.
func musicSources(t *testing.T, ds *env.Dataset) sources {
	t.Helper()
	orig := openSQLite(t, ds.DBs["music"])
	sc, err := SchemaOf(context.Background(), orig)
	if err != nil {
		t.Fatal(err)
	}
	return sources{schema: sc, original: orig, empty: sqlitetest.Open(t, musicSchema)}
}

// TestBuildRefusesOtherDialects checks that a dataset of another dialect
// than SQLite is refused with an error saying where its suites come from.
func TestBuildRefusesOtherDialects(t *testing.T) {
	ds := musicDataset(t)
	ds.Dialect = env.MySQL
	_, err := Build(context.Background(), ds, t.TempDir(), musicConfig(1))
	if err == nil || !strings.Contains(err.Error(), "MySQL") || !strings.Contains(err.Error(), "sqlgym import") {
		t.Errorf("Build of a MySQL dataset: %v", err)
	}
}

// TestFailedRebuildKeepsManifest checks that a build that fails half-way
// leaves the manifest that was there, whole, with every file it lists.
func TestFailedRebuildKeepsManifest(t *testing.T) {
	ctx := context.Background()
	ds := musicDataset(t)
	root := t.TempDir()
	if _, err := Build(ctx, ds, root, musicConfig(1)); err != nil {
		t.Fatal(err)
	}
	before := manifestText(t, root, "music", "music")
	ds.Tasks[1].GoldSQL = "SELECT count(*) FROM singer"
	cfg := musicConfig(1)
	cfg.Planner = scripted(musicSchema, musicCandidates[:2], nil) // candidate 2 is missing: Generate fails
	if _, err := Build(ctx, ds, root, cfg); err == nil || !strings.Contains(err.Error(), "no database scripted") {
		t.Fatalf("a build whose generator fails: %v", err)
	}
	if after := manifestText(t, root, "music", "music"); after != before {
		t.Errorf("the manifest changed:\n%s\n%s", before, after)
	}
	for _, d := range readManifest(t, root, "music", "music").Databases {
		openSQLite(t, filepath.Join(root, "music", "music", d.File))
	}
	if entries, err := os.ReadDir(filepath.Join(root, "music")); err != nil || len(entries) != 1 {
		t.Errorf("the dataset's folder holds %v (%v), want the database's folder alone: no scratch left", entries, err)
	}
}
