package dbimport

import (
	"context"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// TestCopyDBLeavesForeignSchemas: a db_id naming one of PostgreSQL's own
// schemas, or a schema the import did not make, is refused, and the
// schema keeps its table; a schema an import made is replaced.
func TestCopyDBLeavesForeignSchemas(t *testing.T) {
	ctx := context.Background()
	conn := connect(t, pgtest.Database(t))
	src := openLoose(t)
	if _, err := conn.Exec(ctx, `CREATE TABLE public.keep (x int); CREATE SCHEMA "Other"; CREATE TABLE "Other".keep (x int)`); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{
		"public":     "PostgreSQL's own",
		"pg_extra":   "PostgreSQL's own",
		"Other":      `schema "Other" already exists and was not made by sqlgym import`,
		"Public":     "PostgreSQL's own",
		"pg_catalog": "PostgreSQL's own",
	} {
		if _, err := CopyDB(ctx, src, conn, id, CopyConfig{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CopyDB %s: %v; want an error saying %q", id, err, want)
		}
		if err := CheckTargets(ctx, conn, []string{"fine", id}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckTargets %s: %v; want an error saying %q", id, err, want)
		}
	}
	for _, table := range []string{"public.keep", `"Other".keep`} {
		if _, err := conn.Exec(ctx, "SELECT * FROM "+table); err != nil {
			t.Errorf("%s after the refused imports: %v", table, err)
		}
	}
	for range 2 {
		if _, err := CopyDB(ctx, src, conn, "Mine", CopyConfig{}); err != nil {
			t.Fatalf("CopyDB Mine (again): %v", err)
		}
	}
	var mark string
	if err := conn.QueryRow(ctx, `SELECT obj_description('"Mine"'::regnamespace, 'pg_namespace')`).Scan(&mark); err != nil || mark != ImportMark {
		t.Errorf("comment on Mine: %q, %v; want %q", mark, err, ImportMark)
	}
}
