package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

func TestOpenFailsClearly(t *testing.T) {
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.sqlite")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	withWAL := filepath.Join(dir, "wal.sqlite")
	if err := Build(context.Background(), withWAL, "CREATE TABLE t (x);"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(withWAL+"-wal", []byte("frames"), 0o644); err != nil {
		t.Fatal(err)
	}
	corrupt := filepath.Join(dir, "corrupt.sqlite")
	if err := Build(context.Background(), corrupt, "CREATE TABLE t (x); INSERT INTO t VALUES (1);"); err != nil {
		t.Fatal(err)
	}
	spoil(t, corrupt)
	tests := []struct{ name, path, want string }{
		{"missing", filepath.Join(dir, "missing.sqlite"), "no such file or directory"},
		{"corrupt after its header", corrupt, "malformed"},
		{"directory", dir, "not a regular file"},
		{"not a database", notDB, "file is not a database"},
		{"uncheckpointed wal", withWAL, "non-empty -wal file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := New(Config{}).Open(context.Background(), tc.path)
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), tc.path) != 1 {
				t.Errorf("err = %q, want it to name %q once and say %q", err, tc.path, tc.want)
			}
		})
	}
	if got, want := listDir(t, dir), []string{"corrupt.sqlite", "notes.sqlite", "wal.sqlite", "wal.sqlite-wal"}; !reflect.DeepEqual(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
}

func TestOpenAwkwardPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a dir?x=1#frag%20")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	built := filepath.Join(t.TempDir(), "plain.sqlite")
	if err := Build(context.Background(), built, "CREATE TABLE t (x); INSERT INTO t VALUES (7);"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "my db.sqlite")
	if err := os.Rename(built, path); err != nil {
		t.Fatal(err)
	}
	e := New(Config{})
	d, err := e.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	rs, err := d.Query(context.Background(), "SELECT x FROM t", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := [][]any{{int64(7)}}; !reflect.DeepEqual(rs.Rows, want) {
		t.Errorf("rows = %v, want %v", rs.Rows, want)
	}
	if got, want := listDir(t, dir), []string{"my db.sqlite"}; !reflect.DeepEqual(got, want) {
		t.Errorf("directory holds %v, want %v", got, want)
	}
	if e.Dialect() != env.SQLite {
		t.Errorf("dialect %q, want sqlite", e.Dialect())
	}
}

func TestConfigDefaults(t *testing.T) {
	got := Config{}.withDefaults()
	if got.MaxConns != DefaultMaxConns || got.IdleConns != DefaultIdleConns || got.MaxRunning != DefaultMaxRunning ||
		got.MaxValueBytes != DefaultMaxValueBytes || got.MaxSQLBytes != DefaultMaxSQLBytes ||
		got.DefaultTimeout != DefaultTimeout || got.MaxResultRows != DefaultMaxResultRows || got.MaxResultBytes != DefaultMaxResultBytes ||
		got.StmtCacheBytes != DefaultStmtCacheBytes || got.MaxOpenDBs != DefaultMaxOpenDBs {
		t.Errorf("Config{}.withDefaults() = %+v", got)
	}
	set := Config{MaxConns: 2, IdleConns: 1, MaxValueBytes: 3, MaxSQLBytes: 4, DefaultTimeout: 5, MaxResultRows: 6,
		MaxResultBytes: 7, MaxRunning: 8, StmtCacheBytes: 9, MaxOpenDBs: 10}
	if got := set.withDefaults(); got != set {
		t.Errorf("withDefaults changed set fields: %+v, want %+v", got, set)
	}
	if got := (Config{StmtCacheBytes: -1}).withDefaults().StmtCacheBytes; got != 0 {
		t.Errorf("a negative StmtCacheBytes became %d, want 0 (keep none)", got)
	}
	if got := (Config{MaxConns: 2}).withDefaults().IdleConns; got != 2 {
		t.Errorf("idle connections of a 2-connection pool = %d, want 2", got)
	}
}

func TestSQLLengthLimit(t *testing.T) {
	d, err := New(Config{MaxSQLBytes: 100}).Open(context.Background(), fixture(t))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	_, err = d.Query(context.Background(), "SELECT "+strings.Repeat("1+", 100)+"1", env.Limits{})
	checkKind(t, err, []error{env.ErrTooLarge})
	if _, err := d.Query(context.Background(), "SELECT 1+1", env.Limits{}); err != nil {
		t.Fatalf("short statement: %v", err)
	}
}

// spoil overwrites everything past a database file's 100-byte header, so
// that the header still reads well and the schema does not.
func spoil(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 100; i < len(data); i++ {
		data[i] = 0xA5
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
