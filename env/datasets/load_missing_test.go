package datasets

import (
	"path/filepath"
	"testing"
)

// TestLoadNamesEveryMissingDatabase loads datasets of each format with
// two database files missing and one there: Load names both missing ones,
// LoadKeepingMissing keeps every database with the path it looked at.
func TestLoadNamesEveryMissingDatabase(t *testing.T) {
	const q = `"question": "q", "query": "SELECT 1"`
	tests := []struct {
		format string
		files  map[string]string
		want   map[string]string // db_id -> path under the dir
	}{
		{FormatSpider, map[string]string{
			"dev.json":            `[{"db_id": "a", ` + q + `}, {"db_id": "b", ` + q + `}, {"db_id": "c", ` + q + `}]`,
			"database/b/b.sqlite": "",
		}, map[string]string{"a": "database/a/a.sqlite", "b": "database/b/b.sqlite", "c": "database/c/c.sqlite"}},
		{FormatBird, map[string]string{
			"dev.json":                 `[{"db_id": "a", "question": "q", "SQL": "SELECT 1"}, {"db_id": "b", "question": "q", "SQL": "SELECT 1"}, {"db_id": "c", "question": "q", "SQL": "SELECT 1"}]`,
			"dev_databases/b/b.sqlite": "",
		}, map[string]string{"a": "dev_databases/a/a.sqlite", "b": "dev_databases/b/b.sqlite", "c": "dev_databases/c/c.sqlite"}},
		{FormatJSONL, map[string]string{
			"tasks.jsonl": `{"task_id": "1", "db_id": "a", "question": "q", "gold_sql": "SELECT 1"}` + "\n" +
				`{"task_id": "2", "db_id": "b", "question": "q", "gold_sql": "SELECT 1"}` + "\n" +
				`{"task_id": "3", "db_id": "c", "question": "q", "gold_sql": "SELECT 1", "db_path": "c.db"}` + "\n",
			"b.sqlite": "",
		}, map[string]string{"a": "database/a/a.sqlite", "b": "b.sqlite", "c": "c.db"}},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		writeFiles(t, dir, tt.files)
		src := Source{Name: "x", Format: tt.format, Path: dir}
		_, err := Load(src)
		checkErr(t, tt.format, err, filepath.Join(dir, tt.want["a"]), filepath.Join(dir, tt.want["c"]), `database "a"`, `database "c"`, "missing file")
		ds, err := LoadKeepingMissing(src)
		if err != nil {
			t.Fatalf("%s: LoadKeepingMissing: %v", tt.format, err)
		}
		for id, rel := range tt.want {
			if got := ds.DBs[id]; got != filepath.Join(dir, rel) {
				t.Errorf("%s: database %s at %q, want %q", tt.format, id, got, filepath.Join(dir, rel))
			}
		}
		if len(ds.Tasks) != 3 {
			t.Errorf("%s: %d tasks kept, want 3", tt.format, len(ds.Tasks))
		}
	}
}
