package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

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

// EnsureReader makes role a role that can log in and read nothing of
// its own, and gives it, for each of the given schemas, a role of that
// schema's (SchemaRole) that can only read it: the engine switches to the
// schema's role (SET LOCAL ROLE) for each call, so a statement of one
// task's database sees no other database's tables, and the query text of
// every other session is hidden from it (pg_stat_activity shows a
// session's query only to roles with the privileges of its login role).
//
// The login role gets LOGIN and NOINHERIT, without SUPERUSER, CREATEDB,
// CREATEROLE, REPLICATION or BYPASSRLS, a member of its schemas' roles
// only; its session defaults are read-only transactions, temporary files
// bounded by temp_file_limit = 1GB, and no server-log lines for its
// errors (log_min_messages = fatal, log_min_error_statement = panic), so
// that a statement's text or values never reach the server's log files.
// Each schema's role cannot log in, may use the schema and SELECT every
// table in it, and nothing else; the login role's own grants on those
// schemas, which older versions gave, are revoked. It is idempotent and
// leaves the role's other schemas alone. The caller's connection must be
// a superuser's: the session defaults above may only be set by one. The
// login role has no password: trust or peer authentication, or a
// password set apart (ALTER ROLE ... PASSWORD, with a password file on
// the serving side), let it log in.
//
// What every role holds through PUBLIC (CONNECT and TEMPORARY on the
// database, EXECUTE on functions, SELECT on the catalogs) stays: the
// engine's READ ONLY transactions refuse every write those would allow,
// the functions that reach files or programs need privileges the role
// lacks, and the engine refuses statements that name the catalogs and
// functions that would tell of other sessions or schemas, or write
// (functions.go).
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
		if err := createRole(ctx, tx, role, "LOGIN"); err != nil {
			return err
		}
		for _, s := range schemas {
			if err := createRole(ctx, tx, SchemaRole(role, s), "NOLOGIN"); err != nil {
				return err
			}
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
		return revokeMemberships(ctx, tx, role, schemas)
	})
}

// createRole creates role, with attrs (LOGIN or NOLOGIN), unless it
// exists.
func createRole(ctx context.Context, tx pgx.Tx, role, attrs string) error {
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_roles WHERE rolname = $1)", role).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return nil
	}
	q := "CREATE ROLE " + pgx.Identifier{role}.Sanitize() + " " + attrs
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
			"ALTER ROLE " + r + " LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT",
			"ALTER ROLE " + r + " SET default_transaction_read_only = on",
			"ALTER ROLE " + r + " SET temp_file_limit = '1GB'",
			"ALTER ROLE " + r + " SET log_min_messages = fatal",
			"ALTER ROLE " + r + " SET log_min_error_statement = panic",
		}
	}
	for _, s := range schemas {
		more, err := schemaStatements(ctx, tx, r, role, s)
		if err != nil {
			return nil, err
		}
		qs = append(qs, more...)
	}
	return qs, nil
}

// schemaStatements shape schema s's role and make the login role (role,
// r as an identifier) a member of it, with no privileges of its own on s.
// The role-wide statements are left out when they are in force already:
// altering a role another database's EnsureReader alters too fails one
// of them (roles are shared by every database of the server).
func schemaStatements(ctx context.Context, tx pgx.Tx, r, role, s string) ([]string, error) {
	sr := pgx.Identifier{SchemaRole(role, s)}.Sanitize()
	var shaped, member bool
	if err := tx.QueryRow(ctx, schemaRoleQuery, SchemaRole(role, s), role).Scan(&shaped, &member); err != nil {
		return nil, err
	}
	var qs []string
	if !shaped {
		qs = append(qs, "ALTER ROLE "+sr+" NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS NOINHERIT")
	}
	sch := pgx.Identifier{s}.Sanitize()
	qs = append(qs,
		"REVOKE ALL ON SCHEMA "+sch+" FROM "+r,
		"REVOKE ALL ON ALL TABLES IN SCHEMA "+sch+" FROM "+r,
		"GRANT USAGE ON SCHEMA "+sch+" TO "+sr,
		"REVOKE CREATE ON SCHEMA "+sch+" FROM "+sr,
		"GRANT SELECT ON ALL TABLES IN SCHEMA "+sch+" TO "+sr,
		"REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA "+sch+" FROM "+sr,
	)
	if !member {
		qs = append(qs, "GRANT "+sr+" TO "+r)
	}
	return qs, nil
}

// schemaRoleQuery reports whether schema role $1 has the attributes
// schemaStatements gives it, and whether login role $2 is its member.
const schemaRoleQuery = `SELECT NOT r.rolcanlogin AND NOT r.rolsuper AND NOT r.rolcreatedb AND NOT r.rolcreaterole
  AND NOT r.rolreplication AND NOT r.rolbypassrls AND NOT r.rolinherit,
  EXISTS (SELECT FROM pg_auth_members m JOIN pg_roles u ON u.oid = m.member WHERE m.roleid = r.oid AND u.rolname = $2)
FROM pg_roles r WHERE r.rolname = $1`

// roleShapedQuery reports whether role $1 has the attributes and the
// role-wide settings the ALTER ROLE statements of readerStatements give.
const roleShapedQuery = `SELECT rolcanlogin AND NOT rolsuper AND NOT rolcreatedb AND NOT rolcreaterole
  AND NOT rolreplication AND NOT rolbypassrls AND NOT rolinherit
  AND coalesce(rolconfig @> ARRAY['default_transaction_read_only=on', 'temp_file_limit=1GB',
    'log_min_messages=fatal', 'log_min_error_statement=panic'], false)
FROM pg_roles WHERE rolname = $1`

// revokeMemberships takes role out of every role it is a member of
// (pg_read_server_files, pg_execute_server_program, ...) but the given
// schemas' roles, and takes those out of every role they are members of.
func revokeMemberships(ctx context.Context, tx pgx.Tx, role string, schemas []string) error {
	keep := map[string]bool{}
	for _, s := range schemas {
		keep[SchemaRole(role, s)] = true
		if err := revokeAll(ctx, tx, SchemaRole(role, s), nil); err != nil {
			return err
		}
	}
	return revokeAll(ctx, tx, role, func(g string) bool {
		return keep[g] || strings.HasPrefix(g, role+".")
	})
}

// revokeAll revokes role's memberships, except in the roles kept says
// (nil: none) are kept.
func revokeAll(ctx context.Context, tx pgx.Tx, role string, kept func(string) bool) error {
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
		if kept != nil && kept(g) {
			continue
		}
		q := "REVOKE " + pgx.Identifier{g}.Sanitize() + " FROM " + pgx.Identifier{role}.Sanitize()
		if _, err := tx.Exec(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

// SchemaRole is the name of the role that reads schema for the login
// role login: "login.schema", cut to PostgreSQL's 63 bytes with a hash
// of the whole name when longer, so that two long schema names never
// share a role.
func SchemaRole(login, schema string) string {
	name := login + "." + schema
	if len(name) <= maxIdentBytes {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "~" + hex.EncodeToString(sum[:4])
	cut := maxIdentBytes - len(tail)
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return name[:cut] + tail
}

// maxIdentBytes is PostgreSQL's longest identifier (NAMEDATALEN - 1).
const maxIdentBytes = 63
