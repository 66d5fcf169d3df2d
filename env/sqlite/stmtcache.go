package sqlite

import (
	"slices"

	"github.com/mattn/go-sqlite3"
)

// Bounds of the statements a connection keeps prepared.
const (
	// DefaultStmtCache is Config.StmtCache's default: statements kept
	// prepared per connection.
	DefaultStmtCache = 64
	// maxCachedSQL is the longest statement text kept prepared: a
	// prepared statement's memory grows with its text, so together with
	// the count it bounds what the cache of one connection holds.
	maxCachedSQL = 4 << 10
)

// cached is a statement kept prepared on one connection, with what its
// preparation told: the tables and columns it reads, as the authorizer
// recorded them. Only statements that passed the authorizer and the
// read-only check are kept, and a statement's verdicts depend only on its
// text and the schema, which cannot change while the file is open
// immutable.
type cached struct {
	text   string
	stmt   *sqlite3.SQLiteStmt
	reads  []string // "table.column", as guard.reads holds them
	tables []string
}

// stmtCache is the statements one connection keeps prepared, most
// recently used last. A connection runs one statement at a time, so the
// cache needs no lock.
type stmtCache struct {
	max     int
	entries []*cached
}

func newStmtCache(max int) *stmtCache { return &stmtCache{max: max} }

// take removes and returns the statement prepared for text, or nil.
func (c *stmtCache) take(text string) *cached {
	if c == nil {
		return nil
	}
	for i := len(c.entries) - 1; i >= 0; i-- {
		if e := c.entries[i]; e.text == text {
			c.entries = slices.Delete(c.entries, i, i+1)
			return e
		}
	}
	return nil
}

// keeps reports whether a statement of text would be kept.
func (c *stmtCache) keeps(text string) bool {
	return c != nil && c.max > 0 && len(text) <= maxCachedSQL
}

// put keeps e as the most recently used statement, finalizing the least
// recently used one when the cache is full.
func (c *stmtCache) put(e *cached) {
	if len(c.entries) >= c.max {
		c.entries[0].stmt.Close()
		c.entries = slices.Delete(c.entries, 0, 1)
	}
	c.entries = append(c.entries, e)
}

// close finalizes every kept statement.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	for _, e := range c.entries {
		e.stmt.Close()
	}
	c.entries = nil
}
