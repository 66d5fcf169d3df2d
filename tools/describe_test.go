package tools

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/schemas"
)

func describe(t *testing.T, r *Runner, db env.DB, dialect env.Dialect, table, column string) Result {
	t.Helper()
	res, err := r.DescribeColumn(context.Background(), db, dialect, &DescribeColumnArgs{Table: table, Column: column})
	if err != nil {
		t.Fatalf("DescribeColumn(%s.%s): %v", table, column, err)
	}
	return res
}

func TestDescribeColumnGolden(t *testing.T) {
	db := openScript(t, concertScript)
	r := NewRunner(Config{})
	golden(t, "describe_singer_country", describe(t, r, db, env.SQLite, "singer", "Country").Content+"\n")
	golden(t, "describe_singer_photo", describe(t, r, db, env.SQLite, "SINGER", "photo").Content+"\n")
}

// TestDescribeColumnDemo profiles demo columns and checks the counts
// against the demo's own data.
func TestDescribeColumnDemo(t *testing.T) {
	ds, err := demo.Load(context.Background(), filepath.Join(t.TempDir(), "demo"), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	db := openFile(t, ds.DBs["library"])
	r := NewRunner(Config{})
	got := describe(t, r, db, env.SQLite, "authors", "birth_year").Content
	containsAll(t, got,
		"Column authors.birth_year, declared type INTEGER",
		"Rows: 23; NULL: 1 (4.3%); distinct values: 22",
		"Stored types: integer (22), null (1)",
		"Min: 1775; max: 1976",
	)
	got = describe(t, r, db, env.SQLite, "authors", "country").Content
	if !strings.Contains(got, "Most frequent values (rows): 'United Kingdom' (7), 'United States' (6), 'Italy' (2)") {
		t.Errorf("most frequent values of authors.country:\n%s", got)
	}
}

func TestDescribeColumnErrors(t *testing.T) {
	db := openScript(t, concertScript)
	r := NewRunner(Config{})
	for _, c := range []struct{ table, column, code, says string }{
		{"nope", "x", schemas.ErrCodeNoSuchTable, "The tables are:"},
		{"singer", "nope", schemas.ErrCodeNoSuchColumn, "its columns are Singer_ID, Name, Country"},
	} {
		res := describe(t, r, db, env.SQLite, c.table, c.column)
		if res.Error == nil || res.Error.Code != c.code || !strings.Contains(res.Content, c.says) {
			t.Errorf("%s.%s: %+v %q, want %s saying %q", c.table, c.column, res.Error, res.Content, c.code, c.says)
		}
	}
}

// TestDescribeColumnTimeout profiles a column with a query timeout that
// has passed before the first statement: a timeout error, as execute_sql
// gives, not a server error.
func TestDescribeColumnTimeout(t *testing.T) {
	db := openScript(t, concertScript)
	r := NewRunner(Config{QueryTimeout: time.Nanosecond})
	res := describe(t, r, db, env.SQLite, "singer", "Country")
	if res.Error == nil || res.Error.Code != schemas.ErrCodeTimeout {
		t.Errorf("error %+v, want a timeout", res.Error)
	}
}

// TestDescribeColumnSpiderDev profiles a column of every Spider-dev
// database and checks the row count against count(*).
func TestDescribeColumnSpiderDev(t *testing.T) {
	dir := spiderdev.Dir(t)
	dbs, err := filepath.Glob(filepath.Join(dir, "database", "*", "*.sqlite"))
	if err != nil || len(dbs) == 0 {
		t.Fatalf("no databases under %s: %v", dir, err)
	}
	r := NewRunner(Config{})
	ctx := context.Background()
	for _, path := range dbs {
		db := openFile(t, path)
		tables, err := db.Tables(ctx)
		if err != nil || len(tables) == 0 {
			t.Fatalf("%s: tables: %v", path, err)
		}
		tb := tables[0]
		rs, err := db.Query(ctx, "SELECT count(*) FROM "+alwaysQuoted(tb.Name), env.Limits{MaxRows: 1})
		if err != nil {
			t.Fatal(err)
		}
		res := describe(t, r, db, env.SQLite, tb.Name, tb.Columns[len(tb.Columns)-1].Name)
		want := "Rows: " + FormatValue(rs.Rows[0][0]) + ";"
		if res.Error != nil || !strings.Contains(res.Content, want) {
			t.Errorf("%s: %s.%s: %+v\n%s\nwant %q", filepath.Base(path), tb.Name, tb.Columns[len(tb.Columns)-1].Name,
				res.Error, res.Content, want)
		}
	}
}

// TestDescribeColumnPostgres profiles columns on the PostgreSQL engine.
func TestDescribeColumnPostgres(t *testing.T) {
	base, schema := pgtest.Schema(t, `
CREATE TABLE singer (singer_id integer PRIMARY KEY, name text NOT NULL, country varchar(20), age smallint);
INSERT INTO singer VALUES (1, 'Ana', 'France', 30), (2, 'Bo', 'Spain', NULL), (3, 'Cy', 'France', 41), (4, 'Dé', NULL, 25);`)
	ctx := context.Background()
	if err := postgres.EnsureReader(ctx, pgtest.Conn(t), postgres.DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.New(postgres.Config{}).Open(ctx, postgres.Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := NewRunner(Config{})
	got := describe(t, r, db, env.Postgres, "singer", "country").Content
	containsAll(t, got,
		"Column singer.country, declared type character varying(20)",
		"Rows: 4; NULL: 1 (25.0%); distinct values: 2",
		"Min: 'France'; max: 'Spain'",
		"Most frequent values (rows): 'France' (2), 'Spain' (1)",
	)
	if got := describe(t, r, db, env.Postgres, "singer", "age").Content; !strings.Contains(got, "Min: 25; max: 41") {
		t.Errorf("profile of age:\n%s", got)
	}
	if res := describe(t, r, db, env.Postgres, "singer", "nope"); res.Error == nil || res.Error.Code != schemas.ErrCodeNoSuchColumn {
		t.Errorf("unknown column: %+v", res.Error)
	}
}

// containsAll fails t for each of wants that the profile lacks.
func containsAll(t *testing.T, got string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		if !strings.Contains(got, want) {
			t.Errorf("profile lacks %q:\n%s", want, got)
		}
	}
}
