package suitegen

import (
	"context"
	"encoding/json"
	"github.com/sqlgym/sqlgym/reward/testsuite"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// spider loads the shared Spider-dev data as the dataset "spider-dev",
// skipping where it is absent.
func spider(t testing.TB) *env.Dataset {
	t.Helper()
	ds, err := datasets.LoadSpider("spider-dev", spiderdev.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// subset is a copy of ds holding only the tasks and databases of ids.
func subset(t testing.TB, ds *env.Dataset, ids ...string) *env.Dataset {
	t.Helper()
	out := &env.Dataset{Name: ds.Name, Dialect: ds.Dialect, DBs: map[string]string{}}
	for _, id := range ids {
		out.DBs[id] = ds.DBs[id]
	}
	for _, task := range ds.Tasks {
		if _, ok := out.DBs[task.DBID]; ok {
			out.Tasks = append(out.Tasks, task)
		}
	}
	if err := out.Index(); err != nil {
		t.Fatal(err)
	}
	return out
}

// openSQLite opens the SQLite file at path with the engine's defaults; it
// is closed when the test ends.
func openSQLite(t testing.TB, path string) env.DB {
	t.Helper()
	db, err := sqlite.New(sqlite.Config{}).Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// spiderSchema reads the Schema of a Spider-dev database.
func spiderSchema(t testing.TB, dbID string) *Schema {
	t.Helper()
	sc, err := SchemaOf(context.Background(), openSQLite(t, spider(t).DBs[dbID]))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// buildSQLite makes a SQLite file from script in a temporary folder and
// returns its path.
func buildSQLite(t testing.TB, script string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if err := sqlite.Build(context.Background(), path, script); err != nil {
		t.Fatal(err)
	}
	return path
}

// readManifest reads the manifest of dataset/db_id under root.
func readManifest(t testing.TB, root, dataset, dbID string) *testsuite.Manifest {
	t.Helper()
	m, err := testsuite.ReadManifest(testsuite.ManifestPath(root, dataset, dbID))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// manifestText is the manifest of dataset/db_id under root as JSON, its
// build time left out: what two builds of the same suites share.
func manifestText(t testing.TB, root, dataset, dbID string) string {
	t.Helper()
	m := readManifest(t, root, dataset, dbID)
	m.Build.Seconds = 0
	data, err := json.MarshalIndent(m, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// goldOf returns the manifest's entry of gold.
func goldOf(t testing.TB, m *testsuite.Manifest, gold string) testsuite.Gold {
	t.Helper()
	for _, g := range m.Golds {
		if g.SQL == gold {
			return g
		}
	}
	t.Fatalf("no gold %q in the manifest of %s", gold, m.DBID)
	return testsuite.Gold{}
}
