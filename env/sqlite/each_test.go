package sqlite

import (
	"context"
	"errors"
	"testing"

	"github.com/sqlgym/sqlgym/env"
)

// TestQueryEach streams rows past the engine's result ceiling, stops
// when asked, keeps stored values as they are (a DATE column's text),
// cuts long text, and fails as Query does.
func TestQueryEach(t *testing.T) {
	d, _ := openFixture(t)
	s := d.(env.RowStreamer)
	ctx := context.Background()
	var n, sum int64
	err := s.QueryEach(ctx, "SELECT x FROM big ORDER BY x", env.Limits{}, func(row []any) bool {
		n++
		sum += row[0].(int64)
		return true
	})
	if err != nil || n != 10000 || sum != 10000*10001/2 {
		t.Errorf("all rows: %d rows, sum %d, %v; want 10000 rows", n, sum, err)
	}
	n = 0
	if err := s.QueryEach(ctx, "SELECT x FROM big", env.Limits{}, func([]any) bool { n++; return n < 3 }); err != nil || n != 3 {
		t.Errorf("stopped at the third row: %d rows, %v", n, err)
	}
	var got []any
	err = s.QueryEach(ctx, "SELECT born, name FROM singer WHERE singer_id = 2", env.Limits{MaxCellBytes: 1}, func(row []any) bool {
		got = append(got, row...)
		return true
	})
	if err != nil || len(got) != 2 || got[0] != "n…" || got[1] != "B…" {
		t.Errorf("a DATE column's text, cut to 1 byte: %q %v", got, err)
	}
	err = s.QueryEach(ctx, "DELETE FROM big", env.Limits{}, func([]any) bool { return true })
	if !errors.Is(err, env.ErrDenied) {
		t.Errorf("a write: %v, want denied", err)
	}
}
