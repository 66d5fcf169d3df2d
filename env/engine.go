package env

import "context"

// Engine opens the databases of one dialect.
type Engine interface {
	// Dialect names the SQL dialect of the databases it opens: the
	// Catalog hands it the datasets of that dialect.
	Dialect() Dialect
	// Open opens the database at source (a file path for SQLite, a
	// connection string for PostgreSQL), read-only.
	Open(ctx context.Context, source string) (DB, error)
}
