package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Beginner starts a transaction: a *pgx.Conn, a *pgxpool.Pool or a
// pgx.Tx.
type Beginner interface {
	Begin(ctx context.Context) (pgx.Tx, error)
}

// roleLock is the advisory lock EnsureReader holds while it changes a
// role, so that two imports (or tests) at once on one database do not
// trip on each other's CREATE ROLE and GRANT. Roles belong to the whole
// server and advisory locks to one database: callers on different
// databases can still meet, and EnsureReader tries again when they do.
const roleLock = 0x5_0179_6E00

// EnsureReader makes role a role that can log in and only read the given
// schemas, creating it when it is missing: LOGIN without SUPERUSER,
// CREATEDB, CREATEROLE, REPLICATION or BYPASSRLS, a member of no other
// role, read-only by default, its temporary files (a large sort's)
// bounded by temp_file_limit = 1GB, which only a superuser can raise, with USAGE on each schema and SELECT on
// each table in it, and no CREATE on them. It is idempotent and leaves
// the role's grants on other schemas alone. The caller's connection
// must be allowed to create roles and grant on the schemas (a superuser,
// or the schemas' owner with CREATEROLE). The role has no password:
// trust or peer authentication, or a password set apart (ALTER ROLE ...
// PASSWORD, with a password file on the serving side), let it log in.
//
// What every role holds through PUBLIC (CONNECT and TEMPORARY on the
// database, EXECUTE on functions) stays: the engine's READ ONLY
// transactions refuse every write those would allow, and the functions
// that reach files or programs need privileges the role lacks.
func EnsureReader(ctx context.Context, conn Beginner, role string, schemas ...string) error {
	if role == "" {
		return errors.New("ensure reader: empty role name")
	}
	var err error
	for attempt := 1; ; attempt++ {
		if err = ensureReaderOnce(ctx, conn, role, schemas); err == nil || attempt == roleAttempts || !concurrentCatalogChange(err) {
			break
		}
		select { // another database's EnsureReader changed the role meanwhile: try again
		case <-time.After(time.Duration(attempt)*10*time.Millisecond + time.Duration(rand.Int64N(int64(10*time.Millisecond)))):
		case <-ctx.Done():
			return fmt.Errorf("ensure reader %s: %w", role, ctx.Err())
		}
	}
	if err != nil {
		return fmt.Errorf("ensure reader %s: %w", role, err)
	}
	return nil
}

// roleAttempts is how many times EnsureReader tries when another session
// changes the role at the same time.
const roleAttempts = 5

// concurrentCatalogChange reports whether err is a role or grant changed
// by another session at the same moment: roles are shared by every
// database of a server, and the advisory lock only serialises callers on
// the same database.
func concurrentCatalogChange(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "XX000": // tuple concurrently updated
		return strings.Contains(pe.Message, "concurrently")
	case "40001", "40P01", "23505", "42710": // serialization, deadlock, unique violation, role created meanwhile
		return true
	}
	return false
}

// ensureReaderOnce is one attempt of EnsureReader, in one transaction.
func ensureReaderOnce(ctx context.Context, conn Beginner, role string, schemas []string) error {
	return pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(roleLock)); err != nil {
			return err
		}
		if err := createRole(ctx, tx, role); err != nil {
			return err
		}
		qs, err := readerStatements(ctx, tx, role, schemas)
		if err != nil {
			return err
		}
		for _, q := range qs {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return revokeMemberships(ctx, tx, role)
	})
}

// createRole creates role, with LOGIN, unless it exists.
func createRole(ctx context.Context, tx pgx.Tx, role string) error {
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", role).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	q := "CREATE ROLE " + pgx.Identifier{role}.Sanitize() + " LOGIN"
	if _, err := tx.Exec(ctx, q); err != nil {
		return fmt.Errorf("%s: %w", q, err)
	}
	return nil
}

// readerStatements are the statements that shape role. The role-wide
// ones are left out when the role is shaped already: a role is one row
// shared by every database of the server, and altering it while
// another database's EnsureReader does fails one of them with "tuple
// concurrently updated", which no per-database lock prevents.
func readerStatements(ctx context.Context, tx pgx.Tx, role string, schemas []string) ([]string, error) {
	r := pgx.Identifier{role}.Sanitize()
	var shaped bool
	if err := tx.QueryRow(ctx, roleShapedQuery, role).Scan(&shaped); err != nil {
		return nil, err
	}
	var qs []string
	if !shaped {
		qs = []string{
			"ALTER ROLE " + r + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS INHERIT",
			"ALTER ROLE " + r + " SET default_transaction_read_only = on",
			"ALTER ROLE " + r + " SET temp_file_limit = '1GB'",
		}
	}
	for _, s := range schemas {
		sch := pgx.Identifier{s}.Sanitize()
		qs = append(qs,
			"GRANT USAGE ON SCHEMA "+sch+" TO "+r,
			"REVOKE CREATE ON SCHEMA "+sch+" FROM "+r,
			"GRANT SELECT ON ALL TABLES IN SCHEMA "+sch+" TO "+r,
			"REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA "+sch+" FROM "+r,
		)
	}
	return qs, nil
}

// roleShapedQuery reports whether role $1 has the attributes and the
// role-wide settings the ALTER ROLE statements of readerStatements give.
const roleShapedQuery = `SELECT rolcanlogin AND NOT rolsuper AND NOT rolcreatedb AND NOT rolcreaterole
  AND NOT rolreplication AND NOT rolbypassrls AND rolinherit
  AND coalesce(rolconfig @> ARRAY['default_transaction_read_only=on', 'temp_file_limit=1GB'], false)
FROM pg_roles WHERE rolname = $1`

// revokeMemberships takes role out of every role it is a member of
// (pg_read_server_files, pg_execute_server_program, ...).
func revokeMemberships(ctx context.Context, tx pgx.Tx, role string) error {
	rows, err := tx.Query(ctx, `SELECT g.rolname FROM pg_auth_members m
JOIN pg_roles g ON g.oid = m.roleid JOIN pg_roles u ON u.oid = m.member WHERE u.rolname = $1`, role)
	if err != nil {
		return err
	}
	groups, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, g := range groups {
		q := "REVOKE " + pgx.Identifier{g}.Sanitize() + " FROM " + pgx.Identifier{role}.Sanitize()
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}
