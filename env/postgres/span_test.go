package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestRowSpan checks the span of a table's pages before and after
// ANALYZE, that Range reads the rows of a range of pages, and that a
// partitioned table has no span.
func TestRowSpan(t *testing.T) {
	base, schema := pgtest.Schema(t, `
CREATE TABLE t (id integer, v text);
INSERT INTO t SELECT i, 'value ' || i FROM generate_series(1, 5000) AS i;
CREATE TABLE parts (id integer) PARTITION BY RANGE (id);
CREATE TABLE parts_1 PARTITION OF parts FOR VALUES FROM (0) TO (100);`)
	ensureReader(t, schema)
	ctx := context.Background()
	db, err := New(Config{}).Open(ctx, Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	spanner := db.(env.RowSpanner)
	s, err := spanner.RowSpan(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if s.Unit != "page" || !s.Shared || s.Lo != 0 || s.Hi < 10 || s.PerPosition < 50 || s.Rows != -1 {
		t.Errorf("span before ANALYZE %+v: want pages from 0, tens of rows per page (counted), no count", s)
	}
	rs, err := db.Query(ctx, fmt.Sprintf("SELECT count(*), min(%s) FROM t WHERE %s", s.Position, fmt.Sprintf(s.Range, 0, s.Hi)), env.Limits{})
	if err != nil || fmt.Sprint(rs.Rows[0]) != "[5000 0]" {
		t.Errorf("rows of every page: %v %v, want 5000 from page 0", rs, err)
	}
	superuser(t, base, fmt.Sprintf("ANALYZE %q.t", schema))
	if s, err = spanner.RowSpan(ctx, "t"); err != nil || s.Rows < 4900 || s.Rows > 5100 {
		t.Errorf("span after ANALYZE %+v %v: want about 5000 rows from the statistics", s, err)
	}
	if s, err = spanner.RowSpan(ctx, "parts"); err != nil || s.Position != "" {
		t.Errorf("partitioned table: %+v %v, want no span", s, err)
	}
	if _, err := spanner.RowSpan(ctx, "nope"); !errors.Is(err, env.ErrNoSuchTable) {
		t.Errorf("unknown table: %v, want ErrNoSuchTable", err)
	}
}
