package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

func TestLoadJSONL(t *testing.T) {
	ds, err := LoadJSONL("mine", "testdata/jsonl/tasks.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{"mine/shop-1", "mine/zoo-1", "mine/3"}
	for i, id := range ids {
		if ds.Tasks[i].ID != id {
			t.Errorf("task %d id = %q, want %q", i, ds.Tasks[i].ID, id)
		}
	}
	shop, zoo := ds.Tasks[0], ds.Tasks[1]
	if shop.GoldSQL != "SELECT count(*) FROM customers" || shop.GoldRows != nil || shop.Difficulty != "easy" {
		t.Errorf("shop-1 = %+v, want its gold SQL and difficulty easy", shop)
	}
	wantRows := [][]any{{"Leo", int64(7)}, {"Nala", 4.5}, {"Kimba", 10.0}, {"Simba", nil}}
	if !reflect.DeepEqual(zoo.GoldRows, wantRows) || zoo.GoldSQL != "" {
		t.Errorf("zoo-1 rows = %#v, want %#v and no SQL", zoo.GoldRows, wantRows)
	}
	if zoo.Evidence != "lion refers to species = 'lion'" || zoo.Difficulty != "medium" {
		t.Errorf("zoo-1 = %+v, want its evidence and difficulty medium", zoo)
	}
	wantDBs := map[string]string{}
	for db, p := range map[string]string{
		"shop": "testdata/jsonl/database/shop/shop.sqlite",
		"zoo":  "testdata/jsonl/zoo.sqlite",
		"farm": "testdata/jsonl/other/farm.db",
	} {
		abs, err := filepath.Abs(p)
		if err != nil {
			t.Fatal(err)
		}
		wantDBs[db] = abs
	}
	if !reflect.DeepEqual(ds.DBs, wantDBs) {
		t.Errorf("DBs = %v, want %v", ds.DBs, wantDBs)
	}
}

func TestReadJSONLValues(t *testing.T) {
	tests := []struct {
		answer string
		want   [][]any
	}{
		{`[]`, [][]any{}},
		{`[[1, -2, 0]]`, [][]any{{int64(1), int64(-2), int64(0)}}},
		{`[[1.0, 1e2, 2.5E-1, -0.5]]`, [][]any{{1.0, 100.0, 0.25, -0.5}}},
		{`[[9223372036854775807, 9223372036854775808]]`, [][]any{{int64(9223372036854775807), 9223372036854775808.0}}},
		{`[["a", null], ["", "é"]]`, [][]any{{"a", nil}, {"", "é"}}},
	}
	for _, tt := range tests {
		line := `{"task_id": "t", "db_id": "d", "question": "q", "gold_answer": ` + tt.answer + "}\n"
		tasks, _, err := ReadJSONL("x", strings.NewReader(line), fixedDB)
		if err != nil {
			t.Errorf("gold_answer %s: %v", tt.answer, err)
			continue
		}
		if got := tasks[0].GoldRows; !reflect.DeepEqual(got, tt.want) {
			t.Errorf("gold_answer %s = %#v, want %#v", tt.answer, got, tt.want)
		}
	}
}

// TestReadJSONLSegments: gold_segments are read into the task beside its
// one right answer.
func TestReadJSONLSegments(t *testing.T) {
	line := `{"task_id": "t", "db_id": "d", "question": "q", "gold_answer": [["Ann"], ["Cid"]], ` +
		`"gold_segments": [{"take": 1, "rows": [["Ann"]]}, {"take": 1, "rows": [["Cid"], ["Eve"]]}]}` + "\n"
	tasks, _, err := ReadJSONL("x", strings.NewReader(line), fixedDB)
	if err != nil {
		t.Fatal(err)
	}
	want := []env.Segment{{Rows: [][]any{{"Ann"}}, Take: 1}, {Rows: [][]any{{"Cid"}, {"Eve"}}, Take: 1}}
	if got := tasks[0].GoldSegments; !reflect.DeepEqual(got, want) {
		t.Errorf("gold_segments = %#v, want %#v", got, want)
	}
}

func TestReadJSONLDatabases(t *testing.T) {
	in := "\xef\xbb\xbf" + `{"task_id": "1", "db_id": "a", "question": "q", "gold_sql": "SELECT 1"}` + "\r\n\n  \n" +
		`{"task_id": "2", "db_id": "b", "question": "q", "gold_sql": "SELECT 1", "db_path": "rel/b.db"}` + "\n" +
		`{"task_id": "3", "db_id": "a", "question": "q", "gold_sql": "SELECT 1"}`
	calls := 0
	tasks, dbs, err := ReadJSONL("x", strings.NewReader(in), func(dbID string) (string, error) {
		calls++
		return "/dbs/" + dbID + ".sqlite", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "/dbs/a.sqlite", "b": "rel/b.db"}
	if len(tasks) != 3 || !reflect.DeepEqual(dbs, want) || calls != 1 {
		t.Errorf("got %d tasks, dbs %v, %d dbPath calls; want 3, %v, 1", len(tasks), dbs, calls, want)
	}
}

// An imported task carries both golds, the SQLite one for reference, and
// the dataset's dialect; a PostgreSQL database is the schema db_id.
func TestLoadJSONLPostgres(t *testing.T) {
	dir := t.TempDir()
	lines := `{"task_id": 1, "db_id": "shop", "question": "q", "gold_sql": "SELECT 'a'", "gold_answer": [["a"]], "sqlite_gold_sql": "SELECT \"a\"", "dialect": "postgres"}` + "\n" +
		`{"task_id": 2, "db_id": "zoo", "question": "q", "gold_answer": [[1.5]], "sqlite_gold_sql": "SELECT 1.5", "dialect": "postgres"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(Source{Name: "pg", Format: FormatJSONL, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Dialect != "postgres" || !reflect.DeepEqual(ds.DBs, map[string]string{"shop": "shop", "zoo": "zoo"}) {
		t.Errorf("dialect %q, DBs %v; want postgres, each db_id its own", ds.Dialect, ds.DBs)
	}
	t1, _ := ds.Task("pg/1")
	t2, _ := ds.Task("pg/2")
	if t1 == nil || t1.GoldSQL != "SELECT 'a'" || !reflect.DeepEqual(t1.GoldRows, [][]any{{"a"}}) {
		t.Errorf("task 1 = %+v; want both golds", t1)
	}
	if t2 == nil || t2.GoldSQL != "" || !reflect.DeepEqual(t2.GoldRows, [][]any{{1.5}}) {
		t.Errorf("task 2 = %+v; want the answer rows alone", t2)
	}
}

// A MySQL dataset's database is the database db_id on its server: no
// file is looked for.
func TestLoadJSONLMySQL(t *testing.T) {
	dir := t.TempDir()
	line := `{"task_id": 1, "db_id": "shop", "question": "q", "gold_sql": "SELECT 'a'", "gold_answer": [["a"]], "dialect": "mysql"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := Load(Source{Name: "my", Format: FormatJSONL, Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Dialect != "mysql" || !reflect.DeepEqual(ds.DBs, map[string]string{"shop": "shop"}) {
		t.Errorf("dialect %q, DBs %v; want mysql, the db_id its database", ds.Dialect, ds.DBs)
	}
}

func TestReadJSONLErrors(t *testing.T) {
	const ok = `{"task_id": "a", "db_id": "d", "question": "q", "gold_sql": "SELECT 1"}` + "\n"
	rec := func(fields string) string { return `{"db_id": "d", "question": "q", ` + fields + "}\n" }
	tests := []struct {
		name, in string
		want     []string
	}{
		{"malformed", ok + "\n" + `{"task_id": "b", "db_id" "d"}`, []string{"line 3", "malformed JSON at column 26"}},
		{"truncated", ok + `{"task_id": "b"`, []string{"line 2", "malformed JSON"}},
		{"two objects", ok + ok[:len(ok)-1] + " {}\n", []string{"line 2", "more after the object"}},
		{"not an object", ok + "[1, 2]\n", []string{"line 2", "want a JSON object"}},
		{"unknown field", ok + rec(`"task_id": "b", "gold_sql": "SELECT 1", "gold_sq1": "x"`), []string{"line 2", `unknown field "gold_sq1"`}},
		{"wrong type", ok + rec(`"task_id": "b", "gold_sql": 7`), []string{"line 2", "field gold_sql", "want string"}},
		{"missing task_id", ok + rec(`"gold_sql": "SELECT 1"`), []string{"line 2", "missing task_id"}},
		{"bad task_id", ok + rec(`"task_id": true, "gold_sql": "SELECT 1"`), []string{"line 2", "task_id"}},
		{"missing db_id", ok + `{"task_id": "b", "question": "q", "gold_sql": "SELECT 1"}`, []string{"line 2", "missing db_id"}},
		{"missing question", ok + `{"task_id": "b", "db_id": "d", "gold_sql": "SELECT 1"}`, []string{"line 2", "missing question"}},
		{"no gold", ok + rec(`"task_id": "b", "gold_sql": ""`), []string{"line 2", "missing gold"}},
		{"no gold at all", ok + rec(`"task_id": "b", "gold_answer": null`), []string{"line 2", "missing gold"}},
		{"bad dialect", ok + rec(`"task_id": "b", "gold_sql": "SELECT 1", "dialect": "oracle"`), []string{"line 2", `dialect "oracle"`}},
		{"two dialects", ok + rec(`"task_id": "b", "gold_sql": "SELECT 1", "dialect": "postgres"`), []string{"line 2", "dialect postgres", "first record's is sqlite"}},
		{"postgres db_path", rec(`"task_id": "b", "gold_sql": "SELECT 1", "dialect": "postgres", "db_path": "x.db"`), []string{"line 1", "db_path given with dialect postgres"}},
		{"duplicate", ok + "\n" + ok, []string{"line 3", `duplicate task id "x/a"`, "first at line 1"}},
		{"duplicate number", rec(`"task_id": 5, "gold_sql": "SELECT 1"`) + rec(`"task_id": "5", "gold_sql": "SELECT 1"`), []string{"line 2", "duplicate task id"}},
		{"answer not rows", ok + rec(`"task_id": "b", "gold_answer": [1]`), []string{"line 2", "gold_answer", "row 0"}},
		{"answer ragged", ok + rec(`"task_id": "b", "gold_answer": [[1, 2], [3]]`), []string{"line 2", "row 1", "has 1 values"}},
		{"answer empty row", ok + rec(`"task_id": "b", "gold_answer": [[]]`), []string{"line 2", "row 0", "empty row"}},
		{"answer bool", ok + rec(`"task_id": "b", "gold_answer": [[true]]`), []string{"line 2", "row 0, column 0", "booleans"}},
		{"answer object", ok + rec(`"task_id": "b", "gold_answer": [[1, {"a": 1}]]`), []string{"line 2", "column 1", "object"}},
		{"answer huge", ok + rec(`"task_id": "b", "gold_answer": [[1e999]]`), []string{"line 2", "out of range"}},
		{"answer not array", ok + rec(`"task_id": "b", "gold_answer": "12"`), []string{"line 2", "gold_answer", "array of rows"}},
		{"segments without answer", ok + rec(`"task_id": "b", "gold_sql": "SELECT 1", "gold_segments": [{"take": 1, "rows": [[1]]}]`), []string{"line 2", "gold_segments without gold_answer"}},
		{"segment take too large", ok + rec(`"task_id": "b", "gold_answer": [[1]], "gold_segments": [{"take": 2, "rows": [[1]]}]`), []string{"line 2", "segment 0", "take from 0 to its 1 rows"}},
		{"segment take missing", ok + rec(`"task_id": "b", "gold_answer": [[1]], "gold_segments": [{"rows": [[1]]}]`), []string{"line 2", "segment 0", "take"}},
		{"segment too wide", ok + rec(`"task_id": "b", "gold_answer": [[1]], "gold_segments": [{"take": 1, "rows": [[1, 2]]}]`), []string{"line 2", "rows of 2 values, gold_answer's have 1"}},
		{"segments take too few", ok + rec(`"task_id": "b", "gold_answer": [[1], [2]], "gold_segments": [{"take": 1, "rows": [[1], [2]]}]`), []string{"line 2", "take 1 rows, gold_answer holds 2"}},
		{"segment unknown key", ok + rec(`"task_id": "b", "gold_answer": [[1]], "gold_segments": [{"take": 1, "rows": [[1]], "ordered": true}]`), []string{"line 2", "gold_segments", "ordered"}},
		{"db_id two paths", ok + `{"task_id": "b", "db_id": "d", "question": "q", "gold_sql": "SELECT 1", "db_path": "o.db"}`,
			[]string{"line 2", `db_id "d" names two databases`}},
		{"empty", "\n \n", []string{"empty dataset"}},
	}
	for _, tt := range tests {
		_, _, err := ReadJSONL("x", strings.NewReader(tt.in), fixedDB)
		checkErr(t, tt.name, err, tt.want...)
	}
}

func TestReadJSONLDBPathError(t *testing.T) {
	in := `{"task_id": "a", "db_id": "d", "question": "q", "gold_sql": "SELECT 1"}`
	boom := errors.New("boom")
	_, _, err := ReadJSONL("x", strings.NewReader(in), func(string) (string, error) { return "", boom })
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("err = %v, want boom at line 1", err)
	}
}

func TestLoadJSONLErrors(t *testing.T) {
	const task = `{"task_id": "a", "db_id": "d", "question": "q", "gold_sql": "SELECT 1"}` + "\n"
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"missing database", map[string]string{"tasks.jsonl": task},
			[]string{"line 1", `database "d"`, filepath.Join("database", "d", "d.sqlite"), "d.sqlite"}},
		{"missing db_path", map[string]string{"tasks.jsonl": "\n" + `{"task_id": "a", "db_id": "d", "question": "q", "gold_sql": "SELECT 1", "db_path": "x/d.db"}`},
			[]string{"line 2", "missing file", filepath.Join("x", "d.db")}},
		{"malformed", map[string]string{"tasks.jsonl": task + "{\n", "d.sqlite": ""}, []string{"line 2", "malformed JSON"}},
		{"duplicate", map[string]string{"tasks.jsonl": task + task, "d.sqlite": ""}, []string{"line 2", "duplicate task id"}},
		{"empty", map[string]string{"tasks.jsonl": ""}, []string{"empty dataset"}},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeFiles(t, dir, tt.files)
		file := filepath.Join(dir, "tasks.jsonl")
		_, err := LoadJSONL("j", file)
		checkErr(t, tt.name, err, append(tt.want, file)...)
	}
}

func TestLoadJSONLFolder(t *testing.T) {
	ds, err := LoadJSONL("j", "testdata/jsonl")
	if err != nil || len(ds.Tasks) != 3 {
		t.Fatalf("LoadJSONL(folder) = %v, %v; want the 3 tasks of tasks.jsonl", ds, err)
	}
	_, err = LoadJSONL("j", "testdata/bird")
	checkErr(t, "folder without tasks.jsonl", err, "testdata/bird", "tasks.jsonl")
}

func fixedDB(dbID string) (string, error) { return "/dbs/" + dbID + ".sqlite", nil }

func FuzzReadJSONL(f *testing.F) {
	f.Add(`{"task_id": "a", "db_id": "d", "question": "q", "gold_sql": "SELECT 1"}`)
	f.Add(`{"task_id": 1, "db_id": "d", "question": "q", "gold_answer": [[1, 2.5, "x", null]]}` + "\n\n")
	f.Add(`{"task_id": "a", "db_id": "d", "question": "q", "gold_answer": [[1e400]], "db_path": "x.db"}`)
	f.Add("\xef\xbb\xbf{\"task_id\": \"a\"}\r\n[1]\n")
	f.Add(`{"task_id": "a", "db_id": "../d", "question": "q", "gold_answer": [[true], {}]}`)
	f.Fuzz(func(t *testing.T, in string) {
		tasks, dbs, err := ReadJSONL("f", strings.NewReader(in), fixedDB)
		if err != nil {
			if tasks != nil || dbs != nil {
				t.Fatalf("error %v with results", err)
			}
			return
		}
		for _, task := range tasks {
			if _, ok := dbs[task.DBID]; !ok {
				t.Fatalf("task %s: db %q not in %v", task.ID, task.DBID, dbs)
			}
			if (task.GoldSQL == "") == (task.GoldRows == nil) {
				t.Fatalf("task %s: want exactly one of gold SQL and rows", task.ID)
			}
		}
	})
}
