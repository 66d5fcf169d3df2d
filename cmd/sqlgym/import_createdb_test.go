package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// import into a database that does not exist creates it, and says so.
func TestImportCreatesItsDatabase(t *testing.T) {
	dsn, name := pgtest.MissingDatabase(t, "")
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
	user := pgtest.NoCreateRole(t)
	dsn, name := pgtest.MissingDatabase(t, user)
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
