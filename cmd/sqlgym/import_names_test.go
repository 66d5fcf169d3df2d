package main

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/tools"
)

// oddNamesDB has tables whose names do not run bare: a keyword, a
// double quote, capitals; each has columns named the same way, and one
// row that says which table it is.
const oddNamesDB = `
CREATE TABLE "select" ("from" TEXT, "Order" TEXT, plain TEXT);
INSERT INTO "select" VALUES ('select.from', 'select.Order', 'select.plain');
CREATE TABLE "a""b" ("c""d" TEXT, "user" TEXT);
INSERT INTO "a""b" VALUES ('a"b.c"d', 'a"b.user');
CREATE TABLE MixedCase (Upper TEXT, "where" TEXT);
INSERT INTO MixedCase VALUES ('MixedCase.Upper', 'MixedCase.where');
CREATE TABLE roles (rolname TEXT);
INSERT INTO roles VALUES ('roles.rolname');
`

// oddRows is each table's row, by the table's name in lower case; each
// row's first value is found in no other table.
var oddRows = map[string][]any{
	"select":    {"select.from", "select.Order", "select.plain"},
	`a"b`:       {`a"b.c"d`, `a"b.user`},
	"mixedcase": {"MixedCase.Upper", "MixedCase.where"},
	"roles":     {"roles.rolname"},
}

// Every table and column name inspect_schema shows runs as shown: after
// an import into PostgreSQL, and on the SQLite original, SELECT * FROM
// the shown table name returns that table's row, and SELECT of each
// shown column name returns that column's value.
func TestImportedNamesRunAsShown(t *testing.T) {
	dsn := pgtest.Database(t)
	ds, dir := spiderDataset(t, "odd", map[string]string{"odd": oddNamesDB})
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), []string{"import", "--dataset", ds, "--engine", dsn, "--out", t.TempDir(), "--role", "sqlgym_test_names"}, &stdout, &stderr); err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { dropRole(t, dsn, "sqlgym_test_names") })
	ctx := context.Background()
	pg, err := postgres.New(postgres.Config{Role: "sqlgym_test_names"}).Open(ctx, postgres.Source(dsn, "odd"))
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	checkNamesRun(t, pg, env.Postgres)
	lite, err := sqlite.New(sqlite.Config{}).Open(ctx, filepath.Join(dir, "database", "odd", "odd.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	checkNamesRun(t, lite, env.SQLite)
}

// checkNamesRun runs, on db, SQL written with the names inspect_schema
// shows in dialect, and checks it reads oddRows; inspect_schema finds each
// table by its shown name too.
func checkNamesRun(t *testing.T, db env.DB, dialect env.Dialect) {
	t.Helper()
	ctx := context.Background()
	runner := tools.NewRunner(tools.Config{})
	res, err := runner.Inspect(ctx, db, dialect, &tools.InspectSchemaArgs{})
	if err != nil || res.Error != nil {
		t.Fatalf("%s: inspect_schema: %v %+v", dialect, err, res.Error)
	}
	lines := strings.Split(res.Content, "\n")[1:]
	if len(lines) != len(oddRows) {
		t.Fatalf("%s: inspect_schema shows %d tables; want %d:\n%s", dialect, len(lines), len(oddRows), res.Content)
	}
	seen := map[any]bool{}
	for _, line := range lines {
		table, cols := splitSchemaLine(t, line)
		rs, err := db.Query(ctx, "SELECT * FROM "+table, env.Limits{})
		if err != nil {
			t.Errorf("%s: SELECT * FROM %s (shown as %q): %v", dialect, table, line, err)
			continue
		}
		want := wantRow(rs)
		if len(rs.Rows) != 1 || want == nil || !reflect.DeepEqual(rs.Rows[0], want) {
			t.Errorf("%s: SELECT * FROM %s: %d rows, first %v; want one row of %v", dialect, table, len(rs.Rows), rs.Rows[:min(len(rs.Rows), 1)], oddRows)
			continue
		}
		seen[want[0]] = true
		one, err := runner.Inspect(ctx, db, dialect, &tools.InspectSchemaArgs{Table: table})
		if head := "Table " + table + "\n"; err != nil || !strings.HasPrefix(one.Content, head) {
			t.Errorf("%s: inspect_schema of %s: %v, %q; want it to start %q", dialect, table, err, one.Content, head)
		}
		for i, col := range cols {
			rs, err := db.Query(ctx, "SELECT "+col+" FROM "+table, env.Limits{})
			if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != want[i] {
				t.Errorf("%s: SELECT %s FROM %s: %v, %v; want %q", dialect, col, table, rs, err, want[i])
			}
		}
	}
	if len(seen) != len(oddRows) {
		t.Errorf("%s: the shown names reach %d of the %d tables", dialect, len(seen), len(oddRows))
	}
}

// wantRow is the row of oddRows whose first value rs's first row holds,
// or nil.
func wantRow(rs *env.ResultSet) []any {
	for _, row := range oddRows {
		if len(rs.Rows) > 0 && len(rs.Rows[0]) > 0 && rs.Rows[0][0] == row[0] {
			return row
		}
	}
	return nil
}

// splitSchemaLine splits a line of inspect_schema's list, "name(col
// TYPE, ...)", into the table's name and the columns' names, each as
// shown: a name is bare characters or double-quoted text (with "" for a
// quote), and may be qualified with dots.
func splitSchemaLine(t *testing.T, line string) (string, []string) {
	t.Helper()
	table, rest := shownName(line)
	if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
		t.Fatalf("schema line %q: no column list after %q", line, table)
	}
	rest = rest[1 : len(rest)-1]
	var cols []string
	for rest != "" {
		col, after := shownName(rest)
		cols = append(cols, col)
		_, rest, _ = strings.Cut(after, ", ")
	}
	return table, cols
}

// shownName reads a shown name at the start of s and returns it and what
// follows it.
func shownName(s string) (string, string) {
	i := 0
	for i < len(s) {
		switch c := s[i]; {
		case c == '"':
			i++
			for i < len(s) && (s[i] != '"' || i+1 < len(s) && s[i+1] == '"') {
				if s[i] == '"' {
					i++
				}
				i++
			}
			i++
		case c == '(' || c == ' ' || c == ')':
			return s[:i], s[i:]
		default:
			i++
		}
	}
	return s[:i], s[i:]
}
