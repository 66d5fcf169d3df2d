package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// The import of a small Spider-layout dataset: a gold in SQLite's dialect
// rewritten and verified, one kept as written, one only SQLite runs kept
// as answer rows; the JSONL written loads as a postgres dataset.
func TestImportCommand(t *testing.T) {
	dsn := pgtest.Database(t)
	ds := checkSpiderDir(t,
		`SELECT count(*) FROM item WHERE name = "pen"`,
		"SELECT name FROM item ORDER BY price",
		"SELECT name, max(price), id FROM item",
	)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"import", "--dataset", ds, "--engine", dsn, "--out", out, "--role", "sqlgym_test_import"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("import: %v\n%s", err, stderr.String())
	}
	dropRole(t, dsn, "sqlgym_test_import")
	for _, want := range []string{"dataset shop: 1 databases, 3 rows copied", "kept as written 1, rewritten and verified 1, answer rows only 1",
		"answer_only 2 (shop)", "jsonl:" + out} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if !strings.Contains(stderr.String(), "copy 1/1: shop") || !strings.Contains(stderr.String(), "verify 3/3 golds") {
		t.Errorf("stderr (a pipe) lacks the plain progress lines:\n%s", stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(out, "tasks.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || len(lines) != 3 {
		t.Fatalf("%d lines, first %v (%v); want 3", len(lines), first, err)
	}
	if first["gold_sql"] != `SELECT count(*) FROM item WHERE name = 'pen'` || first["dialect"] != "postgres" ||
		first["sqlite_gold_sql"] != `SELECT count(*) FROM item WHERE name = "pen"` {
		t.Errorf("first task = %v", first)
	}
	if _, err := loadDataset("pg=jsonl:"+out, &engineFlags{servers: map[string]string{"pg": dsn}}, datasets.Load); err != nil {
		t.Errorf("the imported dataset does not load: %v", err)
	}
}

func TestImportCommandErrors(t *testing.T) {
	ds := checkSpiderDir(t, "SELECT 1")
	closed := closedPort(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no dsn", []string{"--dataset", ds, "--out", "x"}, "--engine is required"},
		{"bad dsn", []string{"--dataset", ds, "--engine", "postgres://a@b:notaport/c", "--out", "x"}, "--engine"},
		{"not a url", []string{"--dataset", ds, "--engine", "host=127.0.0.1 user=postgres", "--out", "x"}, "--engine: want a postgres:// URL"},
		{"missing dataset", []string{"--dataset", "spider:" + filepath.Join(t.TempDir(), "none"), "--engine", "postgres://x@127.0.0.1/x", "--out", "x"}, "no such file"},
		{"unreachable", []string{"--dataset", ds, "--engine", "postgres://x@" + closed + "/x?sslmode=disable", "--out", "x"}, "connect to PostgreSQL at 127.0.0.1"},
		{"mysql with a database", []string{"--dataset", ds, "--engine", "mysql://root@127.0.0.1:3306/shop", "--out", "x"}, "--engine: server URL: want mysql://USER@HOST:PORT/ without a database"},
		{"mysql unreachable", []string{"--dataset", ds, "--engine", "mysql://x@" + closed + "/", "--out", "x"}, "connect to MySQL at " + closed},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), append([]string{"import"}, tt.args...), &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v; want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// closedPort is a local address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// dropRole drops a role the test made, and its schemas' roles
// (postgres.SchemaRole), with their grants: roles outlive the test's
// database.
func dropRole(t *testing.T, dsn, role string) {
	t.Helper()
	ctx := context.Background()
	conn, err := connectPostgres(ctx, dsn, 0, io.Discard)
	if err != nil {
		t.Errorf("drop role %s: %v", role, err)
		return
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, "SELECT quote_ident(rolname) FROM pg_roles WHERE rolname = $1 OR starts_with(rolname, $1 || '.')", role)
	var roles []string
	if err == nil {
		roles, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err == nil && len(roles) > 0 {
		list := strings.Join(roles, ", ")
		_, err = conn.Exec(ctx, "DROP OWNED BY "+list+"; DROP ROLE "+list)
	}
	if err != nil {
		t.Errorf("drop role %s: %v", role, err)
	}
}
