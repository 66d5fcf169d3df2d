package dbimport

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// PostgreSQL's SQLSTATEs import reads (a database that does not exist,
// a privilege the user lacks) and the database it creates another from.
const (
	pgNoDatabase  = "3D000"
	pgNoPrivilege = "42501"
	maintenanceDB = "postgres"
)

// ConnectCreating connects to the database cfg names, and creates it
// first where it does not exist, when cfg's user may (CREATE DATABASE,
// run on the server's maintenance database): a fresh server holds only
// postgres. created, when not nil, is called once it has made the
// database. A user who may not gets an error saying how to make it.
func ConnectCreating(ctx context.Context, cfg *pgx.ConnConfig, created func()) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	var pgErr *pgconn.PgError
	if err == nil || !errors.As(err, &pgErr) || pgErr.Code != pgNoDatabase || cfg.Database == maintenanceDB {
		return conn, err
	}
	if err := createDatabase(ctx, cfg); err != nil {
		return nil, err
	}
	if created != nil {
		created()
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// createDatabase runs CREATE DATABASE cfg.Database as cfg's user,
// connected to the maintenance database.
func createDatabase(ctx context.Context, cfg *pgx.ConnConfig) error {
	admin := cfg.Copy()
	admin.Database = maintenanceDB
	conn, err := pgx.ConnectConfig(ctx, admin)
	if err != nil {
		return fmt.Errorf("database %q does not exist, and creating it failed: connect to %s: %w%s", cfg.Database, maintenanceDB, err, createHint(cfg))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{cfg.Database}.Sanitize())
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42P04": // made meanwhile by another
		return nil
	case errors.As(err, &pgErr) && pgErr.Code == pgNoPrivilege:
		return fmt.Errorf("database %q does not exist, and user %q may not create it (%s)%s", cfg.Database, cfg.User, pgErr.Message, createHint(cfg))
	case err != nil:
		return fmt.Errorf("database %q does not exist, and creating it failed: %w%s", cfg.Database, err, createHint(cfg))
	}
	return nil
}

// createHint says how to make the database by hand.
func createHint(cfg *pgx.ConnConfig) string {
	return fmt.Sprintf("\n  create it as a user who may: createdb -h %s -p %d -U postgres -O %s %s  (or: CREATE DATABASE %s OWNER %s;)\n  or give --engine a database that exists (postgres://%s@%s:%d/postgres)",
		cfg.Host, cfg.Port, cfg.User, cfg.Database, pgx.Identifier{cfg.Database}.Sanitize(), pgx.Identifier{cfg.User}.Sanitize(), cfg.User, cfg.Host, cfg.Port)
}
