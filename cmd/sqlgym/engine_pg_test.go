package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// pgDataset creates a database of its own on the test server holding a
// schema with a small table, lets the reader role read it, and writes a
// JSONL dataset whose one task's db_id is that schema. It returns the
// dataset's folder, the database's URL and the schema.
func pgDataset(t *testing.T) (string, string, string) {
	t.Helper()
	base, schema := pgtest.Database(t), "shop"
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE SCHEMA shop;
CREATE TABLE shop.singer (singer_id integer PRIMARY KEY, name text NOT NULL, age integer, net_worth numeric(8, 2));
INSERT INTO shop.singer VALUES (1, 'Ana', 30, 1.50), (2, 'Bo', 41, 20), (3, 'Cy', 25, NULL);`)
	if err != nil {
		t.Fatal(err)
	}
	if err := postgres.EnsureReader(ctx, conn, postgres.DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	line := `{"task_id": "1", "db_id": "` + schema + `", "question": "Who is older than 28, oldest first?", ` +
		`"gold_sql": "SELECT name FROM singer WHERE age > 28 ORDER BY age DESC"}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "tasks.jsonl"), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, base, schema
}

func TestServeRunsAnEpisodeOnPostgres(t *testing.T) {
	dir, base, _ := pgDataset(t)
	args := []string{"--dataset", "pg=jsonl:" + dir, "--engine", "pg=" + base, "--data-dir", t.TempDir()}
	serveAndDrive(t, args, func(c *client.Client) {
		playOnEngine(t, c, "postgres", "PostgreSQL", "pg/1", []stepWant{
			{client.ToolCall("inspect_schema", map[string]any{}), "singer(singer_id integer, name text, age integer, net_worth numeric(8,2))"},
			{client.ToolCall("inspect_schema", map[string]any{"table": "singer"}), "Primary key: singer_id"},
			{client.ToolCall("execute_sql", sqlArgs("SELECT name, net_worth FROM singer ORDER BY singer_id")), "Ana"},
			{client.ToolCall("execute_sql", sqlArgs("SELEC name FROM singer")), `syntax error at or near "SELEC"`},
			{client.ToolCall("execute_sql", sqlArgs("DELETE FROM singer")), "statement denied"},
		}, "SELECT name FROM singer WHERE age >= 29 ORDER BY age DESC")
	})
	verifyPostgresUnchanged(t, base)
}

// verifyPostgresUnchanged checks that the server's superuser sees no
// session of the reader left in a transaction on the database dsn names
// (the test's own: other tests' sessions on other databases are between
// their BEGIN and their ROLLBACK at any time).
func verifyPostgresUnchanged(t *testing.T, dsn string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var open int
	q := "SELECT count(*) FROM pg_stat_activity WHERE usename = $1 AND datname = current_database() AND state LIKE 'idle in transaction%'"
	if err := conn.QueryRow(ctx, q, postgres.DefaultRole).Scan(&open); err != nil {
		t.Fatal(err)
	}
	if open != 0 {
		t.Errorf("%d sessions of %s left in a transaction", open, postgres.DefaultRole)
	}
}

func TestEngineFlagUsage(t *testing.T) {
	dir := t.TempDir()
	bird := filepath.Join("..", "..", "env", "datasets", "testdata", "bird_postgres")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--engine", "nope"}, "want NAME=postgres://URL"},
		{[]string{"serve", "--engine", "x=mysql://h/d"}, "without a database"},
		{[]string{"serve", "--engine", "x=oracle://h/d"}, "want a postgres:// or mysql:// URL"},
		{[]string{"serve", "--mysql-db-conns", "0"}, "--mysql-db-conns"},
		{[]string{"serve", "--dataset", "mini=bird:" + bird, "--data-dir", dir}, "give --engine mini=postgres://URL"},
		{[]string{"check", "--dataset", "mini=bird:" + bird}, "give --engine mini=postgres://URL"},
		{[]string{"serve", "--dataset", "mini=bird:" + bird, "--engine", "other=postgres://h/d", "--data-dir", dir}, "give --engine mini"},
		{[]string{"serve", "--pg-conns", "0"}, "--pg-conns and --pg-schema-conns must be at least 1"},
		{[]string{"serve", "--pg-schema-conns", "100", "--pg-conns", "5", "--addr", "256.0.0.1:0", "--token", "x"}, "--pg-schema-conns 100 is more than --pg-conns 5"},
		{[]string{"serve", "--pg-schema-conns", "x"}, "want a whole number"},
		// without --dataset the demo runs on SQLite: an --engine would be ignored
		{[]string{"serve", "--engine", "demo=postgres://h/d", "--data-dir", dir, "--addr", "256.0.0.1:0", "--token", "x"}, "--engine demo: no dataset of that name"},
	}
	for _, tc := range tests {
		_, _, err := sqlgym(t, tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("sqlgym %v: err = %v, want %q", tc.args, err, tc.want)
		}
		if !errors.As(err, new(usageError)) {
			t.Errorf("sqlgym %v: %T, want a usage error (exit status 2)", tc.args, err)
		}
	}
}

// TestPgSchemaConnsDefault: given --pg-conns alone, the per-schema bound
// is its default lowered to --pg-conns, not an error.
func TestPgSchemaConnsDefault(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int
	}{{nil, postgres.DefaultMaxSchemaConns}, {[]string{"--pg-conns", "5"}, 5}, {[]string{"--pg-conns", "5", "--pg-schema-conns", "3"}, 3}} {
		var e engineFlags
		fs := newFlagSet("serve", &strings.Builder{})
		e.register(fs)
		if err := parseFlags(fs, tc.args); err != nil {
			t.Fatal(err)
		}
		if err := e.parse(); err != nil || e.pgSchemaConns != tc.want {
			t.Errorf("%v: --pg-schema-conns %d, %v; want %d", tc.args, e.pgSchemaConns, err, tc.want)
		}
	}
}
