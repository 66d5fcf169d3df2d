package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// singerTables are hand-built table descriptions, as an engine returns
// them, for rendering tests.
func singerTables() []env.Table {
	return []env.Table{
		{Name: "singer", Columns: []env.Column{
			{Name: "Singer_ID", Type: "INT", NotNull: true}, {Name: "Name", Type: "TEXT"}, {Name: "Song Name", Type: "TEXT"},
		}},
		{Name: "concert", Columns: []env.Column{{Name: "concert_ID", Type: "INT"}, {Name: "Stadium_ID", Type: ""}}},
	}
}

func TestRenderTablesGolden(t *testing.T) {
	r := NewRunner(Config{})
	golden(t, "schema_sqlite", r.renderTables(singerTables(), "sqlite")+"\n")
	golden(t, "schema_postgres", r.renderTables(singerTables(), "postgres")+"\n")
	if got := r.renderTables(nil, "sqlite"); got != "The database has no tables." {
		t.Errorf("no tables: %q", got)
	}
}

func TestRenderTablesCut(t *testing.T) {
	var tables []env.Table
	for i := 0; i < 100; i++ {
		tables = append(tables, env.Table{Name: fmt.Sprintf("table_%d", i), Columns: []env.Column{
			{Name: "id", Type: "INTEGER"}, {Name: "a_rather_long_column_name", Type: "TEXT"},
		}})
	}
	r := NewRunner(Config{ObservationBytes: 1000})
	got := r.renderTables(tables, "sqlite")
	if len(got) > 1000-tailReserve {
		t.Errorf("%d bytes, over the budget", len(got))
	}
	if !strings.Contains(got, "more tables not shown: output cut at 1000 bytes") {
		t.Errorf("no cut note:\n%s", got)
	}
	golden(t, "schema_cut", got+"\n")
}

func TestRenderTableGolden(t *testing.T) {
	tbl := &env.Table{
		Name:       "concert",
		Columns:    []env.Column{{Name: "concert_ID", Type: "INT", NotNull: true}, {Name: "concert_Name", Type: "TEXT"}, {Name: "Stadium_ID", Type: "TEXT"}, {Name: "Year", Type: "TEXT"}},
		PrimaryKey: []string{"concert_ID"},
		ForeignKeys: []env.ForeignKey{
			{Columns: []string{"Stadium_ID"}, RefTable: "stadium", RefColumns: []string{"Stadium_ID"}},
		},
		Samples: &env.ResultSet{
			Columns: []string{"concert_ID", "concert_Name", "Stadium_ID", "Year"},
			Rows: [][]any{{int64(1), "Auditions", "1", "2014"}, {int64(2), "Super bootcamp", "2", "2014"},
				{int64(3), "Home Visits", "2", "2015"}},
			Truncated: true,
		},
	}
	r := NewRunner(Config{})
	golden(t, "table_concert", r.renderTable(tbl, "sqlite", nil)+"\n")

	empty := &env.Table{Name: "log", Columns: []env.Column{{Name: "at", Type: "TEXT"}},
		Samples: &env.ResultSet{Columns: []string{"at"}}}
	golden(t, "table_empty", r.renderTable(empty, "sqlite", nil)+"\n")
}

func TestQuoteIdent(t *testing.T) {
	tests := []struct {
		name    string
		dialect env.Dialect
		want    string
	}{
		{"singer", "sqlite", "singer"}, {"Singer_ID", "sqlite", "Singer_ID"}, {"Singer_ID", "postgres", `"Singer_ID"`},
		{"Song Name", "sqlite", `"Song Name"`}, {"2nd", "sqlite", `"2nd"`}, {"a2", "sqlite", "a2"},
		{`we"ird`, "sqlite", `"we""ird"`}, {"", "sqlite", `""`}, {"é", "sqlite", `"é"`},
		// Keywords: each dialect's own (keywords.go), in any case in SQLite.
		{"select", "postgres", `"select"`}, {"select", "sqlite", `"select"`}, {"Select", "sqlite", `"Select"`},
		{"user", "postgres", `"user"`}, {"user", "sqlite", "user"}, {"left", "postgres", `"left"`},
		{"index", "sqlite", `"index"`}, {"index", "postgres", "index"}, {"year", "postgres", "year"},
		{`a"b`, "postgres", `"a""b"`}, {"Name", "postgres", `"Name"`}, {"pg_class", "postgres", "pg_class"},
	}
	for _, tt := range tests {
		if got := quoteIdent(tt.name, tt.dialect); got != tt.want {
			t.Errorf("quoteIdent(%q, %s) = %s, want %s", tt.name, tt.dialect, got, tt.want)
		}
	}
}
