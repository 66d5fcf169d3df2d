package datasets

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

func TestParseSource(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine", "data")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		in   string
		want Source
	}{
		{"spider:/data/spider-dev", Source{"spider-dev", "spider", "/data/spider-dev"}},
		{"spider:/data/spider-dev/", Source{"spider-dev", "spider", "/data/spider-dev/"}},
		{"SPIDER:/data/spider-dev", Source{"spider-dev", "spider", "/data/spider-dev"}},
		{"bird:/data/bird/dev.json", Source{"bird", "bird", "/data/bird/dev.json"}},
		{"mini=bird:/data/minidev", Source{"mini", "bird", "/data/minidev"}},
		{"jsonl:/data/mine/tasks.jsonl", Source{"mine", "jsonl", "/data/mine/tasks.jsonl"}},
		{"x=jsonl:/a=b:c/t.jsonl", Source{"x", "jsonl", "/a=b:c/t.jsonl"}},
		{"jsonl:" + file, Source{"mine", "jsonl", file}},
	}
	for _, tt := range tests {
		got, err := ParseSource(tt.in)
		if err != nil {
			t.Errorf("ParseSource(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseSource(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseSourceErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/data/spider-dev", "want [NAME=]FORMAT:PATH"},
		{"csv:/data/x", `unknown format "csv"`},
		{"x=parquet:/data/x", `unknown format "parquet"`},
		{"spider:", "empty path"},
		{"=spider:/data/x", "empty dataset name"},
		{"a/b=spider:/data/x", "slash or a space"},
	}
	for _, tt := range tests {
		_, err := ParseSource(tt.in)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseSource(%q) error = %v, want it to contain %q", tt.in, err, tt.want)
		}
	}
}

func TestLoadDispatches(t *testing.T) {
	tests := []struct {
		src    Source
		tasks  int
		lookup string
	}{
		{Source{"b", "bird", "testdata/bird"}, 4, "b/z-9"},
		{Source{"j", "jsonl", "testdata/jsonl/tasks.jsonl"}, 3, "j/zoo-1"},
	}
	for _, tt := range tests {
		ds, err := Load(tt.src)
		if err != nil {
			t.Errorf("Load(%+v): %v", tt.src, err)
			continue
		}
		if ds.Name != tt.src.Name || ds.Dialect != "sqlite" || len(ds.Tasks) != tt.tasks {
			t.Errorf("Load(%+v) = %s/%s with %d tasks, want %s/sqlite with %d",
				tt.src, ds.Name, ds.Dialect, len(ds.Tasks), tt.src.Name, tt.tasks)
		}
		if _, ok := ds.Task(tt.lookup); !ok {
			t.Errorf("Load(%+v): task %s not indexed", tt.src, tt.lookup)
		}
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		src  Source
		want string
	}{
		{Source{"x", "csv", "testdata/bird"}, `unknown format "csv"`},
		{Source{"", "bird", "testdata/bird"}, "empty dataset name"},
		{Source{"x", "spider", "testdata/nowhere"}, "testdata/nowhere"},
	}
	for _, tt := range tests {
		_, err := Load(tt.src)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Load(%+v) error = %v, want it to contain %q", tt.src, err, tt.want)
		}
	}
}

func TestPosition(t *testing.T) {
	data := []byte("ab\ncde\n\nf")
	tests := []struct {
		off       int64
		line, col int
	}{{0, 1, 1}, {2, 1, 3}, {3, 2, 1}, {5, 2, 3}, {8, 4, 1}, {99, 4, 2}}
	for _, tt := range tests {
		line, col := position(data, tt.off)
		if line != tt.line || col != tt.col {
			t.Errorf("position(%d) = %d:%d, want %d:%d", tt.off, line, col, tt.line, tt.col)
		}
	}
}

// writeFiles writes each name -> content under dir, making folders; an
// empty content makes an empty placeholder file.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkErr fails unless err holds every wanted fragment.
func checkErr(t *testing.T, what string, err error, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: no error, want one containing %q", what, want)
		return
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: error %q does not contain %q", what, err, w)
		}
	}
}

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
