package sqlite

import (
	"context"
	"database/sql/driver"
	"fmt"

	"github.com/mattn/go-sqlite3"
)

// connector opens connections through a driver value of our own, so no
// driver name is registered globally and each engine can carry its hooks.
type connector struct {
	dsn            string
	drv            *sqlite3.SQLiteDriver
	stmtCacheBytes int    // statement text each connection keeps prepared
	pools          *pools // the engine's, which count the statements prepared and reused
}

func (c *connector) Connect(context.Context) (driver.Conn, error) {
	dc, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(*sqlite3.SQLiteConn)
	if !ok {
		dc.Close()
		return nil, fmt.Errorf("connect: unexpected driver connection %T", dc)
	}
	cn := &conn{SQLiteConn: sc, stmts: newStmtCache(c.stmtCacheBytes), guard: newGuard(false), pools: c.pools,
		deadline: newDeadline(sc)}
	sc.RegisterAuthorizer(cn.authorize)
	return cn, nil
}

// authorize is the connection's authorizer: the guard of the call that
// holds it decides.
func (c *conn) authorize(op int, a1, a2, db string) int { return c.guard.authorize(op, a1, a2, db) }

// conn is a connection of the engine: the driver's, with the statements
// it keeps prepared and the guard of the call that holds it, which its
// authorizer consults. database/sql hands it to one call at a time.
type conn struct {
	*sqlite3.SQLiteConn
	stmts    *stmtCache
	guard    *guard
	pools    *pools
	deadline *deadline // the statement deadline SQLite checks itself; nil if none could be installed
}

// Close finalizes the kept statements, then closes the connection:
// SQLite keeps a connection with unfinalized statements open.
func (c *conn) Close() error {
	c.stmts.close()
	c.deadline.free()
	return c.SQLiteConn.Close()
}

func (c *connector) Driver() driver.Driver { return c.drv }

// sqlSlack is room beyond Config.MaxSQLBytes (which Query checks on the
// model's text) for the raw wrap and the engine's own queries.
const sqlSlack = 64 << 10

// connCacheKiB is each connection's page cache (SQLite's default is about
// 2 MiB): files are immutable, so pages it does not hold are read again
// from the OS page cache, which all connections share.
const connCacheKiB = 512

// connectHook prepares every new connection of an Engine: run-time limits
// that bound what one statement can build (SQLITE_LIMIT_LENGTH stops
// randomblob, zeroblob, printf and replace blow-ups), no attached
// databases, no trust in functions called from the schema, a small page
// cache, and the read-only authorizer until Connect registers the one
// that consults each call's guard.
func connectHook(cfg Config) func(*sqlite3.SQLiteConn) error {
	return func(c *sqlite3.SQLiteConn) error {
		c.SetLimit(sqlite3.SQLITE_LIMIT_LENGTH, cfg.MaxValueBytes)
		c.SetLimit(sqlite3.SQLITE_LIMIT_SQL_LENGTH, cfg.MaxSQLBytes+sqlSlack)
		c.SetLimit(sqlite3.SQLITE_LIMIT_ATTACHED, 0)
		c.SetLimit(sqlite3.SQLITE_LIMIT_TRIGGER_DEPTH, 0)
		c.SetLimit(sqlite3.SQLITE_LIMIT_WORKER_THREADS, 0)
		pragmas := fmt.Sprintf("PRAGMA trusted_schema = OFF; PRAGMA cache_size = -%d", connCacheKiB)
		if _, err := c.Exec(pragmas, nil); err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		c.RegisterAuthorizer(newGuard(false).authorize)
		return nil
	}
}
