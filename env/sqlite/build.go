package sqlite

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

// Build creates the SQLite database file at path from a SQL script (DDL and
// INSERTs). The file appears whole or not at all: the script runs into a
// temporary file beside path, which is synced and renamed into place.
func Build(ctx context.Context, path, script string) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("build %s: %w", path, err)
	}
	tmpName := tmp.Name()
	tmp.Close()
	defer func() {
		if err != nil {
			os.Remove(tmpName)
		}
	}()
	if err := runScript(ctx, tmpName, script); err != nil {
		return fmt.Errorf("build %s: %w", path, err)
	}
	if err := syncFile(tmpName); err != nil {
		return fmt.Errorf("build %s: %w", path, err)
	}
	if err := os.Rename(tmpName, path); err != nil {
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

func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
