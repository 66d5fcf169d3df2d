package sqlite

import (
	"slices"

	"github.com/mattn/go-sqlite3"
)

// Bounds of the statements a connection keeps prepared.
const (
	// DefaultStmtCacheBytes is Config.StmtCacheBytes's default: the text
	// of the statements kept prepared per connection, added up.
	DefaultStmtCacheBytes = 16 << 10
	// maxCachedSQL is the longest statement text kept prepared.
	maxCachedSQL = 4 << 10
)

// A prepared statement's memory is bounded by its text's: the most a
// crafted statement was measured to hold is about 265 bytes per byte of
// text (927 bytes of nested common table expressions, each used twice,
// expanding to 256 subqueries and holding 245 KB; SQLite refuses deeper
// nesting). Bounding the text kept per connection bounds its cache's
// memory: 16 KiB of text is at most about 4 MiB, where the statements of
// Spider and BIRD (about 100 to 500 bytes) take tens of kilobytes.

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
// recently used last, their text at most maxBytes added up. A connection
// runs one statement at a time, so the cache needs no lock.
type stmtCache struct {
	maxBytes int
	bytes    int // text of the entries, added up
	entries  []*cached
}

func newStmtCache(maxBytes int) *stmtCache { return &stmtCache{maxBytes: maxBytes} }

// take removes and returns the statement prepared for text, or nil.
func (c *stmtCache) take(text string) *cached {
	if c == nil {
		return nil
	}
	for i := len(c.entries) - 1; i >= 0; i-- {
		if e := c.entries[i]; e.text == text {
			c.entries = slices.Delete(c.entries, i, i+1)
			c.bytes -= len(e.text)
			return e
		}
	}
	return nil
}

// keeps reports whether a statement of text would be kept.
func (c *stmtCache) keeps(text string) bool {
	return c != nil && len(text) <= min(maxCachedSQL, c.maxBytes)
}

// put keeps e as the most recently used statement, finalizing the least
// recently used ones while its text would not fit.
func (c *stmtCache) put(e *cached) {
	for len(c.entries) > 0 && c.bytes+len(e.text) > c.maxBytes {
		c.bytes -= len(c.entries[0].text)
		c.entries[0].stmt.Close()
		c.entries = slices.Delete(c.entries, 0, 1)
	}
	c.entries = append(c.entries, e)
	c.bytes += len(e.text)
}

// close finalizes every kept statement.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	for _, e := range c.entries {
		e.stmt.Close()
	}
	c.entries, c.bytes = nil, 0
}
