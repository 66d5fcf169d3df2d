package dbgen

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/mattn/go-sqlite3"
)

// connector opens plain connections to one SQLite file through a driver
// value of its own: no driver name is registered.
type connector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c connector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }

func (c connector) Driver() driver.Driver { return c.drv }

// fileDSN is path as an escaped file: URI with query (a path holding ?, #
// or % must not be read as options).
func fileDSN(path, query string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return (&url.URL{Scheme: "file", Path: abs, RawQuery: query}).String(), nil
}

// openSource opens the database at src read-only on one connection,
// after checking that it is a readable file: SQLite itself would only
// say so at the first query, and less clearly.
func openSource(ctx context.Context, src string) (*sql.DB, *sql.Conn, error) {
	f, err := os.Open(src)
	if err != nil {
		return nil, nil, fmt.Errorf("dbgen: source: %w", err)
	}
	f.Close()
	dsn, err := fileDSN(src, "mode=ro")
	if err != nil {
		return nil, nil, fmt.Errorf("dbgen: source: %w", err)
	}
	db := sql.OpenDB(connector{dsn: dsn, drv: &sqlite3.SQLiteDriver{}})
	conn, err := db.Conn(ctx)
	if err == nil {
		_, err = conn.ExecContext(ctx, "SELECT count(*) FROM sqlite_master")
	}
	if err != nil {
		if conn != nil {
			conn.Close()
		}
		db.Close()
		return nil, nil, fmt.Errorf("dbgen: source %s: %w", src, err)
	}
	return db, conn, nil
}
