package dbgen

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-sqlite3"
)

func TestAnalyzeErrors(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "notes.sqlite")
	if err := os.WriteFile(text, []byte("not a database, only some text that is long enough to be read as a header"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, src string
		cfg       Config
		want      string
	}{
		{"missing file", filepath.Join(dir, "none.sqlite"), Config{}, "no such file"},
		{"not a database", text, Config{}, "not a database"},
		{"no tables", source(t, "CREATE VIEW v AS SELECT 1"), Config{}, "no tables"},
		{"a schema SQLite cannot create again", collatedSource(t), Config{}, "cannot be created again"},
		{"a negative bound", source(t, companyScript), Config{MaxRows: -1}, "must not be negative"},
	}
	for _, tt := range tests {
		_, err := Analyze(context.Background(), tt.src, nil, tt.cfg)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "dbgen: ") {
			t.Errorf("%s: Analyze gives %v, want an error saying %q", tt.name, err, tt.want)
		}
	}
}

// collatedSource is a database whose table declares a collation only the
// connection that made it knew.
func collatedSource(tb testing.TB) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "collated.sqlite")
	dsn, err := fileDSN(path, "mode=rwc")
	if err != nil {
		tb.Fatal(err)
	}
	drv := &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		return c.RegisterCollation("backwards", func(a, b string) int { return strings.Compare(b, a) })
	}}
	db := sql.OpenDB(connector{dsn: dsn, drv: drv})
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE t (a TEXT COLLATE backwards); INSERT INTO t VALUES ('x')"); err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestAnalyzeRejectsGoldsThatAreNotSQL(t *testing.T) {
	golds := []string{"what is the name of every department?", "SELECT nosuch FROM dept", "SELECT name FROM dept WHERE name = 'Quality'", ""}
	d := analyze(t, source(t, companyScript), golds, Config{}).Describe()
	if d.Golds != 4 || !slices.Equal(d.RejectedGolds, []int{0, 1, 3}) {
		t.Errorf("golds %d, rejected %v; want 4, [0 1 3]", d.Golds, d.RejectedGolds)
	}
	if got := describedColumns(d)["dept.name"].Literals; !slices.Equal(got, []string{"'Quality'"}) {
		t.Errorf("dept.name literals %q, want the accepted gold's", got)
	}
}
