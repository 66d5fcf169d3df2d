package datasets

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

func TestLoadBird(t *testing.T) {
	ds, err := LoadBird("bird-dev", "testdata/bird")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id, db, evidence, difficulty string
	}{
		{"bird-dev/0", "shop", "", "simple"},
		{"bird-dev/7", "zoo", "oldest refers to MAX(age)", "moderate"},
		{"bird-dev/z-9", "zoo", "earn refers to salary", "challenging"},
		{"bird-dev/3", "shop", "", "moderate"}, // no question_id: its index
	}
	for i, tt := range tests {
		got := ds.Tasks[i]
		if got.ID != tt.id || got.DBID != tt.db || got.Evidence != tt.evidence || got.Difficulty != tt.difficulty {
			t.Errorf("task %d = %+v, want id %s db %s evidence %q difficulty %s", i, got, tt.id, tt.db, tt.evidence, tt.difficulty)
		}
		if got.GoldSQL == "" || got.Question == "" || got.Dataset != "bird-dev" {
			t.Errorf("task %d = %+v, want a question, a gold SQL and dataset bird-dev", i, got)
		}
	}
	want, err := filepath.Abs("testdata/bird/dev_databases/zoo/zoo.sqlite")
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.DBs) != 2 || ds.DBs["zoo"] != want {
		t.Errorf("DBs = %v, want 2 with zoo at %s", ds.DBs, want)
	}
}

func TestLoadBirdMiniDev(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"mini_dev_sqlite.json":                       `[{"question_id": 12, "db_id": "a", "question": "q", "evidence": "e", "SQL": "SELECT 1", "difficulty": "simple"}]`,
		"dev_databases/a/a.sqlite":                   "",
		"dev_databases/a/a_schema.sql":               "",
		"dev_databases/a/database_description/x.csv": "",
	})
	for _, path := range []string{dir, filepath.Join(dir, "mini_dev_sqlite.json")} {
		ds, err := LoadBird("mini", path)
		if err != nil {
			t.Fatalf("LoadBird(%s): %v", path, err)
		}
		if len(ds.Tasks) != 1 || ds.Tasks[0].ID != "mini/12" {
			t.Errorf("LoadBird(%s) tasks = %+v, want one, mini/12", path, ds.Tasks)
		}
	}
}

func TestLoadBirdErrors(t *testing.T) {
	const db = "dev_databases/a/a.sqlite"
	rec := func(extra string) string {
		return `{"db_id": "a", "question": "q", "evidence": "", "SQL": "SELECT 1", "difficulty": "simple"` + extra + `}`
	}
	tests := []struct {
		name string
		json string
		want []string
	}{
		{"malformed", "[\n" + rec("") + ",\n" + rec(`, "question_id": }`), []string{"line 3", "malformed JSON"}},
		{"duplicate id", "[" + rec(`, "question_id": 4`) + "," + rec(`, "question_id": "4"`) + "]",
			[]string{"record 1", `duplicate task id "b/4"`, "first at record 0"}},
		{"index collides with id", "[" + rec(`, "question_id": 1`) + "," + rec("") + "]",
			[]string{"record 1", `duplicate task id "b/1"`}},
		{"bad question_id", "[" + rec(`, "question_id": 1.5`) + "]", []string{"record 0", "question_id", "1.5"}},
		{"empty question_id", "[" + rec(`, "question_id": ""`) + "]", []string{"record 0", "question_id", "empty"}},
		{"missing SQL", `[{"db_id": "a", "question": "q"}]`, []string{"record 0", "missing SQL"}},
		{"missing question", `[{"db_id": "a", "SQL": "SELECT 1"}]`, []string{"record 0", "missing question"}},
		{"missing db_id", `[{"question": "q", "SQL": "SELECT 1"}]`, []string{"record 0", "missing db_id"}},
		{"missing database", "[" + rec("") + `,{"db_id": "c", "question": "q", "SQL": "SELECT 1"}]`,
			[]string{"record 1", `database "c"`, filepath.Join("dev_databases", "c", "c.sqlite")}},
		{"empty", "[]", []string{"empty dataset"}},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"dev.json": tt.json, db: ""})
		_, err := LoadBird("b", dir)
		checkErr(t, tt.name, err, append(tt.want, filepath.Join(dir, "dev.json"))...)
	}
}

func TestLoadBirdNoFile(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadBird("b", dir)
	checkErr(t, "empty folder", err, dir, "dev.json", "mini_dev_sqlite.json")
}

func TestLoadBirdMiniDevPostgres(t *testing.T) {
	for _, path := range []string{"testdata/bird_postgres", "testdata/bird_postgres/mini_dev_postgresql.json"} {
		ds, err := Load(Source{Name: "mini_pg", Format: FormatBird, Path: path})
		if err != nil {
			t.Fatalf("Load(%s): %v", path, err)
		}
		if ds.Dialect != env.Postgres || len(ds.Tasks) != 3 {
			t.Fatalf("dialect %q, %d tasks; want postgres, 3", ds.Dialect, len(ds.Tasks))
		}
		want := map[string]string{"debit_card_specializing": "debit_card_specializing", "california_schools": "california_schools"}
		if !reflect.DeepEqual(ds.DBs, want) {
			t.Errorf("DBs = %v, want each db_id as its schema: %v", ds.DBs, want)
		}
		got := ds.Tasks[2]
		if got.ID != "mini_pg/1" || got.DBID != "california_schools" || got.Difficulty != "simple" ||
			!strings.Contains(got.GoldSQL, `"Free Meal Count (K-12)"`) || !strings.HasPrefix(got.Evidence, "Eligible free rate") {
			t.Errorf("task = %+v", got)
		}
	}
}
