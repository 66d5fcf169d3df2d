package pgimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DefaultReaderRole is the role GrantReader creates when given none.
const DefaultReaderRole = "sqlgym_reader"

// GrantReader makes role (created NOLOGIN if missing, reused otherwise)
// able to read the imported schemas and nothing more: USAGE on each
// schema and SELECT on its tables. A schema replaced by a new import
// loses its grants with it, so the import calls this after every copy.
func GrantReader(ctx context.Context, conn *pgx.Conn, role string, schemas []string) error {
	if role == "" {
		role = DefaultReaderRole
	}
	r := quotePG(role)
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", role).Scan(&exists); err != nil {
		return fmt.Errorf("reader role %s: %w", role, err)
	}
	if !exists {
		_, err := conn.Exec(ctx, "CREATE ROLE "+r+" NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT")
		var pe *pgconn.PgError
		if err != nil && !(errors.As(err, &pe) && pe.Code == "42710") { // duplicate_object: made meanwhile
			return fmt.Errorf("reader role %s: %w", role, err)
		}
	}
	for _, s := range schemas {
		q := quotePG(s)
		stmt := "GRANT USAGE ON SCHEMA " + q + " TO " + r + "; GRANT SELECT ON ALL TABLES IN SCHEMA " + q + " TO " + r
		if _, err := conn.Exec(ctx, stmt); err != nil {
			return fmt.Errorf("reader role %s: schema %s: %w", role, s, err)
		}
	}
	return nil
}
