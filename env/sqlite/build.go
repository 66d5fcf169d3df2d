package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"net/url"
	"path/filepath"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym/base/atomicfile"
)

// Build creates the SQLite database file at path from a SQL script (DDL and
// INSERTs). The file appears whole or not at all: the script runs into a
// temporary file beside path, which is synced and renamed into place.
func Build(ctx context.Context, path, script string) error {
	err := atomicfile.Build(path, atomicfile.Options{}, func(tmp string) error {
		return runScript(ctx, tmp, script)
	})
	if err != nil {
		return fmt.Errorf("build %s: %w", path, err)
	}
	return nil
}

func runScript(ctx context.Context, path, script string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	// An escaped URI: a path holding ?, # or % must not be read as options.
	dsn := (&url.URL{Scheme: "file", Path: abs, RawQuery: "_journal_mode=OFF&_sync=OFF"}).String()
	db := sql.OpenDB(scriptConnector{dsn: dsn, drv: &sqlite3.SQLiteDriver{}})
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, script); err != nil {
		return fmt.Errorf("run script: %w", err)
	}
	return conn.Close()
}

// scriptConnector opens the plain, writable connections that build a
// file, without the engine's sandbox; no driver name is registered.
type scriptConnector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func (c scriptConnector) Connect(context.Context) (driver.Conn, error) { return c.drv.Open(c.dsn) }

func (c scriptConnector) Driver() driver.Driver { return c.drv }
