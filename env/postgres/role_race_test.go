package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
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

// TestEnsureReaderReshapesAChangedRole: a reader role given more than it
// should have (by hand, or by an older sqlgym) is shaped back, though
// EnsureReader alters a role only when it is not shaped already.
func TestEnsureReaderReshapesAChangedRole(t *testing.T) {
	ctx := context.Background()
	var b [4]byte
	rand.Read(b[:])
	role := "sqlgym_test_shape_" + hex.EncodeToString(b[:])
	conn, err := pgx.Connect(ctx, pgtest.Database(t))
	if err != nil {
		t.Fatal(err)
	}
	r := pgx.Identifier{role}.Sanitize()
	t.Cleanup(func() {
		conn.Exec(ctx, "DROP OWNED BY "+r)
		conn.Exec(ctx, "DROP ROLE IF EXISTS "+r)
		conn.Close(ctx)
	})
	if _, err := conn.Exec(ctx, "CREATE SCHEMA s; CREATE TABLE s.t (x int)"); err != nil {
		t.Fatal(err)
	}
	shaped := func() bool {
		var ok bool
		if err := conn.QueryRow(ctx, roleShapedQuery, role).Scan(&ok); err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if err := EnsureReader(ctx, conn, role, "s"); err != nil {
		t.Fatal(err)
	}
	if !shaped() {
		t.Fatal("the new role is not shaped")
	}
	for _, q := range []string{
		"ALTER ROLE " + r + " CREATEDB",
		"ALTER ROLE " + r + " RESET default_transaction_read_only",
		"ALTER ROLE " + r + " SET temp_file_limit = '5GB'",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
		if shaped() {
			t.Fatalf("after %s the role still counts as shaped", q)
		}
		if err := EnsureReader(ctx, conn, role, "s"); err != nil {
			t.Fatal(err)
		}
		if !shaped() {
			t.Errorf("after %s EnsureReader did not shape the role back", q)
		}
	}
}
