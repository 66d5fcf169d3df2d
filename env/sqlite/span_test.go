package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// TestRowSpan checks the span of each kind of table: rowids in use, a
// rowid name a column takes, rowids used sparsely, no rowid, no rows;
// and that Range reads the rows of a range of positions.
func TestRowSpan(t *testing.T) {
	path := filepath.Join(t.TempDir(), "span.sqlite")
	err := Build(context.Background(), path, `
CREATE TABLE dense (id INTEGER PRIMARY KEY, v TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) INSERT INTO dense SELECT x, 'v' || x FROM c;
CREATE TABLE named ("RowId" TEXT, v TEXT);
INSERT INTO named VALUES ('a', 'b'), ('c', 'd');
CREATE TABLE sparse (id INTEGER PRIMARY KEY, v TEXT);
WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 3000) INSERT INTO sparse SELECT 10 * x, 'v' FROM c;
CREATE TABLE keyed (k TEXT PRIMARY KEY, v TEXT) WITHOUT ROWID;
INSERT INTO keyed VALUES ('a', 'b');
CREATE TABLE empty (v TEXT);`)
	if err != nil {
		t.Fatal(err)
	}
	db, err := New(Config{}).Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spanner := db.(env.RowSpanner)
	ctx := context.Background()
	for _, c := range []struct {
		table    string
		position string
		lo, hi   int64
		density  float64
	}{
		{"DENSE", "rowid", 1, 5001, 1},
		{"named", "_rowid_", 1, 3, 1},
		{"sparse", "rowid", 10, 30001, 1000.0 / 9991},
		{"keyed", "", 0, 0, 0},
		{"empty", "rowid", 0, 0, 1},
	} {
		s, err := spanner.RowSpan(ctx, c.table)
		if err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		if s.Position != c.position || s.Lo != c.lo || s.Hi != c.hi || s.PerPosition != c.density || s.Rows != -1 || s.Shared {
			t.Errorf("%s: span %+v, want position %q [%d, %d) at %g rows per rowid, no count", c.table, s, c.position, c.lo, c.hi, c.density)
		}
	}
	s, _ := spanner.RowSpan(ctx, "dense")
	rs, err := db.Query(ctx, "SELECT count(*), min(id), max(id) FROM dense WHERE "+fmt.Sprintf(s.Range, 100, 200), env.Limits{})
	if err != nil || fmt.Sprint(rs.Rows[0]) != "[100 100 199]" {
		t.Errorf("rows of rowids [100, 200): %v %v, want 100 of them, 100 to 199", rs, err)
	}
	if _, err := spanner.RowSpan(ctx, "nope"); !errors.Is(err, env.ErrNoSuchTable) {
		t.Errorf("unknown table: %v, want ErrNoSuchTable", err)
	}
}
