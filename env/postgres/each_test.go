package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestQueryEach streams more rows than one batch and than the engine's
// result ceiling, stops when asked (and the connection serves the next
// call), cuts long text, and refuses what Query refuses.
func TestQueryEach(t *testing.T) {
	base, schema := pgtest.Schema(t, `CREATE TABLE t (id integer, v text);
INSERT INTO t SELECT i, 'value ' || i FROM generate_series(1, 5000) AS i;`)
	ensureReader(t, schema)
	ctx := context.Background()
	db, err := New(Config{MaxResultRows: 100}).Open(ctx, Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := db.(env.RowStreamer)
	var n, sum int64
	var last any
	err = s.QueryEach(ctx, "SELECT id, v FROM t ORDER BY id", env.Limits{MaxCellBytes: 7}, func(row []any) bool {
		n++
		sum += row[0].(int64)
		last = row[1]
		return true
	})
	if err != nil || n != 5000 || sum != 5000*5001/2 || last != "value 5…" {
		t.Errorf("all rows: %d rows, sum %d, last %q, %v; want 5000 rows, the last cut to 'value 5…'", n, sum, last, err)
	}
	n = 0
	if err := s.QueryEach(ctx, "SELECT id FROM t", env.Limits{}, func([]any) bool { n++; return n < 3 }); err != nil || n != 3 {
		t.Errorf("stopped at the third row: %d rows, %v", n, err)
	}
	if rs, err := db.Query(ctx, "SELECT count(*) FROM t", env.Limits{}); err != nil || fmt.Sprint(rs.Rows) != "[[5000]]" {
		t.Errorf("the next call: %v %v", rs, err)
	}
	err = s.QueryEach(ctx, "SELECT pg_terminate_backend(1)", env.Limits{}, func([]any) bool { return true })
	if !errors.Is(err, env.ErrDenied) {
		t.Errorf("a denied function: %v, want denied", err)
	}
}
