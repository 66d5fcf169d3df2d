package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/pgtest"
)

// TestEnsureReaderFromSeveralDatabasesAtOnce: roles belong to the whole
// server, so EnsureReader calls on different databases (two imports at
// once, or test packages in parallel) change the same role at the same
// moment, which the per-database advisory lock does not serialise. Every
// call must still succeed.
func TestEnsureReaderFromSeveralDatabasesAtOnce(t *testing.T) {
	ctx := context.Background()
	var b [4]byte
	rand.Read(b[:])
	role := "sqlgym_test_race_" + hex.EncodeToString(b[:])
	var conns []*pgx.Conn
	for range 3 {
		conn, err := pgx.Connect(ctx, pgtest.Database(t))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, "CREATE SCHEMA s; CREATE TABLE s.t (x int)"); err != nil {
			t.Fatal(err)
		}
		conns = append(conns, conn)
	}
	t.Cleanup(func() {
		for _, c := range conns {
			c.Exec(ctx, "DROP OWNED BY "+pgx.Identifier{role}.Sanitize())
		}
		if _, err := conns[0].Exec(ctx, "DROP ROLE IF EXISTS "+pgx.Identifier{role}.Sanitize()); err != nil {
			t.Errorf("drop the test role: %v", err)
		}
		for _, c := range conns {
			c.Close(ctx)
		}
	})
	var wg sync.WaitGroup
	errs := make(chan error, 60)
	for _, c := range conns {
		wg.Go(func() {
			for range 20 {
				if err := EnsureReader(ctx, c, role, "s"); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
