package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// Names PostgreSQL would make one are refused before anything is
// written, both named, with a failing exit status: two db_ids sharing
// their first 63 bytes (one schema), two tables of a database that share
// them once lower-cased or cut back to a character boundary, two columns
// of a table.
func TestImportRefusesCollidingNames(t *testing.T) {
	dsn := pgtest.Database(t)
	long := strings.Repeat("d", 63)
	boundary := strings.Repeat("t", 62) // a 2-byte letter after it is cut whole
	col := strings.Repeat("c", 63)
	tests := []struct {
		name  string
		dbs   map[string]string
		names []string
	}{
		{"db_ids", map[string]string{long + "_one": "CREATE TABLE a (x int)", long + "_two": "CREATE TABLE b (y int)"},
			[]string{long + "_one", long + "_two"}},
		{"tables cut on a character", map[string]string{"tabs": `CREATE TABLE "` + boundary + `éx" (x int); CREATE TABLE "` + boundary + `" (y int)`},
			[]string{boundary + "éx", boundary}},
		{"tables cut on bytes", map[string]string{"tabs": `CREATE TABLE "` + long + `a" (x int); CREATE TABLE "` + long + `b" (y int)`},
			[]string{long + "a", long + "b"}},
		{"tables folded", map[string]string{"tabs": `CREATE TABLE "Äpfel" (x int); CREATE TABLE "äpfel" (y int)`},
			[]string{"Äpfel", "äpfel"}},
		{"columns", map[string]string{"cols": `CREATE TABLE t ("` + col + `1" int, "` + col + `2" int)`},
			[]string{col + "1", col + "2"}},
		{"a catalog relation's name", map[string]string{"cat": `CREATE TABLE t (x int); CREATE TABLE PG_Class (y int)`},
			[]string{"PG_Class"}},
	}
	for _, tt := range tests {
		ds, _ := spiderDataset(t, "clash", tt.dbs)
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), []string{"import", "--dataset", ds, "--engine", dsn, "--out", out, "--role", "sqlgym_test_clash"}, &stdout, &stderr)
		if err == nil || exitCode(err) == 0 {
			t.Errorf("%s: import succeeded; want it refused", tt.name)
			dropRole(t, dsn, "sqlgym_test_clash")
			continue
		}
		for _, n := range tt.names {
			if !strings.Contains(err.Error(), strconvQuote(n)) {
				t.Errorf("%s: error %q does not name %q", tt.name, err, n)
			}
		}
		if files, _ := os.ReadDir(out); len(files) > 0 {
			t.Errorf("%s: %d files written to --out", tt.name, len(files))
		}
		checkNothingWritten(t, dsn, tt.name, "sqlgym_test_clash")
	}
}

// strconvQuote is name as %q writes it in an error.
func strconvQuote(name string) string { return fmt.Sprintf("%q", name) }

// checkNothingWritten fails t when the database dsn holds a schema of its
// own or the role exists.
func checkNothingWritten(t *testing.T, dsn, what, role string) {
	t.Helper()
	ctx := context.Background()
	conn, err := connectPostgres(ctx, dsn, 0, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var schemas []string
	var roles int
	err = conn.QueryRow(ctx, `SELECT array(SELECT nspname::text FROM pg_namespace
WHERE nspname NOT IN ('public', 'information_schema') AND nspname NOT LIKE 'pg\_%'),
(SELECT count(*) FROM pg_roles WHERE starts_with(rolname, $1))`, role).Scan(&schemas, &roles)
	if err != nil {
		t.Fatal(err)
	}
	if len(schemas) > 0 || roles > 0 {
		t.Errorf("%s: the refused import wrote schemas %q and %d roles", what, schemas, roles)
	}
}

// spiderDataset writes a Spider-layout dataset named name with the
// databases dbs (db_id to the SQL that builds it), one task on each, and
// returns its --dataset value and its folder.
func spiderDataset(t *testing.T, name string, dbs map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	type rec struct {
		DBID     string `json:"db_id"`
		Question string `json:"question"`
		Query    string `json:"query"`
	}
	var recs []rec
	ids := make([]string, 0, len(dbs))
	for id := range dbs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		path := filepath.Join(dir, "database", id, id+".sqlite")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := sqlite.Build(context.Background(), path, dbs[id]); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, rec{DBID: id, Question: "q", Query: "SELECT 1"})
	}
	data, err := json.Marshal(recs)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "dev.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	return name + "=spider:" + dir, dir
}
