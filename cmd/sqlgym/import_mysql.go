package main

import (
	"context"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/mysql"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/app/dbimport"
)

// importMySQL imports ds into the MySQL or MariaDB server f.dsn names,
// once the server answers as f.dsn's user within --connect-timeout.
func importMySQL(ctx context.Context, f *importFlags, ds *env.Dataset, prog *dbimport.ProgressView) (*dbimport.Imported, error) {
	if _, err := mysql.ParseURL(f.dsn); err != nil {
		return nil, usageError{fmt.Sprintf("import: --engine: %v", err)}
	}
	if err := pingMySQL(ctx, f.dsn, f.connectTimeout); err != nil {
		return nil, err
	}
	return dbimport.ImportMySQL(ctx, dbimport.MySQLConfig{
		Dataset: ds, SQLite: sqlite.New(sqlite.Config{}), URL: f.dsn, Account: f.role,
		GoldTimeout: f.goldTimeout, MaxAnswerRows: f.maxAnswerRows, Progress: prog.Update, Suites: f.suites(ds),
	})
}

// pingMySQL logs in to the server url names, as its user, within
// timeout.
func pingMySQL(ctx context.Context, url string, timeout time.Duration) error {
	admin, err := mysql.OpenAdmin(url)
	if err != nil {
		return usageError{fmt.Sprintf("import: --engine: %v", err)}
	}
	defer admin.Close()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := admin.PingContext(ctx); err != nil {
		return fmt.Errorf("import: connect to MySQL at %s: %w", hostOf(url), err)
	}
	return nil
}

// hostOf is the server's host:port, as url (a parsed mysql:// URL)
// names it.
func hostOf(url string) string {
	u, err := mysql.ParseURL(url)
	switch {
	case err != nil:
		return mysql.Redact(url)
	case u.Port() == "":
		return u.Host + ":3306"
	}
	return u.Host
}
