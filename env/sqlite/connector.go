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
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c *connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }

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
// cache, and the read-only authorizer as the default until a call
// registers its own.
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
