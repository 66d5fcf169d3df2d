package testsuite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

// fixture is a dataset of one SQLite database, d1, with three golds, and a
// store under root holding its suites: the first gold judged on ts-0009
// then ts-0003, the second on ts-0003, the third on none.
type fixture struct {
	root string
	ds   *env.Dataset
	m    *Manifest
}

// golds are the fixture's golds, one task each.
var golds = []string{"SELECT x FROM t", "SELECT count(*) FROM t", "SELECT max(x) FROM t"}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{root: t.TempDir()}
	src := filepath.Join(t.TempDir(), "d1.sqlite")
	build(t, src, "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (1), (2);")
	f.ds = &env.Dataset{Name: "demo", Dialect: env.SQLite, DBs: map[string]string{"d1": src}}
	for i, g := range golds {
		f.ds.Tasks = append(f.ds.Tasks, env.Task{ID: "demo/" + string(rune('0'+i)), Dataset: "demo", DBID: "d1", GoldSQL: g})
	}
	if err := f.ds.Index(); err != nil {
		t.Fatal(err)
	}
	dir := Dir(f.root, "demo", "d1")
	build(t, filepath.Join(dir, FileName(3)), "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (5);")
	build(t, filepath.Join(dir, FileName(9)), "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (7), (8);")
	source, err := SourceOf(src, Source{})
	if err != nil {
		t.Fatal(err)
	}
	f.m = &Manifest{Format: Format, Dataset: "demo", DBID: "d1", Dialect: env.SQLite,
		Identity:  Identity{Generator: GeneratorVersion, Params: Params{Seed: 1, Candidates: 10}, Source: source, Golds: HashGolds(golds)},
		Databases: []Database{{Name: DBName(3), Candidate: 3, File: FileName(3)}, {Name: DBName(9), Candidate: 9, File: FileName(9)}},
		Golds: []Gold{{SQL: golds[0], Suite: []string{DBName(9), DBName(3)}}, {SQL: golds[1], Suite: []string{DBName(3)}},
			{SQL: golds[2], Suite: []string{}}}}
	f.write(t)
	return f
}

// write writes the fixture's manifest.
func (f *fixture) write(t *testing.T) {
	t.Helper()
	if err := WriteManifest(ManifestPath(f.root, "demo", "d1"), f.m); err != nil {
		t.Fatal(err)
	}
}

// open opens the fixture's store through a catalog of the SQLite engine,
// closed when the test ends.
func (f *fixture) open(t *testing.T) (*Store, error) {
	t.Helper()
	cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
	t.Cleanup(func() { cat.Close() })
	return Open(context.Background(), f.root, []*env.Dataset{f.ds}, cat)
}

// build makes the SQLite file at path from script.
func build(t *testing.T, path, script string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Build(context.Background(), path, script); err != nil {
		t.Fatal(err)
	}
}

// TestSuiteServed opens a current store and reads each task's suite: the
// databases in judging order, named and keyed as the judge expects,
// holding the suite's rows.
func TestSuiteServed(t *testing.T) {
	f := newFixture(t)
	s, err := f.open(t)
	if err != nil {
		t.Fatal(err)
	}
	want := []Status{{Dataset: "demo", Current: []string{"d1"}, Tasks: 3, Covered: 2}}
	if got := s.Status(); !slices.EqualFunc(got, want, sameStatus) {
		t.Errorf("status: got %+v, want %+v", got, want)
	}
	tests := []struct {
		task  int
		names []string
		rows  []int64 // the first row of each database, by SELECT x FROM t
	}{
		{0, []string{"d1/ts-0009", "d1/ts-0003"}, []int64{7, 5}},
		{1, []string{"d1/ts-0003"}, []int64{5}},
		{2, nil, nil},
	}
	for _, tt := range tests {
		suite, err := s.Suite(context.Background(), &f.ds.Tasks[tt.task])
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		var rows []int64
		for _, db := range suite {
			names = append(names, db.Name)
			if db.Key != "demo~suite/"+db.Name {
				t.Errorf("key of %s: %q", db.Name, db.Key)
			}
			rs, err := db.DB.Query(context.Background(), "SELECT x FROM t", env.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, rs.Rows[0][0].(int64))
		}
		if !slices.Equal(names, tt.names) || !slices.Equal(rows, tt.rows) {
			t.Errorf("task %d: suite %v with rows %v, want %v with %v", tt.task, names, rows, tt.names, tt.rows)
		}
	}
	other := env.Task{ID: "other/0", Dataset: "other", DBID: "d1", GoldSQL: golds[0]}
	if suite, err := s.Suite(context.Background(), &other); err != nil || suite != nil {
		t.Errorf("a task of a dataset without suites: %v, %v", suite, err)
	}
}

// sameStatus compares statuses, nil and empty lists alike.
func sameStatus(a, b Status) bool {
	return a.Dataset == b.Dataset && slices.Equal(a.Current, b.Current) && slices.Equal(a.Missing, b.Missing) &&
		slices.Equal(a.Stale, b.Stale) && a.Tasks == b.Tasks && a.Covered == b.Covered
}

// TestStale checks that a suite whose identity no longer holds is
// reported stale, with why, and not served, and that a source file
// touched without a change keeps its suites.
func TestStale(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, f *fixture)
		why    string // "" when the suites stay current
	}{
		{"generator", func(t *testing.T, f *fixture) { f.m.Identity.Generator = GeneratorVersion - 1; f.write(t) }, "generator version"},
		{"golds", func(t *testing.T, f *fixture) { f.ds.Tasks[2].GoldSQL = "SELECT min(x) FROM t" }, "golds of the database changed"},
		{"source", func(t *testing.T, f *fixture) {
			os.Remove(f.ds.DBs["d1"])
			build(t, f.ds.DBs["d1"], "CREATE TABLE t(x INTEGER); INSERT INTO t VALUES (3);")
		}, "source database changed"},
		{"dialect", func(t *testing.T, f *fixture) { f.ds.Dialect = env.Postgres }, "built for sqlite"},
		{"touched", func(t *testing.T, f *fixture) {
			later := time.Now().Add(time.Hour)
			if err := os.Chtimes(f.ds.DBs["d1"], later, later); err != nil {
				t.Fatal(err)
			}
		}, ""},
	}
	for _, tt := range tests {
		f := newFixture(t)
		tt.change(t, f)
		cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
		s, err := Open(context.Background(), f.root, []*env.Dataset{f.ds}, cat)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		st := s.Status()[0]
		suite, err := s.Suite(context.Background(), &f.ds.Tasks[0])
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if tt.why == "" {
			if len(st.Current) != 1 || len(suite) != 2 {
				t.Errorf("%s: status %+v, suite of %d; want current", tt.name, st, len(suite))
			}
		} else if len(st.Stale) != 1 || !strings.Contains(st.Stale[0].Why, tt.why) || suite != nil || len(st.Current) != 0 {
			t.Errorf("%s: status %+v, suite of %d; want stale saying %q, no suite", tt.name, st, len(suite), tt.why)
		}
		cat.Close()
	}
}

// TestOpenErrors checks that a manifest that cannot be read or a file it
// lists that is missing fails Open with the file named, and that a
// database without a manifest is reported missing.
func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(t *testing.T, f *fixture) string // returns what the error must name
	}{
		{"not json", func(t *testing.T, f *fixture) string {
			writeFile(t, ManifestPath(f.root, "demo", "d1"), `{"format": 1, "db_id": "d1", "databases": [`)
			return ManifestPath(f.root, "demo", "d1")
		}},
		{"another format", func(t *testing.T, f *fixture) string {
			writeFile(t, ManifestPath(f.root, "demo", "d1"), `{"format": 99, "db_id": "d1"}`)
			return "format 99"
		}},
		{"missing file", func(t *testing.T, f *fixture) string {
			path := filepath.Join(Dir(f.root, "demo", "d1"), FileName(9))
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			return path
		}},
		{"suite names an unknown database", func(t *testing.T, f *fixture) string {
			f.m.Golds[0].Suite[0] = "ts-0010"
			writeRaw(t, f)
			return `"ts-0010", which is not listed`
		}},
		{"file outside its folder", func(t *testing.T, f *fixture) string {
			f.m.Databases[0].File = "../ts-0003.sqlite"
			writeRaw(t, f)
			return `"../ts-0003.sqlite" holds '/'`
		}},
	}
	for _, tt := range tests {
		f := newFixture(t)
		want := tt.change(t, f)
		_, err := f.open(t)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: Open error %v, want one naming %q", tt.name, err, want)
		}
	}
	f := newFixture(t)
	if err := os.Remove(ManifestPath(f.root, "demo", "d1")); err != nil {
		t.Fatal(err)
	}
	s, err := f.open(t)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Status()[0]; !slices.Equal(st.Missing, []string{"d1"}) || st.Covered != 0 {
		t.Errorf("no manifest: status %+v, want d1 missing", st)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeRaw writes the fixture's manifest as it is, unchecked.
func writeRaw(t *testing.T, f *fixture) {
	t.Helper()
	data, err := json.Marshal(f.m)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, ManifestPath(f.root, "demo", "d1"), string(data))
}

// TestOtherDialect opens the suites of a PostgreSQL dataset, carried
// there as source strings: their identity holds without a source file,
// they are current, and the catalog is asked to open them by their
// source string under the synthetic dataset (here, a catalog with no
// PostgreSQL engine refuses, with an error and no panic).
func TestOtherDialect(t *testing.T) {
	f := newFixture(t)
	f.ds.Dialect = env.Postgres
	f.ds.DBs["d1"] = "postgres://127.0.0.1/spider?search_path=d1"
	f.m.Dialect = env.Postgres
	f.m.Identity.Source = Source{}
	f.m.Databases = []Database{{Name: DBName(3), Candidate: 3, Source: "postgres://127.0.0.1/spider?search_path=d1_ts_0003"},
		{Name: DBName(9), Candidate: 9, Source: "postgres://127.0.0.1/spider?search_path=d1_ts_0009"}}
	f.write(t)
	s, err := f.open(t)
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Status()[0]; !slices.Equal(st.Current, []string{"d1"}) || st.Covered != 2 {
		t.Fatalf("status %+v, want d1 current, two tasks covered", st)
	}
	_, err = s.Suite(context.Background(), &f.ds.Tasks[0])
	if err == nil || !strings.Contains(err.Error(), `no engine for dialect "postgres"`) || !strings.Contains(err.Error(), "demo/0") {
		t.Errorf("suite through a catalog without PostgreSQL: %v", err)
	}
}

// TestCarriedOnServer: a suite database carried onto a server by sqlgym
// import is named by its schema alone and found on the server the
// dataset is served from; named so for a dataset that is not on a
// server, it is an error that says to serve it with --engine.
func TestCarriedOnServer(t *testing.T) {
	f := newFixture(t)
	f.ds.Dialect = env.Postgres
	f.ds.DBs["d1"] = "postgres://u@db.example:5432/spider#d1"
	f.m.Dialect = env.Postgres
	f.m.Identity.Source = Source{}
	f.m.Databases = []Database{{Name: DBName(3), Candidate: 3, Source: "d1__ts_0003"}, {Name: DBName(9), Candidate: 9, Source: "d1__ts_0009"}}
	f.write(t)
	s, err := f.open(t)
	if err != nil {
		t.Fatal(err)
	}
	got := s.sets["demo"].synth.DBs
	if got["d1/ts-0003"] != "postgres://u@db.example:5432/spider#d1__ts_0003" || got["d1/ts-0009"] != "postgres://u@db.example:5432/spider#d1__ts_0009" {
		t.Errorf("carried suite databases at %v", got)
	}
	f.ds.DBs["d1"] = "/data/d1.sqlite"
	if _, err := f.open(t); err == nil || !strings.Contains(err.Error(), "--engine") || !strings.Contains(err.Error(), "ts-0003") {
		t.Errorf("a carried suite of a dataset not on a server: %v", err)
	}
}
