package sqlite

import (
	"database/sql/driver"
	"errors"
	"testing"
	"time"

	"github.com/mattn/go-sqlite3"
)

// TestDeadlineStopsWhatNothingInterrupts: with nothing to interrupt it
// (no context the driver watches, no watchInterrupt), a statement is
// stopped by the deadline SQLite checks itself: one that has already
// passed when the statement starts (where an interrupt that lands before
// the first step is lost), and one that passes while it runs. With the
// deadline cleared the connection runs its next statement to the end.
func TestDeadlineStopsWhatNothingInterrupts(t *testing.T) {
	const neverEnds = `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n`
	c := memoryConn(t)
	run := func(sc *sqlite3.SQLiteConn, sql string) (driver.Value, error) {
		rows, err := sc.Query(sql, nil)
		if err != nil {
			return nil, err
		}
		defer rows.Close()
		v := make([]driver.Value, 1)
		err = rows.Next(v)
		return v[0], err
	}
	err := c.Raw(func(dc any) error {
		sc := dc.(*sqlite3.SQLiteConn)
		d := newDeadline(sc)
		if d == nil {
			t.Fatal("no deadline installed on the driver's connection")
		}
		defer d.free()
		for _, in := range []time.Duration{-1, 50 * time.Millisecond} {
			d.set(in)
			_, err := run(sc, neverEnds)
			var se sqlite3.Error
			if !errors.As(err, &se) || se.Code != sqlite3.ErrInterrupt {
				t.Errorf("deadline %v: err = %v, want the statement interrupted", in, err)
			}
		}
		d.set(0)
		v, err := run(sc, `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000) SELECT max(i) FROM n`)
		if err != nil || v != int64(200000) {
			t.Errorf("with no deadline: %v, %v; want 200000", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
