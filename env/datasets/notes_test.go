package datasets

import (
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

// latin1 is s (code points below 256) written one byte per character.
func latin1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = append(b, byte(r))
	}
	return string(b)
}

// TestBirdNotes reads a BIRD-layout database_description folder written
// in Latin-1 after a UTF-8 byte-order mark, as real BIRD files are.
func TestBirdNotes(t *testing.T) {
	dir := t.TempDir()
	csv := "\xef\xbb\xbf" + latin1("original_column_name,column_name,column_description,data_format,value_description\n"+
		"CDSCode,,California Department Schools code,text,\n"+
		"Charter ,Charter School,\"Charter school (Y/N), école\",integer,\"0: N;\n1: Y\"\n"+
		"zip,zip,zip,text,\n")
	writeFiles(t, dir, map[string]string{
		"mini_dev_sqlite.json":                                   `[{"question_id": 1, "db_id": "schools", "question": "q", "SQL": "SELECT 1"}]`,
		"dev_databases/schools/schools.sqlite":                   "",
		"dev_databases/schools/database_description/Schools.csv": csv,
	})
	ds, err := LoadBird("b", dir)
	if err != nil {
		t.Fatal(err)
	}
	n := ds.Notes["schools"]
	tests := []struct {
		table, column string
		want          env.ColumnNote
		ok            bool
	}{
		{"schools", "cdscode", env.ColumnNote{Description: "California Department Schools code", Format: "text"}, true},
		{"SCHOOLS", "Charter", env.ColumnNote{Name: "Charter School", Description: "Charter school (Y/N), école", Format: "integer", Values: "0: N; 1: Y"}, true},
		{"schools", "zip", env.ColumnNote{Format: "text"}, true},
		{"schools", "nope", env.ColumnNote{}, false},
		{"other", "zip", env.ColumnNote{}, false},
	}
	for _, tt := range tests {
		got, ok := n.Column(tt.table, tt.column)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s.%s = %+v, %v; want %+v, %v", tt.table, tt.column, got, ok, tt.want, tt.ok)
		}
	}
	writeFiles(t, dir, map[string]string{"dev_databases/schools/database_description/bad.csv": "column_name,x\na,b\n"})
	if _, err := LoadBird("b", dir); err == nil || !strings.Contains(err.Error(), "bad.csv: no original_column_name column") {
		t.Errorf("a file without original_column_name: %v, want an error naming it", err)
	}
}

// TestSpiderNotes reads the human column names of Spider-dev's
// tables.json: those that say more than the column's own name are kept.
func TestSpiderNotes(t *testing.T) {
	ds, err := LoadSpider("spider-dev", spiderdev.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct{ db, table, column, name string }{
		{"flight_2", "airlines", "uid", "airline id"},
		{"flight_2", "flights", "FlightNo", "flight number"},
		{"pets_1", "Student", "LName", "last name"},
	}
	for _, tt := range tests {
		got, ok := ds.Notes[tt.db].Column(tt.table, tt.column)
		if !ok || got.Name != tt.name {
			t.Errorf("%s %s.%s = %+v, %v; want name %q", tt.db, tt.table, tt.column, got, ok, tt.name)
		}
	}
	if _, ok := ds.Notes["dog_kennels"].Column("breeds", "breed_code"); ok {
		t.Error("breeds.breed_code has a note, but its human name only respells it")
	}
}

// TestJSONLNotes reads descriptions/<db_id>.json beside a JSONL dataset,
// and names what is wrong with a bad one.
func TestJSONLNotes(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tasks.jsonl":         `{"task_id": "1", "db_id": "k", "question": "q", "gold_sql": "SELECT 1"}` + "\n",
		"k.sqlite":            "",
		"descriptions/k.json": `{"tables": {"Revenue": {"description": "State revenue", "columns": {"c14": {"description": "Federal revenue through the state - Title 1", "values": "dollars"}}}}}`,
	})
	ds, err := LoadJSONL("j", dir)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := ds.Notes["k"].Column("revenue", "C14")
	if want := (env.ColumnNote{Description: "Federal revenue through the state - Title 1", Values: "dollars"}); !ok || got != want {
		t.Errorf("revenue.c14 = %+v, %v; want %+v", got, ok, want)
	}
	if d := ds.Notes["k"].Table("REVENUE").Description; d != "State revenue" {
		t.Errorf("table description %q", d)
	}
	writeFiles(t, dir, map[string]string{"descriptions/k.json": `{"tables": {"t": {"colums": {}}}}`})
	if _, err := LoadJSONL("j", dir); err == nil || !strings.Contains(err.Error(), `unknown field "colums"`) {
		t.Errorf("a misspelt key: %v, want an error naming it", err)
	}
}
