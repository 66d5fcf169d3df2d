package env

import "context"

// RowSpanner is implemented by a DB that can read a table's rows by
// ranges of their place in its storage (SQLite's rowid, a PostgreSQL
// page) without reading the rest of the table. describe_column reads a
// large table through it: runs of rows spread evenly over the span, so
// that its work is bounded whatever the table's size.
type RowSpanner interface {
	// RowSpan returns where table's rows lie. A table whose rows have no
	// such place (a SQLite WITHOUT ROWID table, a PostgreSQL partitioned
	// or foreign table) gets a Span with an empty Position, not an error;
	// an unknown table is a *QueryError of kind ErrNoSuchTable.
	RowSpan(ctx context.Context, table string) (Span, error)
}

// Span is where a table's rows lie, by position.
type Span struct {
	// Position is the SQL expression, in the engine's dialect, of a
	// row's position: an integer ("" when the rows have none).
	Position string
	// Range is the SQL condition that holds for the rows at positions a
	// to b, b excluded, with two %d verbs for a and b. The engine reads
	// those rows, in the order of their positions, without a scan of the
	// table.
	Range string
	// Lo and Hi bound the positions: every row's is in [Lo, Hi).
	Lo, Hi int64
	// Shared is set when one position holds several rows (a page), unset
	// when it holds at most one (a rowid).
	Shared bool
	// Unit names a position as a reply says it: "rowid", "page".
	Unit string
	// PerPosition is about how many rows a position holds: 1 for a
	// rowid (fewer where rowids were skipped), the rows of a page from
	// the engine's statistics or a count of the table's first pages. A
	// sample reads runs of positions sized from it.
	PerPosition float64
	// Rows is the table's row count from the engine's own statistics
	// (PostgreSQL's reltuples, scaled to the table's pages now), or -1
	// when it keeps none.
	Rows int64
}
