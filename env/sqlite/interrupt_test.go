package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"testing"

	"github.com/mattn/go-sqlite3"
)

// TestWatchInterruptStopsAStatementTheDriverMissed: a statement run with
// no context the driver watches (as when its interrupt was lost) is
// stopped by watchInterrupt once the context it watches ends, and
// release returns only after the last interrupt.
func TestWatchInterruptStopsAStatementTheDriverMissed(t *testing.T) {
	c := memoryConn(t)
	ctx, cancel := context.WithCancel(context.Background())
	err := c.Raw(func(dc any) error {
		sc := dc.(*sqlite3.SQLiteConn)
		if handle(sc) == nil {
			t.Fatal("no sqlite3 handle read from the driver's connection")
		}
		release := watchInterrupt(ctx, sc)
		defer release()
		cancel()
		rows, err := sc.Query(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT max(i) FROM n`, nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		return rows.Next(make([]driver.Value, 1))
	})
	var se sqlite3.Error
	if !errors.As(err, &se) || se.Code != sqlite3.ErrInterrupt {
		t.Fatalf("err = %v, want the statement interrupted", err)
	}
	// The connection runs its next statement uninterrupted.
	var one int
	if err := c.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
		t.Fatalf("next statement: %d, %v", one, err)
	}
}

// memoryConn is a connection of the driver's own, to an in-memory
// database, closed when the test ends.
func memoryConn(t *testing.T) *sql.Conn {
	t.Helper()
	db, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
