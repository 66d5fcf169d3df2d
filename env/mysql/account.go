package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/go-sql-driver/mysql"
)

// maxAccountChars is the longest user name MySQL 8 takes (MariaDB takes
// more): every account name fits both.
const maxAccountChars = 32

// Account is the name of the account that reads database db for the
// prefix prefix: "prefix.db", cut to 32 characters with a hash of the
// whole name when longer, so that two long names never share an account.
func Account(prefix, db string) string {
	name := prefix + "." + db
	if utf8.RuneCountInString(name) <= maxAccountChars {
		return name
	}
	sum := sha256.Sum256([]byte(name))
	tail := "~" + hex.EncodeToString(sum[:4])
	runes := []rune(name)
	return string(runes[:maxAccountChars-len(tail)]) + tail
}

// OpenAdmin opens a pool that logs in as the user url (a mysql:// URL)
// names, with no database selected: the privileged connection
// EnsureReader and imports use. The caller closes it.
func OpenAdmin(url string) (*sql.DB, error) {
	u, err := ParseURL(url)
	if err != nil {
		return nil, err
	}
	user := ""
	if u.User != nil {
		user = u.User.Username()
	}
	c, err := mysql.NewConnector(driverConfig(u, user, ""))
	if err != nil {
		return nil, err
	}
	return sql.OpenDB(c), nil
}

// EnsureReader gives each of the given databases its own account
// (Account(prefix, db)) that can log in from any host without a password
// and holds SELECT on that database and nothing else: no global
// privilege (FILE, PROCESS, SUPER, ...), no privilege on any other
// database, no GRANT OPTION. The engine logs in to each database as its
// account, so a statement of one task's database sees no other
// database's tables, and the process list shows it only its own
// account's sessions (which the engine's checks keep it from reading).
// It is idempotent; admin must be a connection of an account that may
// create users and grant (root). The accounts have no password: serve
// them from a network only the serving host reaches, or set passwords
// apart (docs/engines.md).
func EnsureReader(ctx context.Context, admin *sql.DB, prefix string, dbs ...string) error {
	if prefix == "" {
		return errors.New("ensure reader: empty account prefix")
	}
	for _, db := range dbs {
		acct := quoteString(Account(prefix, db)) + "@'%'"
		for _, q := range []string{
			"CREATE USER IF NOT EXISTS " + acct,
			"REVOKE ALL PRIVILEGES, GRANT OPTION FROM " + acct,
			"GRANT SELECT ON " + grantDB(db) + ".* TO " + acct,
		} {
			if _, err := admin.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("ensure reader of %s: %s: %w", db, q, err)
			}
		}
	}
	return nil
}

// grantDB writes db as a GRANT names a database: quoted, with its
// wildcard characters (_ and %) escaped, so that the grant covers that
// one database and no other whose name the wildcards would match.
func grantDB(db string) string {
	r := strings.NewReplacer(`\`, `\\`, `_`, `\_`, `%`, `\%`)
	return QuoteIdent(r.Replace(db))
}

// QuoteIdent writes name as a quoted identifier: in backticks, inner
// backticks doubled.
func QuoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// quoteString writes s as a string literal, quotes and backslashes
// escaped.
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}
