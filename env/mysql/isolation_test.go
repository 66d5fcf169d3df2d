package mysql

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/enginetest"
	"github.com/sqlgym/sqlgym/internal/testkit/mysqltest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

func adminOf(t *testing.T) *sql.DB { return mysqltest.Admin(t) }

func randomHex() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// checksums are the CHECKSUM TABLE values of the database's tables, read
// as root.
func checksums(t *testing.T, admin *sql.DB, name string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{"singer", "concert", "order items", "big"} {
		var n string
		var sum sql.NullInt64
		if err := admin.QueryRow("CHECKSUM TABLE "+QuoteIdent(name)+"."+QuoteIdent(table)).Scan(&n, &sum); err != nil {
			t.Fatal(err)
		}
		out[table] = sum.Int64
	}
	return out
}

// running counts the statements of the account of d's database that
// the server is running now (as root sees them), whose text holds mark.
func running(t *testing.T, admin *sql.DB, d *db, mark string) int {
	t.Helper()
	var n int
	err := admin.QueryRow(`SELECT count(*) FROM information_schema.PROCESSLIST
WHERE user = ? AND command = 'Query' AND info LIKE ?`, Account(DefaultAccount, d.name), "%"+mark+"%").Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkNothingCarried checks that the attacks left nothing behind: no
// lock held, no statement of the account still running, and the pooled
// connection (d has one) with its settings as the engine set them, no
// user variable and no open transaction.
func checkNothingCarried(t *testing.T, d *db, admin *sql.DB) {
	t.Helper()
	var holder sql.NullInt64
	if err := admin.QueryRow("SELECT IS_USED_LOCK('sqlgym_attack')").Scan(&holder); err != nil || holder.Valid {
		t.Errorf("lock sqlgym_attack: held by %v (%v), want free", holder, err)
	}
	waitfor.Until(t, "no statement of the account running", func() bool { return running(t, admin, d, "") <= 0 })
	rs, err := d.introspect(context.Background(), `SELECT @kept, @@tmp_table_size, @@max_heap_table_size,
  @@group_concat_max_len, @@sql_mode, @@max_recursive_iterations, @@in_transaction, @@time_zone, LAST_INSERT_ID()`, env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{nil, int64(tmpTableBytes), int64(tmpTableBytes), int64(groupConcatMax), sqlMode, int64(recursionDepth), int64(1), "+00:00", int64(0)}
	if !reflect.DeepEqual(rs.Rows[0], want) {
		t.Errorf("session after the attacks = %#v, want %#v", rs.Rows[0], want)
	}
}

// TestOtherSessionsHidden runs a statement on one database and checks,
// from another, that its text cannot be read, neither through the
// engine nor by the other database's account itself; then cancels it
// and sees the server stop it (KILL QUERY).
func TestOtherSessionsHidden(t *testing.T) {
	a, _ := openFixture(t, Config{})
	b, _ := openFixture(t, Config{})
	admin := adminOf(t)
	mark := "secret_" + randomHex()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := a.Query(ctx, "SELECT SLEEP(60) AS "+mark, env.Limits{Timeout: 120e9})
		done <- err
	}()
	waitfor.Until(t, "the statement running", func() bool { return running(t, admin, a, mark) == 1 })
	for _, q := range []string{
		"SELECT info FROM information_schema.PROCESSLIST",
		"SELECT * FROM information_schema.processlist WHERE info LIKE '%" + mark + "%'",
	} {
		_, err := b.Query(context.Background(), q, env.Limits{})
		enginetest.CheckKind(t, err, []error{env.ErrDenied})
	}
	rs, err := b.introspect(context.Background(), "SELECT count(*) FROM information_schema.PROCESSLIST WHERE id <> CONNECTION_ID() AND info LIKE '%"+mark+"%'", env.Limits{})
	if err != nil || rs.Rows[0][0] != int64(0) {
		t.Errorf("the other database's account sees the statement: %v, %v", rs, err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled call: %v, want context.Canceled", err)
	}
	waitfor.Until(t, "the server to stop the cancelled statement", func() bool { return running(t, admin, a, mark) == 0 })
}

// TestAccountHoldsNoGlobalPrivilege reads the account's grants: SELECT
// on its database, nothing else.
func TestAccountHoldsNoGlobalPrivilege(t *testing.T) {
	d, name := openFixture(t, Config{})
	rs, err := d.introspect(context.Background(), "SHOW GRANTS", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	acct := Account(DefaultAccount, name)
	var grants []string
	for _, r := range rs.Rows {
		grants = append(grants, r[0].(string))
	}
	want := []string{
		`GRANT USAGE ON *.* TO "` + acct + `"@"%"`, // the names in double quotes: the sessions' ANSI_QUOTES
		`GRANT SELECT ON "` + strings.ReplaceAll(name, "_", `\_`) + `".* TO "` + acct + `"@"%"`,
	}
	if !reflect.DeepEqual(grants, want) {
		t.Errorf("grants:\n got %q\nwant %q", grants, want)
	}
}
