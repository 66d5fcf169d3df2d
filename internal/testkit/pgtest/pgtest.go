// Package pgtest gives tests a PostgreSQL schema of their own on the
// server SQLGYM_TEST_POSTGRES names (.ci/run sets it through
// scripts/postgres-up). Without the variable a test is skipped, except
// under CI=true, where it fails.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// EnvVar names the variable holding the test server's URL.
const EnvVar = "SQLGYM_TEST_POSTGRES"

// ServerURL is the test server's URL, or skips t (fails it under CI).
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvVar)
	if u == "" {
		needs.Missing(t, EnvVar+" is not set: the PostgreSQL tests need a server (scripts/postgres-up starts one)")
	}
	return u
}

// URL returns a URL whose search_path is a fresh schema name, so that
// what the test creates does not meet other tests' tables. The schema
// itself is not created (the store creates it); it is dropped, with
// everything in it, when the test ends.
func URL(t testing.TB) (string, string) {
	t.Helper()
	base := ServerURL(t)
	var b [6]byte
	rand.Read(b[:])
	schema := "sqlgym_test_" + hex.EncodeToString(b[:])
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	t.Cleanup(func() { drop(t, base, schema) })
	return u.String(), schema
}

// drop removes schema and everything in it.
func drop(t testing.TB, base, schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
		return
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		t.Errorf("drop schema %s: %v", schema, err)
	}
}

// Database creates a fresh database on the test server and returns its
// URL; the database is dropped, connections and all, when the test ends.
// It is for tests whose schemas have fixed names (one per db_id of an
// imported dataset), which would meet other tests' in a shared database.
func Database(t testing.TB) string {
	t.Helper()
	base := ServerURL(t)
	var b [6]byte
	rand.Read(b[:])
	name := "sqlgym_test_" + hex.EncodeToString(b[:])
	admin(t, base, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize())
	t.Cleanup(func() { admin(t, base, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	u.Path = "/" + name
	return u.String()
}

// admin runs one statement on the server's own database.
func admin(t testing.TB, base, stmt string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// Admin runs statements on the test server's own database as its URL's
// user, failing the test on the first that fails.
func Admin(t testing.TB, stmts ...string) {
	t.Helper()
	base := ServerURL(t)
	for _, stmt := range stmts {
		admin(t, base, stmt)
	}
}

// MissingDatabase is the URL of a database the test server does not
// hold, as user (the URL's own user when empty), and its name; the
// database is dropped when the test ends, if something made it.
func MissingDatabase(t testing.TB, user string) (dsn, name string) {
	t.Helper()
	u, err := url.Parse(ServerURL(t))
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	var b [6]byte
	rand.Read(b[:])
	name = "sqlgym_test_new_" + hex.EncodeToString(b[:])
	u.Path = "/" + name
	if user != "" {
		u.User = url.User(user)
	}
	t.Cleanup(func() { Admin(t, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)") })
	return u.String(), name
}

// NoCreateRole makes a login role that may not create databases, named
// afresh, and drops it when the test ends.
func NoCreateRole(t testing.TB) string {
	t.Helper()
	var b [4]byte
	rand.Read(b[:])
	user := "sqlgym_test_nocreate_" + hex.EncodeToString(b[:])
	Admin(t, "CREATE ROLE "+user+" LOGIN NOCREATEDB")
	t.Cleanup(func() { Admin(t, "DROP ROLE IF EXISTS "+user) })
	return user
}

// Schema creates a fresh schema on the test server and runs script in it
// (the schema first on the search path) as the server URL's user. It
// returns the server's URL and the schema, which is dropped, with
// everything in it, when the test ends.
func Schema(t testing.TB, script string) (string, string) {
	t.Helper()
	_, schema := URL(t)
	base := ServerURL(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	id := pgx.Identifier{schema}.Sanitize()
	all := "CREATE SCHEMA " + id + "; SET search_path = " + id + ";\n" + script
	if _, err := conn.Exec(ctx, all, pgx.QueryExecModeSimpleProtocol); err != nil {
		t.Fatal(err)
	}
	return base, schema
}

// Conn connects to the test server as the server URL's user; the
// connection is closed when the test ends.
func Conn(t testing.TB) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}
