package sqlite

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"

	"github.com/sqlgym/sqlgym/env"
)

// spiderDBs opens every Spider dev database, by db_id; they are closed
// when the test ends.
func spiderDBs(t *testing.T, dir string) map[string]env.DB {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, "database"))
	if err != nil {
		t.Fatal(err)
	}
	e := New(Config{})
	dbs := map[string]env.DB{}
	for _, ent := range entries {
		d, err := e.Open(context.Background(), filepath.Join(dir, "database", ent.Name(), ent.Name()+".sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		dbs[ent.Name()] = d
	}
	if len(dbs) == 0 {
		t.Fatal("no Spider databases")
	}
	return dbs
}

// spiderSchema is an entry of Spider's tables.json.
type spiderSchema struct {
	DBID    string   `json:"db_id"`
	Tables  []string `json:"table_names_original"`
	Columns [][2]any `json:"column_names_original"` // [table index, name]
}

func TestSpiderTablesAndDescribe(t *testing.T) {
	dir := spiderdev.Dir(t)
	dbs := spiderDBs(t, dir)
	var schemas []spiderSchema
	readJSON(t, filepath.Join(dir, "tables.json"), &schemas)
	for _, s := range schemas {
		d := dbs[s.DBID]
		if d == nil {
			t.Errorf("%s: no database", s.DBID)
			continue
		}
		tables, err := d.Tables(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", s.DBID, err)
		}
		got, want := columnSet(tables), spiderColumnSet(s)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: Tables gives %v, tables.json says %v", s.DBID, got, want)
		}
		for _, tab := range tables {
			desc, err := d.Describe(context.Background(), strings.ToUpper(tab.Name), 3)
			if err != nil {
				t.Fatalf("%s: Describe(%s): %v", s.DBID, tab.Name, err)
			}
			if desc.Name != tab.Name || !reflect.DeepEqual(desc.Columns, tab.Columns) || desc.Samples == nil || len(desc.Samples.Rows) > 3 {
				t.Errorf("%s: Describe(%s) = %+v, want %+v with up to 3 samples", s.DBID, tab.Name, desc, tab)
			}
		}
	}
}

// columnSet maps each lower-case table name to its lower-case columns.
func columnSet(tables []env.Table) map[string][]string {
	out := map[string][]string{}
	for _, t := range tables {
		for _, c := range t.Columns {
			out[strings.ToLower(t.Name)] = append(out[strings.ToLower(t.Name)], strings.ToLower(c.Name))
		}
	}
	return out
}

func spiderColumnSet(s spiderSchema) map[string][]string {
	out := map[string][]string{}
	for _, c := range s.Columns {
		i := int(c[0].(float64))
		if i < 0 {
			continue
		}
		name := strings.ToLower(s.Tables[i])
		if strings.HasPrefix(name, "sqlite_") { // SQLite's own, which Tables leaves out
			continue
		}
		out[name] = append(out[name], strings.ToLower(c[1].(string)))
	}
	return out
}

// TestSpiderRawWrapKeepsResults runs every Spider dev gold query as is
// and wrapped as the raw-value path wraps it: columns, values and row
// order must not change.
func TestSpiderRawWrapKeepsResults(t *testing.T) {
	dir := spiderdev.Dir(t)
	dbs := spiderDBs(t, dir)
	var items []struct {
		DBID  string `json:"db_id"`
		Query string `json:"query"`
	}
	readJSON(t, filepath.Join(dir, "dev.json"), &items)
	lim := env.Limits{Timeout: 30 * time.Second}
	for i, it := range items {
		d := dbs[it.DBID]
		stmt, err := singleStatement(it.Query, DefaultMaxSQLBytes)
		if err != nil {
			t.Fatalf("#%d: %v", i, err)
		}
		plain, err := d.Query(context.Background(), stmt, lim)
		if err != nil {
			t.Fatalf("#%d %s: %v", i, it.Query, err)
		}
		wrapped, err := d.Query(context.Background(), rawWrap(stmt, plain.Columns), lim)
		if err != nil {
			t.Fatalf("#%d wrapped %s: %v", i, it.Query, err)
		}
		if !reflect.DeepEqual(plain.Columns, wrapped.Columns) || !reflect.DeepEqual(plain.Rows, wrapped.Rows) {
			t.Errorf("#%d %s:\nplain   %v %v\nwrapped %v %v", i, it.Query, plain.Columns, plain.Rows, wrapped.Columns, wrapped.Rows)
		}
	}
}

// TestSpiderConvertedColumnsAreRaw reads every Spider column declared
// with a type the driver converts, and checks it against the same column
// read through an expression, which has no declared type to convert.
func TestSpiderConvertedColumnsAreRaw(t *testing.T) {
	dbs := spiderDBs(t, spiderdev.Dir(t))
	seen := 0
	for id, d := range dbs {
		tables, err := d.Tables(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, tab := range tables {
			for _, c := range tab.Columns {
				if !convertedDeclType(strings.ToLower(c.Type)) {
					continue
				}
				seen++
				col, from := quoteIdent(c.Name), quoteIdent(tab.Name)
				got := query(t, d, "SELECT "+col+" FROM "+from+" ORDER BY rowid")
				want := query(t, d, "SELECT +"+col+" AS "+col+" FROM "+from+" ORDER BY rowid")
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s.%s.%s: %v, want %v", id, tab.Name, c.Name, got, want)
				}
			}
		}
	}
	if seen == 0 {
		t.Error("no Spider column is declared DATE, DATETIME, TIMESTAMP or BOOLEAN")
	}
}

func query(t *testing.T, d env.DB, sql string) *env.ResultSet {
	t.Helper()
	rs, err := d.Query(context.Background(), sql, env.Limits{})
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	rs.Elapsed, rs.ReadColumns, rs.ReadTables = 0, nil, nil
	return rs
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
