package sqlite

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

func TestSingleStatement(t *testing.T) {
	tests := []struct {
		text, want string
		kind       error
	}{
		{"SELECT 1", "SELECT 1", nil},
		{"  select 1 ;  ", "select 1", nil},
		{"WITH a AS (SELECT 1) SELECT * FROM a;", "WITH a AS (SELECT 1) SELECT * FROM a", nil},
		{"VALUES (1)", "VALUES (1)", nil},
		{"EXPLAIN QUERY PLAN SELECT 1", "EXPLAIN QUERY PLAN SELECT 1", nil},
		{"PRAGMA table_info(t)", "PRAGMA table_info(t)", nil},
		{"-- lead\nSELECT ';' -- trail", "-- lead\nSELECT ';' -- trail", nil},
		{"SELECT [a;b], \"c;d\", `e;f` FROM t", "SELECT [a;b], \"c;d\", `e;f` FROM t", nil},
		{"", "", env.ErrSQL},
		{" ; ;; ", "", env.ErrSQL},
		{"/* only a comment */", "", env.ErrSQL},
		{"SELECT 1; SELECT 2", "", env.ErrMultiStatement},
		{"SELECT 1 -- x\n; DROP TABLE t", "", env.ErrMultiStatement},
		// sqltext reads $a$...$a$ as one string; SQLite sees two statements
		{"SELECT $a$; DELETE FROM t; $a$", "", env.ErrMultiStatement},
		// sqltext reads E'\'...' as one string; SQLite sees two statements
		{"SELECT E'\\'; DELETE FROM t; --'", "", env.ErrMultiStatement},
		{"DELETE FROM t", "", env.ErrDenied},
		{"/* SELECT */ UPDATE t SET x = 1", "", env.ErrDenied},
		{"VACUUM INTO '/tmp/x'", "", env.ErrDenied},
		{"ATTACH ':memory:' AS m", "", env.ErrDenied},
		{"'SELECT'", "", env.ErrSQL},
		{"SELEC name FROM t", "", env.ErrSQL},
		{"(((", "", env.ErrSQL},
		{"\ufeffSELECT 1", "SELECT 1", nil},
		{"\ufeff\ufeff  select 1;", "select 1", nil},
		{"\ufeff", "", env.ErrSQL},
		{"\ufeffDELETE FROM t", "", env.ErrDenied},
		{"SELECT '\ufeff'", "SELECT '\ufeff'", nil},
	}
	for _, tc := range tests {
		got, err := singleStatement(tc.text, 1000)
		if tc.kind == nil {
			if err != nil || got != tc.want {
				t.Errorf("singleStatement(%q) = %q, %v; want %q", tc.text, got, err, tc.want)
			}
			continue
		}
		if !errors.Is(err, tc.kind) {
			t.Errorf("singleStatement(%q) err = %v, want kind %v", tc.text, err, tc.kind)
		}
	}
	if _, err := singleStatement("SELECT 12345", 10); !errors.Is(err, env.ErrTooLarge) {
		t.Errorf("over-long statement: err = %v, want too large", err)
	}
}

func TestSQLiteStatements(t *testing.T) {
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{";;", 0},
		{"-- a; b", 0},
		{"/* a; b", 0},
		{"SELECT 1", 1},
		{"SELECT 'a;''b'", 1},
		{`SELECT "a;""b"`, 1},
		{"SELECT [a;b]", 1},
		{"SELECT `a;b`", 1},
		{"SELECT 1 /* ; */ ; SELECT 2", 2},
		{"SELECT 1 -- ;\n; SELECT 2 ;", 2},
		{"SELECT E'\\'; SELECT 1", 2},
		{"SELECT $a$; SELECT $a$", 2},
	}
	for _, tc := range tests {
		if got := sqliteStatements(tc.text); got != tc.want {
			t.Errorf("sqliteStatements(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

// FuzzQuery sends arbitrary text to the fixture: whatever it is, the call
// ends in a result or a *env.QueryError, the file stays as it was, and
// the database keeps serving.
func FuzzQuery(f *testing.F) {
	for _, a := range attacks(f.TempDir()) {
		f.Add(a.sql)
	}
	f.Add("SELECT * FROM singer WHERE name LIKE '%a%' ORDER BY 1")
	d, path := openFixture(f)
	want := fileHash(f, path)
	f.Fuzz(func(t *testing.T, text string) {
		_, err := d.Query(context.Background(), text, env.Limits{Timeout: 50 * time.Millisecond, MaxRows: 10})
		var qe *env.QueryError
		if err != nil && !errors.As(err, &qe) {
			t.Fatalf("Query(%q) = %v (%T), want a result or a *env.QueryError", text, err, err)
		}
		if got := fileHash(t, path); got != want {
			t.Fatalf("Query(%q) changed the file", text)
		}
		checkServing(t, d)
	})
}
