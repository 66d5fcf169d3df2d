// Package mysqltest gives tests a MySQL or MariaDB database of their own
// on the server SQLGYM_TEST_MYSQL names (.ci/run sets it through
// scripts/mariadb-up). Without the variable a test is skipped, except
// under CI=true, where it fails.
package mysqltest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/sqlgym/sqlgym/internal/testkit/needs"
)

// EnvVar names the variable holding the test server's URL.
const EnvVar = "SQLGYM_TEST_MYSQL"

// ServerURL is the test server's URL, or skips t (fails it under CI).
func ServerURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvVar)
	if u == "" {
		needs.Missing(t, EnvVar+" is not set: the MySQL tests need a MariaDB or MySQL server (scripts/mariadb-up starts one)")
	}
	return u
}

// Admin is a pool logged in as the test server URL's user (root), which
// runs several statements in one call; it is closed when the test ends.
func Admin(t testing.TB) *sql.DB {
	t.Helper()
	u, err := url.Parse(ServerURL(t))
	if err != nil {
		t.Fatalf("%s: %v", EnvVar, err)
	}
	c := mysql.NewConfig()
	c.Net, c.Addr, c.MultiStatements = "tcp", u.Host, true
	if u.Port() == "" {
		c.Addr += ":3306"
	}
	if u.User != nil {
		c.User = u.User.Username()
		c.Passwd, _ = u.User.Password()
	}
	conn, err := mysql.NewConnector(c)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	t.Cleanup(func() { db.Close() })
	return db
}

// Name is a fresh database name.
func Name() string {
	var b [6]byte
	rand.Read(b[:])
	return "sqlgym_test_" + hex.EncodeToString(b[:])
}

// Database creates a fresh database on the test server and runs script
// in it as root (several statements). It returns the server's URL and
// the database's name; the database is dropped when the test ends. The
// caller gives it its reading account (env/mysql's EnsureReader) and
// drops that with DropUser.
func Database(t testing.TB, script string) (string, string) {
	t.Helper()
	name := Name()
	Create(t, name, script)
	return ServerURL(t), name
}

// Create creates the database name on the test server and runs script
// in it; the database is dropped when the test ends.
func Create(t testing.TB, name, script string) {
	t.Helper()
	admin := Admin(t)
	id := quoteIdent(name)
	t.Cleanup(func() { exec(t, admin, "DROP DATABASE IF EXISTS "+id) })
	exec(t, admin, "CREATE DATABASE "+id+"; USE "+id+";\n"+script)
}

// DropUser drops the account user@'%' when the test ends.
func DropUser(t testing.TB, user string) {
	t.Helper()
	admin := Admin(t)
	t.Cleanup(func() { exec(t, admin, "DROP USER IF EXISTS '"+strings.ReplaceAll(user, "'", "''")+"'@'%'") })
}

// exec runs q as root, failing the test on an error.
func exec(t testing.TB, admin *sql.DB, q string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, q); err != nil {
		t.Errorf("%.80s: %v", q, err)
	}
}

// quoteIdent writes name in backticks.
func quoteIdent(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }
