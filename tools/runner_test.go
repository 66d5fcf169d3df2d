package tools

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/schemas"
)

// concertScript is a small copy of Spider's concert_singer schema.
const concertScript = `
CREATE TABLE stadium (Stadium_ID INT PRIMARY KEY, Location TEXT, Name TEXT, Capacity INT);
CREATE TABLE singer (Singer_ID INT PRIMARY KEY, Name TEXT NOT NULL, Country TEXT, "Song Name" TEXT, Age INT, Photo BLOB);
CREATE TABLE concert (concert_ID INT PRIMARY KEY, concert_Name TEXT, Stadium_ID INT, Year TEXT,
  FOREIGN KEY (Stadium_ID) REFERENCES stadium(Stadium_ID));
INSERT INTO stadium VALUES (1, 'Raith Rovers', 'Stark''s Park', 10104), (2, 'Ayr United', 'Somerset Park', 11998);
INSERT INTO singer VALUES (1, 'Joe Sharp', 'Netherlands', 'You', 52, NULL), (2, 'Timbaland', 'United States', 'Dangerous', 32, x'00ff10'),
  (3, 'Justin Brown', 'France', 'Hey Oh', 29, NULL), (4, 'Rose White', 'France', 'Sun', 41, NULL),
  (5, 'John Nizinik', 'France', 'Gentleman', 43, NULL);
INSERT INTO concert VALUES (1, 'Auditions', 1, '2014'), (2, 'Super bootcamp', 2, '2014');
CREATE TABLE numbers AS WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 120) SELECT i FROM n;
`

// openScript builds a SQLite file from script and opens it with the real
// engine.
func openScript(t *testing.T, script string) env.DB {
	t.Helper()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db.sqlite")
	if err := sqlite.Build(ctx, path, script); err != nil {
		t.Fatal(err)
	}
	return openFile(t, path)
}

func openFile(t *testing.T, path string) env.DB {
	t.Helper()
	db, err := sqlite.New(sqlite.Config{}).Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestExecuteGolden(t *testing.T) {
	db := openScript(t, concertScript)
	tests := []struct {
		name, sql string
		rows      int
	}{
		{"exec_aggregate", "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'", 1},
		{"exec_values", `SELECT Name, "Song Name", Photo, Age / 3.0, NULL AS empty FROM singer ORDER BY Singer_ID`, 5},
		{"exec_empty", "SELECT * FROM singer WHERE Age > 100", 0},
		{"exec_text", "SELECT 'line one' || char(10) || 'line two' AS t, 1e-7 AS tiny, 2.0 AS two, 0.1 + 0.2 AS sum", 1},
		{"exec_row_limit", "SELECT i FROM numbers", 50},
		{"exec_catalog", "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", 4},
	}
	r := NewRunner(Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Execute(context.Background(), db, &ExecuteSQLArgs{SQL: tt.sql})
			if err != nil {
				t.Fatal(err)
			}
			if res.Error != nil {
				t.Fatalf("tool error %s: %s", res.Error.Code, res.Error.Message)
			}
			if res.Info == nil || res.Info.RowCount != tt.rows || len(res.Info.Rows) != tt.rows || res.Rows == nil {
				t.Fatalf("info = %+v, want %d rows", res.Info, tt.rows)
			}
			if _, err := json.Marshal(res.Info); err != nil {
				t.Fatalf("info does not encode: %v", err)
			}
			golden(t, tt.name, res.Content+"\n")
		})
	}
}

func TestExecuteInfo(t *testing.T) {
	db := openScript(t, concertScript)
	r := NewRunner(Config{RowLimit: 10})
	res, err := r.Execute(context.Background(), db, &ExecuteSQLArgs{SQL: "SELECT i, x'0102' FROM numbers"})
	if err != nil || res.Error != nil {
		t.Fatalf("Execute: %v %+v", err, res.Error)
	}
	got, _ := json.Marshal(res.Info.Rows[:2])
	if want := `[[1,"\u003cblob 2 bytes\u003e"],[2,"\u003cblob 2 bytes\u003e"]]`; string(got) != want {
		t.Errorf("rows = %s, want %s", got, want)
	}
	if !res.Info.Truncated || res.Info.RowCount != 10 || res.Info.ElapsedMS < 0 {
		t.Errorf("info = %+v, want 10 rows, truncated", res.Info)
	}
	if !strings.HasSuffix(res.Content, "(showing first 10 rows; more were returned)") {
		t.Errorf("content ends %q", res.Content[max(0, len(res.Content)-60):])
	}
}

func TestExecuteErrors(t *testing.T) {
	db := openScript(t, concertScript)
	tests := []struct {
		name, sql, code, content string
		timeout                  time.Duration
	}{
		{"no such column", "SELECT foo FROM singer", schemas.ErrCodeSQL, "Error: no such column: foo", 0},
		{"syntax", "SELECT FROM singer", schemas.ErrCodeSQL, `Error: near "FROM": syntax error`, 0},
		{"no such table", "SELECT * FROM singers", schemas.ErrCodeSQL, "Error: no such table: singers", 0},
		{"two statements", "SELECT 1; SELECT 2", schemas.ErrCodeMultiStatement, "Error: ", 0},
		{"write", "DELETE FROM singer", schemas.ErrCodeDenied, "Error: statement denied", 0},
		{"drop", "DROP TABLE singer", schemas.ErrCodeDenied, "Error: statement denied", 0},
		{"attach", "ATTACH DATABASE ':memory:' AS m", schemas.ErrCodeDenied, "Error: statement denied", 0},
		{"pragma write", "PRAGMA query_only = 0", schemas.ErrCodeDenied, "Error: statement denied", 0},
		{"timeout", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT count(*) FROM n",
			schemas.ErrCodeTimeout, "Error: query timed out", 200 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewRunner(Config{QueryTimeout: tt.timeout})
			res, err := r.Execute(context.Background(), db, &ExecuteSQLArgs{SQL: tt.sql})
			if err != nil {
				t.Fatalf("server error: %v", err)
			}
			if res.Error == nil || res.Error.Code != tt.code {
				t.Fatalf("error = %+v, want code %s (content %q)", res.Error, tt.code, res.Content)
			}
			if !strings.HasPrefix(res.Content, tt.content) || res.Content != "Error: "+res.Error.Message {
				t.Errorf("content = %q, want it to start with %q and carry the message %q", res.Content, tt.content, res.Error.Message)
			}
			if res.Rows != nil || res.Info != nil {
				t.Errorf("a failed call carries rows: %+v %+v", res.Rows, res.Info)
			}
		})
	}
}

func TestExecuteCancelledIsServerError(t *testing.T) {
	db := openScript(t, concertScript)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := NewRunner(Config{}).Execute(ctx, db, &ExecuteSQLArgs{SQL: "SELECT 1"})
	if err == nil {
		t.Fatalf("Execute with a cancelled context = %+v, want an error", res)
	}
}

func TestInspectGolden(t *testing.T) {
	db := openScript(t, concertScript)
	tests := []struct{ name, table string }{
		{"inspect_all", ""},
		{"inspect_singer", "singer"},
		{"inspect_concert_any_case", " CONCERT "},
	}
	r := NewRunner(Config{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := r.Inspect(context.Background(), db, env.SQLite, &InspectSchemaArgs{Table: tt.table})
			if err != nil || res.Error != nil {
				t.Fatalf("Inspect: %v %+v", err, res.Error)
			}
			golden(t, tt.name, res.Content+"\n")
		})
	}
}

func TestInspectUnknownTable(t *testing.T) {
	db := openScript(t, concertScript)
	res, err := NewRunner(Config{}).Inspect(context.Background(), db, env.SQLite, &InspectSchemaArgs{Table: "singers"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Error == nil || res.Error.Code != schemas.ErrCodeNoSuchTable {
		t.Fatalf("error = %+v, want no_such_table", res.Error)
	}
	want := "Error: no such table: singers\nThe tables are: stadium, singer, concert, numbers"
	if res.Content != want {
		t.Fatalf("content = %q, want %q", res.Content, want)
	}
}

func TestSpiderConcertSinger(t *testing.T) {
	dir := spiderdev.Dir(t)
	db := openFile(t, filepath.Join(dir, "database", "concert_singer", "concert_singer.sqlite"))
	r := NewRunner(Config{})
	ctx := context.Background()
	all, err := r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{})
	if err != nil || all.Error != nil {
		t.Fatalf("Inspect: %v %+v", err, all.Error)
	}
	golden(t, "spider_concert_singer_schema", all.Content+"\n")
	one, err := r.Inspect(ctx, db, env.SQLite, &InspectSchemaArgs{Table: "singer_in_concert"})
	if err != nil || one.Error != nil {
		t.Fatalf("Inspect: %v %+v", err, one.Error)
	}
	golden(t, "spider_singer_in_concert", one.Content+"\n")
	res, err := r.Execute(ctx, db, &ExecuteSQLArgs{SQL: "SELECT avg(age), min(age), max(age) FROM singer WHERE country = 'France'"})
	if err != nil || res.Error != nil {
		t.Fatalf("Execute: %v %+v", err, res.Error)
	}
	if want := "avg(age) | min(age) | max(age)\n34.5 | 25 | 43\n(1 row)"; res.Content != want {
		t.Errorf("content = %q, want %q", res.Content, want)
	}
}

// TestSpiderInspectEveryTable inspects every table of every Spider dev
// database: no call fails, and every observation keeps within its bound.
func TestSpiderInspectEveryTable(t *testing.T) {
	dir := spiderdev.Dir(t)
	dbs, err := filepath.Glob(filepath.Join(dir, "database", "*", "*.sqlite"))
	if err != nil || len(dbs) == 0 {
		t.Fatalf("no databases under %s: %v", dir, err)
	}
	r := NewRunner(Config{ObservationBytes: 2048})
	ctx := context.Background()
	for _, path := range dbs {
		db := openFile(t, path)
		tables, err := db.Tables(ctx)
		if err != nil {
			t.Fatal(err)
		}
		args := []*InspectSchemaArgs{{}}
		for _, tbl := range tables {
			args = append(args, &InspectSchemaArgs{Table: tbl.Name})
		}
		for _, a := range args {
			res, err := r.Inspect(ctx, db, env.SQLite, a)
			if err != nil || res.Error != nil {
				t.Fatalf("%s: inspect %q: %v %+v", filepath.Base(path), a.Table, err, res.Error)
			}
			if full := r.TurnsLeft(res.Content, 5); len(full) > 2048 {
				t.Errorf("%s: inspect %q: %d bytes", filepath.Base(path), a.Table, len(full))
			}
		}
	}
}

// TestMetaIsTheInfoWithoutRows: the trajectory's result_meta of an
// execute_sql is its reply's info.result without the rows, and Meta of
// the raw result set says the same.
func TestMetaIsTheInfoWithoutRows(t *testing.T) {
	rs := &env.ResultSet{Columns: []string{"a", "b"}, Rows: [][]any{{int64(1), "x"}, {int64(2), "y"}},
		Truncated: true, Elapsed: 1500 * time.Microsecond}
	r := NewRunner(Config{RowLimit: 5})
	info, meta := r.resultInfo(rs)
	want := schemas.ResultMeta{Columns: []string{"a", "b"}, RowCount: 2, Truncated: true, ElapsedMS: 1.5}
	if got := *info.Meta(); !reflect.DeepEqual(got, want) {
		t.Errorf("info.Meta() = %+v, want %+v", got, want)
	}
	if !reflect.DeepEqual(*meta, want) {
		t.Errorf("the meta made with the info = %+v, want %+v", *meta, want)
	}
	m := Meta(rs)
	if !reflect.DeepEqual(*m, want) {
		t.Errorf("Meta = %+v, want %+v", *m, want)
	}
	m.Columns[0] = "changed"
	if rs.Columns[0] != "a" {
		t.Error("Meta shares the result set's columns")
	}
}
