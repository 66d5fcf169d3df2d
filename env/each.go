package env

import "context"

// RowStreamer is implemented by a DB that can hand a statement's rows to
// a function one at a time instead of keeping them, so that a caller
// reading many rows (the value index's build) holds none of them.
type RowStreamer interface {
	// QueryEach runs one read-only statement as Query does, within lim's
	// Timeout and MaxCellBytes (MaxRows and MaxResultBytes do not apply:
	// no row is kept), and calls each with its rows in turn until it
	// returns false or they end. The row's slice is reused from call to
	// call: each keeps its values (strings, numbers) but not the slice.
	QueryEach(ctx context.Context, sql string, lim Limits, each func(row []any) bool) error
}
