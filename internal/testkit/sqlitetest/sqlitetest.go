// Package sqlitetest gives tests a SQLite database of their own, built
// from a script in a temporary folder and opened with the SQLite engine's
// defaults.
package sqlitetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
)

// Open builds a database from script and opens it; it is closed when the
// test ends.
func Open(tb testing.TB, script string) env.DB {
	tb.Helper()
	ctx := context.Background()
	path := filepath.Join(tb.TempDir(), "test.sqlite")
	if err := sqlite.Build(ctx, path, script); err != nil {
		tb.Fatal(err)
	}
	db, err := sqlite.New(sqlite.Config{}).Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return db
}
