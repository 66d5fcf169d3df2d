package dbimport

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// ImportMark is the comment CopyDB puts on each schema it creates. An
// import replaces an existing schema only if it carries this mark, so a
// db_id that happens to name some other schema never drops it.
const ImportMark = "sqlgym import"

// rowQuerier is what checkTarget needs of a connection or a transaction.
type rowQuerier interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// reservedSchema reports whether name is one of PostgreSQL's own schemas
// (public, information_schema, pg_*), compared without regard to case.
func reservedSchema(name string) bool {
	n := strings.ToLower(name)
	return n == "public" || n == "information_schema" || strings.HasPrefix(n, "pg_")
}

// checkTarget says whether schema may be (re)created by an import: it
// must not be one of PostgreSQL's own, and if it exists it must carry
// ImportMark.
func checkTarget(ctx context.Context, q rowQuerier, schema string) error {
	if reservedSchema(schema) {
		return fmt.Errorf("db_id %q names a PostgreSQL schema (public, information_schema and pg_* are PostgreSQL's own): rename the database in the dataset", schema)
	}
	var comment *string
	err := q.QueryRow(ctx, "SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = $1", schema).Scan(&comment)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("look up schema %q: %w", schema, err)
	}
	if comment == nil || *comment != ImportMark {
		return fmt.Errorf("schema %q already exists and was not made by sqlgym import, so it is left alone: drop or rename it, or import into another database (--dsn)", schema)
	}
	return nil
}

// CheckTargets checks every schema an import of ids would replace, before
// anything is copied; see checkTarget.
func CheckTargets(ctx context.Context, conn *pgx.Conn, ids []string) error {
	for _, id := range ids {
		if err := checkTarget(ctx, conn, id); err != nil {
			return err
		}
	}
	return nil
}
