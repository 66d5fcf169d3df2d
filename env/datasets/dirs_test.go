package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// TestDirs: a folder value names itself, a file value the folder holding
// it, a SQLite dataset each database's folder, a PostgreSQL one none, and
// a value that does not parse nothing; each folder once, sorted.
func TestDirs(t *testing.T) {
	root := t.TempDir()
	spider := filepath.Join(root, "spider")
	if err := os.MkdirAll(spider, 0o755); err != nil {
		t.Fatal(err)
	}
	jsonl := filepath.Join(root, "mine", "tasks.jsonl")
	dbs := filepath.Join(root, "dbs")
	sqliteDS := &env.Dataset{Dialect: env.SQLite, DBs: map[string]string{
		"a": filepath.Join(dbs, "a.sqlite"), "b": filepath.Join(dbs, "b.sqlite"), "c": filepath.Join(spider, "c.sqlite")}}
	pgDS := &env.Dataset{Dialect: env.Postgres, DBs: map[string]string{"x": "/elsewhere/x"}}
	got := Dirs([]string{"spider:" + spider, "j=jsonl:" + jsonl, "nonsense"}, []*env.Dataset{sqliteDS, pgDS})
	want := []string{dbs, filepath.Join(root, "mine"), spider}
	if !slices.Equal(got, want) {
		t.Fatalf("Dirs = %q, want %q", got, want)
	}
}
