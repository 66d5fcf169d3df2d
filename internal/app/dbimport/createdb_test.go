package dbimport

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestConnectCreating: a database that does not exist is made, once,
// and said; one that exists is connected to without a word.
func TestConnectCreating(t *testing.T) {
	ctx := context.Background()
	dsn, name := pgtest.MissingDatabase(t, "")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	made := 0
	for range 2 {
		conn, err := ConnectCreating(ctx, cfg, func() { made++ })
		if err != nil {
			t.Fatal(err)
		}
		var db string
		err = conn.QueryRow(ctx, "SELECT current_database()").Scan(&db)
		conn.Close(ctx)
		if err != nil || db != name {
			t.Fatalf("connected to %q (%v), want %s", db, err, name)
		}
	}
	if made != 1 {
		t.Errorf("created called %d times, want once: the second connection found the database", made)
	}
}

// TestConnectCreatingSaysHow: a user who may not create the database
// gets an error saying how to make it, naming the database and user.
func TestConnectCreatingSaysHow(t *testing.T) {
	user := pgtest.NoCreateRole(t)
	dsn, name := pgtest.MissingDatabase(t, user)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := ConnectCreating(context.Background(), cfg, func() { t.Error("created called, but the user may not create") })
	if err == nil {
		conn.Close(context.Background())
		t.Fatal("connected although the database does not exist")
	}
	for _, want := range []string{"may not create it", "createdb -h", "-O " + user + " " + name} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}
