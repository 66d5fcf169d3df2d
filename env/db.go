package env

import (
	"context"
	"time"
)

// DB is one database of a dataset, opened read-only. Every method is safe
// for concurrent use; a cancelled context stops the work in progress.
type DB interface {
	// Query runs one read-only statement within the limits. A failure that
	// the model caused (bad SQL, a timeout, a denied statement) is a
	// *QueryError; any other error is the server's.
	Query(ctx context.Context, sql string, lim Limits) (*ResultSet, error)
	// Tables lists every table with its columns and types.
	Tables(ctx context.Context) ([]Table, error)
	// Describe returns one table's columns, keys, foreign keys and up to
	// samples rows. An unknown table is a *QueryError of kind ErrNoSuchTable.
	Describe(ctx context.Context, table string, samples int) (*Table, error)
	// Close releases the database.
	Close() error
}

// Immutable is implemented by a DB whose tables, schema and rows cannot
// change while it is open, such as a SQLite file opened immutable. What is
// read of such a database (the text inspect_schema shows, for one) may be
// kept and served again for as long as it is open. A DB that does not
// implement Immutable, or reports false, is read afresh on every call.
// Implementations are pointer types: callers key caches by the DB value.
type Immutable interface {
	// Immutable reports whether the database's content is fixed while it
	// is open.
	Immutable() bool
}

// Limits bound one statement's work.
type Limits struct {
	Timeout        time.Duration // wall time of the statement, reading included
	MaxRows        int           // rows kept; one more is read to set Truncated
	MaxCellBytes   int           // longer text or blob values are cut and marked
	MaxResultBytes int           // rows stop once their cells add up to this
	// Reads asks for the tables and columns the statement reads
	// (ResultSet.ReadTables and ReadColumns), which only scoring uses;
	// without it they are nil and the engine spends nothing on them (a
	// PostgreSQL plan read, SQLite's records of each column read).
	Reads bool
}

// ResultSet is what a statement returned. Values are nil, int64, float64,
// string or []byte.
type ResultSet struct {
	Columns []string
	Rows    [][]any
	// Truncated is set when more rows (or bytes) were there than kept.
	Truncated bool
	Elapsed   time.Duration
	// ReadColumns are the "table.column" pairs the statement read, in lower
	// case, sorted, without repeats, as the engine reports them.
	ReadColumns []string
	// ReadTables are the tables of the database the statement read, in
	// lower case, sorted, without repeats, as the engine reports them:
	// those read for their rows alone (SELECT count(*) FROM t) too, and
	// not the engine's own catalogs (sqlite_*, pg_catalog).
	ReadTables []string
}

// Table describes one table.
type Table struct {
	Name        string
	Columns     []Column
	PrimaryKey  []string
	ForeignKeys []ForeignKey
	Samples     *ResultSet // a few rows; nil from Tables
}

// Column describes one column.
type Column struct {
	Name    string
	Type    string
	NotNull bool
}

// ForeignKey is one foreign-key constraint.
type ForeignKey struct {
	Columns    []string
	RefTable   string
	RefColumns []string
}

// TieKeyer is implemented by a DB whose ORDER BY ties some values that
// differ: MySQL's default collations compare text without regard to
// case, accents or trailing spaces. TieKey maps a value to what the
// engine's ordering compares, so that two values tie exactly when their
// keys are equal. A DB that does not implement it ties only equal values.
type TieKeyer interface {
	TieKey(v any) any
}
