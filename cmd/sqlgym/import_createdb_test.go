package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// pgAdmin runs statements on the test server's own database.
func pgAdmin(t *testing.T, stmts ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// missingDatabase is the URL of a database the test server does not
// hold, as user (the URL's own user when empty); it is dropped when the
// test ends, if made.
func missingDatabase(t *testing.T, user string) (dsn, name string) {
	t.Helper()
	u, err := url.Parse(pgtest.ServerURL(t))
	if err != nil {
		t.Fatal(err)
	}
	var b [6]byte
	rand.Read(b[:])
	name = "sqlgym_test_new_" + hex.EncodeToString(b[:])
	u.Path = "/" + name
	if user != "" {
		u.User = url.User(user)
	}
	t.Cleanup(func() { pgAdmin(t, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)") })
	return u.String(), name
}

// import into a database that does not exist creates it, and says so.
func TestImportCreatesItsDatabase(t *testing.T) {
	dsn, name := missingDatabase(t, "")
	ds := checkSpiderDir(t, "SELECT count(*) FROM item")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"import", "--dataset", ds, "--engine", dsn,
		"--out", filepath.Join(t.TempDir(), "out"), "--role", "sqlgym_test_createdb"}, &stdout, &stderr)
	dropRole(t, dsn, "sqlgym_test_createdb")
	if err != nil {
		t.Fatalf("import into a new database: %v\n%s", err, &stderr)
	}
	if !strings.Contains(stderr.String(), "created database "+name) {
		t.Errorf("import did not say it created %s:\n%s", name, &stderr)
	}
}

// A user who may not create the database gets an error saying how to
// make it.
func TestImportSaysHowToCreateItsDatabase(t *testing.T) {
	var b [4]byte
	rand.Read(b[:])
	user := "sqlgym_test_nocreate_" + hex.EncodeToString(b[:])
	pgAdmin(t, "CREATE ROLE "+user+" LOGIN NOCREATEDB")
	t.Cleanup(func() { pgAdmin(t, "DROP ROLE IF EXISTS "+user) })
	dsn, name := missingDatabase(t, user)
	ds := checkSpiderDir(t, "SELECT count(*) FROM item")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"import", "--dataset", ds, "--engine", dsn,
		"--out", filepath.Join(t.TempDir(), "out")}, &stdout, &stderr)
	if err == nil {
		t.Fatal("import as a user who may not create the database succeeded")
	}
	for _, want := range []string{`database "` + name + `" does not exist`, `user "` + user + `" may not create it`, "createdb -h", `CREATE DATABASE "` + name + `" OWNER "` + user + `"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error lacks %q:\n%v", want, err)
		}
	}
}
