package dbgen

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env/sqlite"
)

// source builds a source database from script in a temporary folder.
func source(tb testing.TB, script string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "src.sqlite")
	if err := sqlite.Build(context.Background(), path, script); err != nil {
		tb.Fatal(err)
	}
	return path
}

// analyze runs Analyze, failing the test on an error.
func analyze(tb testing.TB, src string, golds []string, cfg Config) *Plan {
	tb.Helper()
	p, err := Analyze(context.Background(), src, golds, cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// generated writes the database of seed in a temporary folder.
func generated(tb testing.TB, p *Plan, seed uint64) (string, Stats) {
	tb.Helper()
	dst := filepath.Join(tb.TempDir(), fmt.Sprintf("gen-%d.sqlite", seed))
	st, err := p.Generate(context.Background(), seed, dst)
	if err != nil {
		tb.Fatalf("seed %d: %v", seed, err)
	}
	return dst, st
}

// reader opens a file read-only on a plain connection, for checks the
// engine's sandbox would not run; it is closed when the test ends.
func reader(tb testing.TB, path string) *sql.Conn {
	tb.Helper()
	db, conn, err := openSource(context.Background(), path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn.Close()
		db.Close()
	})
	return conn
}

// count runs a query that returns one integer.
func count(tb testing.TB, conn *sql.Conn, q string, args ...any) int {
	tb.Helper()
	var n int
	if err := conn.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return n
}

// strings1 runs a query that returns one text column.
func strings1(tb testing.TB, conn *sql.Conn, q string, args ...any) []string {
	tb.Helper()
	rows, err := conn.QueryContext(context.Background(), q, args...)
	if err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			tb.Fatal(err)
		}
		out = append(out, s.String)
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}

// checkConstraints checks in one generated file every declared
// constraint of the plan's schema: the file's integrity, NOT NULL, every
// key unique, every followed foreign key held (PRAGMA foreign_key_check
// where the parent columns are a key, a query where they are not, as
// voter_1 declares one), and every column's values in the storage
// classes of its source values.
func checkConstraints(t *testing.T, p *Plan, path string) {
	t.Helper()
	conn := reader(t, path)
	if got := strings1(t, conn, "PRAGMA integrity_check"); len(got) != 1 || got[0] != "ok" {
		t.Errorf("%s: integrity_check says %q", path, got)
	}
	for _, tb := range p.s.tables {
		checkTable(t, conn, tb)
	}
	for _, fk := range p.keys {
		if fk.origin == fkDeclared && !fk.cycle || fk.origin == fkInferred && fk.strict && !fk.cycle {
			checkKey(t, conn, p, fk)
		}
	}
}

// checkTable checks one table's NOT NULL columns, keys and classes.
func checkTable(t *testing.T, conn *sql.Conn, tb *table) {
	t.Helper()
	name := quoteIdent(tb.name)
	for _, c := range tb.columns {
		col := quoteIdent(c.name)
		if c.notNull && count(t, conn, fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NULL", name, col)) > 0 {
			t.Errorf("%s.%s is NOT NULL and holds NULLs", tb.name, c.name)
		}
		for _, cl := range strings1(t, conn, fmt.Sprintf("SELECT DISTINCT typeof(%s) FROM %s", col, name)) {
			if cl != "null" && c.stats.classes != 0 && !slices.Contains(c.stats.classes.names(), cl) {
				t.Errorf("%s.%s holds %s values; the source's are %v", tb.name, c.name, cl, c.stats.classes.names())
			}
		}
	}
	for _, key := range tb.keys {
		cols := columnList(tb, key)
		q := fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s WHERE %s GROUP BY %s HAVING count(*) > 1)",
			name, notNullAll(tb, key), cols)
		if n := count(t, conn, q); n > 0 {
			t.Errorf("%s: key (%s) repeats %d times", tb.name, cols, n)
		}
	}
}

// checkKey checks that a foreign key holds.
func checkKey(t *testing.T, conn *sql.Conn, p *Plan, fk *foreignKey) {
	t.Helper()
	child, parent := p.s.tables[fk.child], p.s.tables[fk.parent]
	if fk.origin == fkDeclared && wellFormed(p, fk.child) {
		if got := strings1(t, conn, fmt.Sprintf("SELECT parent FROM pragma_foreign_key_check(%s)", sqlString(child.name))); len(got) > 0 {
			t.Errorf("%s: foreign_key_check finds %d rows without a parent in %q", child.name, len(got), got)
		}
		return
	}
	for i, c := range fk.cols {
		cc, pc := quoteIdent(child.columns[c].name), quoteIdent(parent.columns[fk.parentCols[i]].name)
		q := fmt.Sprintf("SELECT count(*) FROM %s WHERE %s IS NOT NULL AND %s NOT IN (SELECT %s FROM %s)",
			quoteIdent(child.name), cc, cc, pc, quoteIdent(parent.name))
		if n := count(t, conn, q); n > 0 {
			t.Errorf("%s.%s: %d values not in %s.%s", child.name, cc, n, parent.name, pc)
		}
	}
}

// wellFormed reports whether every key table t declares references a
// key of its parent, as PRAGMA foreign_key_check requires of all of them.
func wellFormed(p *Plan, t int) bool {
	for _, fk := range p.s.tables[t].fks {
		if !fk.usable() || !p.s.tables[fk.parent].hasKey(fk.parentCols) {
			return false
		}
	}
	return true
}

// columnList is the quoted columns of key, comma-separated.
func columnList(tb *table, key []int) string {
	names := make([]string, len(key))
	for i, c := range key {
		names[i] = quoteIdent(tb.columns[c].name)
	}
	return strings.Join(names, ", ")
}

// notNullAll is the condition that every column of key is not NULL.
func notNullAll(tb *table, key []int) string {
	s := "1"
	for _, c := range key {
		s += " AND " + quoteIdent(tb.columns[c].name) + " IS NOT NULL"
	}
	return s
}

// sqlString quotes s as an SQL string.
func sqlString(s string) string { return renderSQL(s) }

// keyLine renders a key as "child.cols -> parent.cols origin strict".
func keyLine(fk ForeignKeyDescription) string {
	return fmt.Sprintf("%s.%s -> %s.%s %s %v", fk.Table, strings.Join(fk.Columns, ","),
		fk.RefTable, strings.Join(fk.RefColumns, ","), fk.Origin, fk.Strict)
}
