package sqlite

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// fixtureTables is the fixture's schema as Tables reports it.
var fixtureTables = []env.Table{
	{Name: "singer", Columns: []env.Column{
		{Name: "singer_id", Type: "INTEGER"}, {Name: "name", Type: "TEXT", NotNull: true},
		{Name: "country", Type: "TEXT"}, {Name: "age", Type: "INTEGER"}, {Name: "net_worth", Type: "REAL"},
		{Name: "photo", Type: "BLOB"}, {Name: "born", Type: "DATE"}, {Name: "updated", Type: "DATETIME"},
		{Name: "seen", Type: "TIMESTAMP"}, {Name: "active", Type: "BOOLEAN"},
	}, PrimaryKey: []string{"singer_id"}},
	{Name: "concert", Columns: []env.Column{
		{Name: "concert_id", Type: "INTEGER"}, {Name: "singer_id", Type: "INTEGER", NotNull: true}, {Name: "year", Type: "INTEGER"},
	}, PrimaryKey: []string{"concert_id"}, ForeignKeys: []env.ForeignKey{
		{Columns: []string{"singer_id"}, RefTable: "singer", RefColumns: []string{"singer_id"}},
	}},
	{Name: "order items", Columns: []env.Column{
		{Name: "id", Type: "INTEGER"}, {Name: "concert_id", Type: "INTEGER"}, {Name: "select", Type: "TEXT"},
	}, PrimaryKey: []string{"select", "id"}, ForeignKeys: []env.ForeignKey{
		{Columns: []string{"concert_id", "id"}, RefTable: "concert", RefColumns: []string{"concert_id", "year"}},
	}},
	{Name: "big", Columns: []env.Column{{Name: "x", Type: "INTEGER"}, {Name: "label", Type: "TEXT"}}, PrimaryKey: []string{"x"}},
}

func TestTables(t *testing.T) {
	d, _ := openFixture(t)
	got, err := d.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, fixtureTables) {
		t.Errorf("Tables =\n%+v\nwant\n%+v", got, fixtureTables)
	}
}

func TestDescribe(t *testing.T) {
	d, _ := openFixture(t)
	tests := []struct {
		table    string
		samples  int
		want     env.Table
		wantRows [][]any
	}{
		{"singer", 0, fixtureTables[0], nil},
		{"SINGER", 2, fixtureTables[0], [][]any{
			{int64(1), "Ana", "France", int64(30), 1.5, []byte{0, 255}, "1990-01-02", "2020-01-02 03:04:05", int64(1600000000), int64(1)},
			{int64(2), "Bo", "Spain", nil, 2.0, nil, "not a date", "yesterday", "2020-13-45", int64(5)},
		}},
		{"Order Items", 5, fixtureTables[2], [][]any{{int64(1), int64(10), "a"}, {int64(2), int64(11), "b"}}},
		{"concert", 1, fixtureTables[1], [][]any{{int64(10), int64(1), int64(2014)}}},
	}
	for _, tc := range tests {
		t.Run(tc.table, func(t *testing.T) {
			got, err := d.Describe(context.Background(), tc.table, tc.samples)
			if err != nil {
				t.Fatal(err)
			}
			samples := got.Samples
			got.Samples = nil
			if !reflect.DeepEqual(*got, tc.want) {
				t.Errorf("Describe =\n%+v\nwant\n%+v", *got, tc.want)
			}
			switch {
			case tc.samples == 0 && samples != nil:
				t.Errorf("samples = %+v, want none", samples)
			case tc.samples > 0 && (samples == nil || !reflect.DeepEqual(samples.Rows, tc.wantRows)):
				t.Errorf("samples = %+v, want rows %#v", samples, tc.wantRows)
			}
		})
	}
}

func TestDescribeUnknownTable(t *testing.T) {
	d, _ := openFixture(t)
	for _, name := range []string{"nope", "singer_names", "sqlite_master", "singer'; DROP TABLE singer; --", ""} {
		_, err := d.Describe(context.Background(), name, 3)
		var qe *env.QueryError
		if !errors.As(err, &qe) || !errors.Is(err, env.ErrNoSuchTable) || qe.Message != "no such table: "+name {
			t.Errorf("Describe(%q) err = %v, want no such table", name, err)
		}
	}
}

func TestReadTables(t *testing.T) {
	d, _ := openFixture(t)
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT count(*) FROM singer", []string{"singer"}},
		{"SELECT T1.name FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id", []string{"concert", "singer"}},
		{"SELECT 4", nil},
		{"SELECT 4 FROM sqlite_master LIMIT 1", nil},
		{"SELECT name FROM singer_names", []string{"singer", "singer_names"}},
		{"SELECT 1 WHERE EXISTS (SELECT * FROM Concert)", []string{"concert"}},
	}
	for _, tc := range tests {
		rs, err := d.Query(context.Background(), tc.sql, env.Limits{Reads: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if !reflect.DeepEqual(rs.ReadTables, tc.want) {
			t.Errorf("%s: ReadTables = %q, want %q", tc.sql, rs.ReadTables, tc.want)
		}
	}
}

func TestReadColumns(t *testing.T) {
	d, _ := openFixture(t)
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT T1.name, T2.year FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
			[]string{"concert.singer_id", "concert.year", "singer.name", "singer.singer_id"}},
		{"SELECT s.n FROM (SELECT NAME AS n, age FROM SINGER) AS s WHERE s.age > 1", []string{"singer.age", "singer.name"}},
		{`SELECT "select" FROM "order items" AS o`, []string{"order items.select"}},
		{"SELECT count(*) FROM singer", nil},
		{"SELECT 1", nil},
		{"SELECT name FROM singer_names", []string{"singer.name", "singer_names.name"}},
		{"SELECT born FROM singer", []string{"singer.born"}},
		{"SELECT a.name, b.name FROM singer a, singer b WHERE a.singer_id < b.singer_id LIMIT 1", []string{"singer.name", "singer.singer_id"}},
	}
	for _, tc := range tests {
		rs, err := d.Query(context.Background(), tc.sql, env.Limits{Reads: true})
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		if !reflect.DeepEqual(rs.ReadColumns, tc.want) {
			t.Errorf("%s: ReadColumns = %q, want %q", tc.sql, rs.ReadColumns, tc.want)
		}
	}
}

// TestReadsOnlyWhenAsked: a statement run without Limits.Reads records no
// tables or columns read; the same with it records them.
func TestReadsOnlyWhenAsked(t *testing.T) {
	d, _ := openFixture(t)
	rs, err := d.Query(context.Background(), "SELECT name FROM singer", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rs.ReadColumns != nil || rs.ReadTables != nil {
		t.Errorf("without Reads: columns %q, tables %q; want none", rs.ReadColumns, rs.ReadTables)
	}
	rs, err = d.Query(context.Background(), "SELECT name FROM singer", env.Limits{Reads: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.ReadColumns) == 0 || len(rs.ReadTables) == 0 {
		t.Errorf("with Reads: columns %q, tables %q; want both", rs.ReadColumns, rs.ReadTables)
	}
}
