package datasets

import (
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/sqlgym/sqlgym/env/hardness"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
)

func TestLoadSpiderDev(t *testing.T) {
	dir := spiderdev.Dir(t)
	for _, path := range []string{dir, filepath.Join(dir, "dev.json")} {
		ds, err := LoadSpider("spider-dev", path)
		if err != nil {
			t.Fatalf("LoadSpider(%s): %v", path, err)
		}
		if got := len(ds.Tasks); got != 972 {
			t.Errorf("tasks = %d, want 972", got)
		}
		if got := len(ds.DBs); got != 19 {
			t.Errorf("databases = %d, want 19", got)
		}
		for i, task := range ds.Tasks {
			if want := "spider-dev/" + strconv.Itoa(i); task.ID != want {
				t.Fatalf("task %d id = %q, want %q", i, task.ID, want)
			}
			if !slices.Contains(hardness.Levels, task.Difficulty) || task.GoldSQL == "" || task.Dataset != "spider-dev" {
				t.Fatalf("task %s = %+v, want Spider's hardness, a gold query, dataset spider-dev", task.ID, task)
			}
		}
		first, ok := ds.Task("spider-dev/0")
		if !ok || first.DBID != "concert_singer" || first.Question != "How many singers do we have?" {
			t.Errorf("spider-dev/0 = %+v, %v; want concert_singer's singer count", first, ok)
		}
		want := filepath.Join(dir, "database", "concert_singer", "concert_singer.sqlite")
		if got := ds.DBs["concert_singer"]; got != want {
			t.Errorf("concert_singer at %s, want %s", got, want)
		}
	}
}

func TestLoadSpiderErrors(t *testing.T) {
	const db = "database/a/a.sqlite"
	tests := []struct {
		name  string
		files map[string]string
		path  string // relative to the temp dir; "" is the dir itself
		want  []string
	}{
		{"no dev.json", map[string]string{"x.json": "[]"}, "", []string{"holds none of dev.json"}},
		{"missing file", nil, "nope.json", []string{"nope.json", "no such file"}},
		{"malformed", map[string]string{"dev.json": "[\n {\"db_id\": \"a\",\n  \"question\" \"q\"}]"},
			"", []string{"dev.json", "line 3, column 14", "malformed JSON"}},
		{"not an array", map[string]string{"dev.json": `{"db_id": "a"}`}, "", []string{"dev.json", "line 1", "malformed JSON"}},
		{"wrong type", map[string]string{"dev.json": `[{"db_id": "a", "question": 5, "query": "q"}]`, db: ""},
			"", []string{"dev.json", "record 0", "malformed record"}},
		{"missing query", map[string]string{"dev.json": `[{"db_id": "a", "question": "q", "query": "SELECT 1"}, {"db_id": "a", "question": "q"}]`, db: ""},
			"", []string{"dev.json", "record 1", "missing query"}},
		{"missing question", map[string]string{"dev.json": `[{"db_id": "a", "query": "SELECT 1"}]`, db: ""},
			"", []string{"dev.json", "record 0", "missing question"}},
		{"missing db_id", map[string]string{"dev.json": `[{"question": "q", "query": "SELECT 1"}]`},
			"", []string{"dev.json", "record 0", "missing db_id"}},
		{"db_id with a slash", map[string]string{"dev.json": `[{"db_id": "../a", "question": "q", "query": "SELECT 1"}]`},
			"", []string{"dev.json", "record 0", "not a plain name"}},
		{"missing database", map[string]string{"dev.json": `[{"db_id": "a", "question": "q", "query": "SELECT 1"}, {"db_id": "b", "question": "q", "query": "SELECT 1"}]`, db: ""},
			"", []string{"dev.json", "record 1", "missing file", filepath.Join("database", "b", "b.sqlite")}},
		{"database is a folder", map[string]string{"dev.json": `[{"db_id": "a", "question": "q", "query": "SELECT 1"}]`, "database/a/a.sqlite/x": ""},
			"", []string{"dev.json", "record 0", "is a folder"}},
		{"empty", map[string]string{"dev.json": "[]"}, "", []string{"dev.json", "empty dataset"}},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeFiles(t, dir, tt.files)
		_, err := LoadSpider("s", filepath.Join(dir, tt.path))
		checkErr(t, tt.name, err, tt.want...)
	}
}
