package sandbox

import (
	"fmt"
	"unicode/utf8"

	"github.com/sqlgym/sqlgym/env"
)

// CutMark ends a text cell that was cut to Limits.MaxCellBytes.
const CutMark = "…"

// What a row costs in memory besides its text and blob bytes, counted
// towards env.Limits.MaxResultBytes: a row's slice header, an interface
// per cell (NULL and empty strings included, so a result of empty cells
// is bounded too), and the boxed value of a number.
const (
	rowBytes    = 24
	cellBytes   = 16
	numberBytes = 8
)

// Ceilings bound a result whose env.Limits leave rows or bytes
// unlimited: past them the statement fails with env.ErrTooLarge instead
// of exhausting memory.
type Ceilings struct {
	Rows  int
	Bytes int
}

// Collector keeps the rows of one result within its bounds: at most
// Limits.MaxRows rows (one more is offered to set Truncated), text and
// blob cells cut to MaxCellBytes, and rows kept only while their sizes
// add up to no more than MaxResultBytes. Past the ceilings it fails with
// env.ErrTooLarge. A Collector is used by one goroutine.
type Collector struct {
	lim   env.Limits
	ceil  Ceilings
	rs    *env.ResultSet
	total int
	done  bool
}

// NewCollector returns a collector of the rows of a result with the
// given columns.
func NewCollector(columns []string, lim env.Limits, ceil Ceilings) *Collector {
	return &Collector{lim: lim, ceil: ceil, rs: &env.ResultSet{Columns: columns, Rows: [][]any{}}}
}

// Want is how many rows the engine needs to read at most: the row cap
// plus one (which only sets Truncated), or the ceiling plus one.
func (c *Collector) Want() int {
	if c.lim.MaxRows > 0 && c.lim.MaxRows < c.ceil.Rows {
		return c.lim.MaxRows + 1
	}
	return c.ceil.Rows + 1
}

// Add offers one row, whose values are nil, int64, float64, bool, string
// or []byte; the collector keeps its own copy of what it keeps. It
// reports whether the engine should read on: false once the result is
// complete (a bound was reached). The error is an env.ErrTooLarge
// *env.QueryError past a ceiling, or a server error for a value of
// another type.
func (c *Collector) Add(values []any) (more bool, err error) {
	if c.done {
		return false, nil
	}
	if c.lim.MaxRows > 0 && len(c.rs.Rows) == c.lim.MaxRows {
		c.rs.Truncated, c.done = true, true
		return false, nil
	}
	row, size, cut, err := convertRow(values, c.lim.MaxCellBytes)
	if err != nil {
		return false, err
	}
	if c.lim.MaxResultBytes > 0 && c.total+size > c.lim.MaxResultBytes {
		c.rs.Truncated, c.done = true, true
		return false, nil
	}
	c.total += size
	if len(c.rs.Rows) == c.ceil.Rows || c.total > c.ceil.Bytes {
		return false, env.NewQueryError(env.ErrTooLarge, fmt.Sprintf(
			"result too large: more than %d rows or %d bytes; narrow the query or add a LIMIT", c.ceil.Rows, c.ceil.Bytes))
	}
	c.rs.Truncated = c.rs.Truncated || cut
	c.rs.Rows = append(c.rs.Rows, row)
	return true, nil
}

// Result is the result kept so far.
func (c *Collector) Result() *env.ResultSet { return c.rs }

// convertRow copies one row, cutting long cells. It returns the row, its
// size in bytes and whether a cell was cut.
func convertRow(values []any, maxCell int) ([]any, int, bool, error) {
	row := make([]any, len(values))
	size, cut := rowBytes+cellBytes*len(values), false
	for i, v := range values {
		switch v := v.(type) {
		case nil:
		case int64, float64, bool:
			row[i] = v
			size += numberBytes
		case string:
			text, cellCut := CutText(v, maxCell, false)
			row[i] = values[i] // a text kept whole keeps its box: no new one to allocate
			if cellCut {
				row[i], cut = text, true
			}
			size += len(text)
		case []byte:
			row[i], cut = cutBlob(v, maxCell, cut)
			size += len(row[i].([]byte))
		default:
			return nil, 0, false, fmt.Errorf("read rows: column %d: unexpected value type %T", i, v)
		}
	}
	return row, size, cut, nil
}

// CutText keeps at most maxBytes bytes of s (0: all), ending on a whole
// character, and marks a cut with CutMark; cut is returned set when it
// cut, else as given.
func CutText(s string, maxBytes int, cut bool) (string, bool) {
	if maxBytes <= 0 || len(s) <= maxBytes {
		return s, cut
	}
	n := maxBytes
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + CutMark, true
}

// cutBlob copies at most maxBytes bytes of b (0: all). A blob has no room
// for a mark: the result set's Truncated flag says that something was
// cut.
func cutBlob(b []byte, maxBytes int, cut bool) ([]byte, bool) {
	n := len(b)
	if maxBytes > 0 && n > maxBytes {
		n, cut = maxBytes, true
	}
	out := make([]byte, n) // never nil: an empty blob stays []byte{}
	copy(out, b)
	return out, cut
}
