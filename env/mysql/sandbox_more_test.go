package mysql

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/enginetest"
)

// moreAttacks are the second pass over what MySQL and MariaDB offer a
// statement: other spellings of the server's schemas, locking reads and
// settings, statements the account could run were the checks bypassed,
// and work that is bounded only by the server's limits.
func moreAttacks(file, other string) []attack {
	denied, slow := []error{env.ErrDenied}, []error{env.ErrTimeout}
	deniedOrSQL := []error{env.ErrDenied, env.ErrSQL}
	slowOrBig := []error{env.ErrTimeout, env.ErrTooLarge}
	slowBigOrSQL := []error{env.ErrTimeout, env.ErrTooLarge, env.ErrSQL}
	long := strings.Repeat("a", 70_000)
	return []attack{
		// The server's schemas under other spellings.
		{name: "processlist through a cte", sql: "WITH p AS (SELECT info FROM information_schema.processlist) SELECT * FROM p", kinds: denied},
		{name: "innodb_trx through a derived table", sql: "SELECT * FROM (SELECT trx_query FROM information_schema.innodb_trx) AS d", kinds: denied},
		{name: "information_schema in mixed case and backticks", sql: "SELECT * FROM `Information_Schema`.`Innodb_Trx`", kinds: denied},
		{name: "comments between schema, dot and table", sql: "SELECT * FROM information_schema/**/./* x */user_privileges", kinds: denied},
		{name: "line comments between schema, dot and table", sql: "SELECT * FROM information_schema -- x\n . # y\n global_variables", kinds: denied},
		{name: "information_schema in an executable comment", sql: "SELECT * FROM singer /*!50000 , information_schema.processlist */", kinds: denied},
		{name: "accented information_schema", sql: "SELECT * FROM `ínformation_schema`.`innodb_trx`", kinds: deniedOrSQL},
		{name: "full-width sys", sql: "SELECT * FROM `ｓｙｓ`.`session`", kinds: deniedOrSQL},
		{name: "information_schema with a trailing space", sql: "SELECT * FROM `information_schema `.`innodb_trx`", kinds: deniedOrSQL},
		{name: "mysql.user in upper case", sql: "SELECT * FROM MYSQL.USER", kinds: denied},
		{name: "mysql.user through a cte", sql: "WITH u AS (SELECT * FROM `mysql` . `user`) SELECT * FROM u", kinds: denied},
		{name: "sys view x$processlist", sql: "SELECT * FROM `sys`.`x$processlist`", kinds: denied},
		{name: "sys version view", sql: "SELECT * FROM sys.version", kinds: denied},
		{name: "global variables table", sql: "SELECT * FROM information_schema.GLOBAL_VARIABLES WHERE variable_name = 'datadir'", kinds: denied},
		{name: "MariaDB system_variables table", sql: "SELECT global_value FROM information_schema.SYSTEM_VARIABLES WHERE variable_name = 'datadir'", kinds: denied},
		{name: "null as backslash-N", sql: `SELECT \N IS NULL`},
		{name: "executable comment opener inside a string is text", sql: "SELECT '/*!50000 x */' AS c"},
		{name: "table statement of mysql.user", sql: "TABLE mysql.user", kinds: denied},
		{name: "values of load_file", sql: "VALUES ROW(LOAD_FILE('/etc/hostname'))", kinds: denied},
		// Procedures and locking reads spelled with comments.
		{name: "procedure analyse", sql: "SELECT * FROM singer PROCEDURE ANALYSE()", kinds: denied},
		{name: "for update with a block comment", sql: "SELECT * FROM singer FOR/**/UPDATE", kinds: denied},
		{name: "for update with a line comment", sql: "SELECT * FROM singer FOR -- x\nUPDATE", kinds: denied},
		{name: "for share with a hash comment", sql: "SELECT * FROM singer FOR#x\nSHARE", kinds: denied},
		{name: "lock in share mode with comments", sql: "SELECT * FROM singer LOCK/**/IN/* x */SHARE MODE", kinds: denied},
		{name: "for update in a subquery", sql: "SELECT * FROM (SELECT * FROM singer FOR UPDATE) AS s", kinds: denied},
		{name: "for update skip locked", sql: "SELECT * FROM singer FOR UPDATE SKIP LOCKED", kinds: denied},
		// Statements other than a read.
		{name: "set statement with a comment", sql: "SET/**/STATEMENT max_statement_time = 0 FOR SELECT SLEEP(30)", kinds: denied},
		{name: "kill query", sql: "KILL QUERY 1", kinds: denied},
		{name: "kill connection in a comment-led statement", sql: "/* x */ KILL CONNECTION 1", kinds: denied},
		{name: "show processlist", sql: "SHOW PROCESSLIST", kinds: denied},
		{name: "show grants", sql: "SHOW GRANTS", kinds: denied},
		{name: "show variables", sql: "SHOW VARIABLES LIKE 'datadir'", kinds: denied},
		{name: "execute immediate of hex", sql: "EXECUTE IMMEDIATE CONVERT(0x53454c454354204c4f41445f46494c452827" +
			"2f6574632f686f73746e616d652729 USING utf8mb4)", kinds: denied},
		{name: "with then delete", sql: "WITH c AS (SELECT 1) DELETE FROM big", kinds: deniedOrSQL},
		{name: "with then update", sql: "WITH c AS (SELECT 1) UPDATE singer SET age = 1", kinds: deniedOrSQL},
		{name: "explain of a delete", sql: "EXPLAIN DELETE FROM big", kinds: deniedOrSQL, bounded: true},
		{name: "explain of another database's table", sql: "EXPLAIN SELECT * FROM " + QuoteIdent(other) + ".singer", kinds: denied},
		{name: "describe another database's table", sql: "EXPLAIN " + QuoteIdent(other) + ".singer", kinds: denied},
		{name: "explain of processlist", sql: "EXPLAIN information_schema.processlist", kinds: denied},
		// Variables and session state.
		{name: "global datadir", sql: "SELECT @@global.datadir", kinds: denied},
		{name: "secure_file_priv", sql: "SELECT @@secure_file_priv", kinds: denied},
		{name: "general_log_file with a space after @@", sql: "SELECT @@ general_log_file", kinds: denied},
		{name: "last_insert_id set for the next statement", sql: "SELECT LAST_INSERT_ID(424242)", kinds: denied},
		{name: "found_rows of the previous statement", sql: "SELECT FOUND_ROWS()", kinds: denied},
		{name: "row_count of the previous statement", sql: "SELECT ROW_COUNT()", kinds: denied},
		{name: "next value for a sequence", sql: "SELECT NEXT VALUE FOR s", kinds: deniedOrSQL},
		// Locks under other names.
		{name: "get_lock qualified by sys", sql: "SELECT sys.GET_LOCK('sqlgym_attack', 0)", kinds: denied},
		{name: "get_lock qualified by mysql, quoted", sql: "SELECT `mysql`.`get_lock`('sqlgym_attack', 0)", kinds: denied},
		{name: "get_lock with a comment before its parenthesis", sql: "SELECT GET_LOCK/**/('sqlgym_attack', 0)", kinds: denied},
		{name: "get_lock in a charset-converted string is text", sql: "SELECT CONVERT('GET_LOCK(1, 0)' USING latin1) = 'x'"},
		{name: "load_file through convert", sql: "SELECT CONVERT(LOAD_FILE('/etc/hostname') USING utf8mb4)", kinds: denied},
		{name: "locking service function", sql: "SELECT service_get_write_locks('ns', 'sqlgym_attack', 0)", kinds: denied},
		{name: "locking service function qualified by the database", sql: "SELECT " + QuoteIdent(other) + ".`service_get_write_locks`('ns', 'x', 0)", kinds: denied},
		// Sizes.
		{name: "alias of 70,000 characters is a column name", sql: "SELECT 1 AS `" + long + "`"},
		{name: "table name of 70,000 characters", sql: "SELECT * FROM `" + long + "`", kinds: deniedOrSQL},
		{name: "statement of one megabyte", sql: "SELECT 1" + strings.Repeat(" ", 1<<20), kinds: []error{env.ErrTooLarge}},
		{name: "statement just under a megabyte", sql: "SELECT '" + strings.Repeat("x", 1<<20-20) + "' = ''", bounded: true,
			kinds: slowBigOrSQL, ok: func(rs *env.ResultSet) error {
				if rs.Rows[0][0] != int64(0) {
					return fmt.Errorf("got %v, want 0", rs.Rows[0][0])
				}
				return nil
			}},
		// Work bounded by the server's limits.
		{name: "order by rand over a large join", sql: "SELECT a.x FROM big a, big b ORDER BY RAND() LIMIT 1", kinds: slowOrBig},
		{name: "json_table over a huge array", sql: "SELECT COUNT(*) FROM JSON_TABLE(CONCAT('[', REPEAT('1,', 50000000), '1]'), '$[*]' COLUMNS (x INT PATH '$')) AS j",
			kinds: slowBigOrSQL, bounded: true, ok: func(rs *env.ResultSet) error {
				// REPEAT past max_allowed_packet is NULL: no array, no rows.
				if rs.Rows[0][0] != int64(0) {
					return fmt.Errorf("read %v elements of a 100 MB array", rs.Rows[0][0])
				}
				return nil
			}},
		{name: "json_table over a large join", sql: "SELECT COUNT(*) FROM big a, big b, JSON_TABLE('[1, 2, 3]', '$[*]' COLUMNS (x INT PATH '$')) AS j",
			kinds: slowOrBig},
		{name: "window over an unbounded frame of a large join", sql: "SELECT COUNT(*) OVER (ORDER BY a.x ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) FROM big a, big b LIMIT 1",
			kinds: slowOrBig},
		{name: "regexp catastrophic backtracking", sql: "SELECT COUNT(*) FROM big WHERE CONCAT(REPEAT('a', 40), label) REGEXP '^(a|aa)+$'",
			kinds: slowBigOrSQL, bounded: true},
		{name: "regexp backtracking on one row", sql: "SELECT CONCAT(REPEAT('a', 40), 'c') REGEXP '^(a|aa)+$'",
			kinds: []error{env.ErrTimeout, env.ErrSQL}},
		{name: "regexp that gives up where the answer is a match", sql: "SELECT CONCAT(REPEAT('a', 30), 'xb') REGEXP '(a|aa)+c|b'",
			// MariaDB's PCRE2 match limit ends the match and answers 0, where
			// the right answer is 1, with only a warning: the engine reads it
			// and says so.
			kinds: []error{env.ErrTimeout, env.ErrSQL}},
		{name: "regexp that matches", sql: "SELECT 'abc' REGEXP 'b', 'abc' RLIKE 'x'", ok: func(rs *env.ResultSet) error {
			if rs.Rows[0][0] != int64(1) || rs.Rows[0][1] != int64(0) {
				return fmt.Errorf("got %v, want [1 0]", rs.Rows[0])
			}
			return nil
		}},
		{name: "uuid", sql: "SELECT UUID()", kinds: denied},
		{name: "uuid_short", sql: "SELECT UUID_SHORT()", kinds: denied},
		{name: "sys_guid", sql: "SELECT SYS_GUID()", kinds: denied},
		{name: "uuid quoted", sql: "SELECT `uuid`()", kinds: denied},
		{name: "parentheses nested 400,000 deep", sql: "SELECT " + strings.Repeat("(", 400_000) + "1" + strings.Repeat(")", 400_000),
			kinds: []error{env.ErrSQL}},
		{name: "benchmark in a scalar subquery", sql: "SELECT (SELECT BENCHMARK(1000000000000, MD5('a'))) FROM singer", kinds: slow},
		{name: "benchmark in a where subquery", sql: "SELECT name FROM singer WHERE (SELECT BENCHMARK(1000000000000, MD5(name))) = 0", kinds: slow},
	}
}

func TestMoreAttacks(t *testing.T) { runAttacks(t, moreAttacks) }

// TestAccountWithoutTheChecks runs, as the database's account but past
// the engine's checks (the engine's own path), what the checks refuse,
// to record what the account alone would give away: SHOW VARIABLES and
// @@ variables tell the server's paths to any account (so they stay
// denied); SHOW PROCESSLIST shows the account's own sessions only; KILL
// of another account's session is refused by the server; and
// FOUND_ROWS tells the row count of the connection's previous
// statement, another episode's (so it is denied).
func TestAccountWithoutTheChecks(t *testing.T) {
	d, name := openFixture(t, Config{MaxDBConns: 1})
	ctx := context.Background()
	admin := adminOf(t)
	rs, err := d.introspect(ctx, "SHOW VARIABLES WHERE Variable_name IN ('datadir', 'secure_file_priv', 'general_log_file')", env.Limits{})
	if err != nil || len(rs.Rows) != 3 {
		t.Fatalf("SHOW VARIABLES: %v %v, want the three paths (no privilege needed)", rs, err)
	}
	if rs, err = d.introspect(ctx, "SHOW FULL PROCESSLIST", env.Limits{}); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs.Rows {
		if r[1] != Account(DefaultAccount, name) {
			t.Errorf("SHOW PROCESSLIST shows another account's session: %v", r)
		}
	}
	var rootID int64
	conn, err := admin.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	_, err = d.introspect(ctx, fmt.Sprintf("KILL QUERY %d", rootID), env.Limits{})
	enginetest.CheckKind(t, err, []error{env.ErrDenied})
	query(t, d, "SELECT * FROM singer", env.Limits{})
	if rs, err = d.introspect(ctx, "SELECT FOUND_ROWS()", env.Limits{}); err != nil || rs.Rows[0][0] != int64(4) {
		t.Errorf("FOUND_ROWS after a statement of 4 rows on the one connection: %v %v, want 4", rs, err)
	}
	_, err = d.Query(ctx, "SELECT FOUND_ROWS()", env.Limits{})
	enginetest.CheckKind(t, err, []error{env.ErrDenied})
}

// TestTempDiskIsBounded: a GROUP BY whose temporary table outgrows memory
// and then MaxTempDiskBytes on disk fails too_large on MariaDB, well
// before its time runs out, instead of filling the server's disk for as
// long as the statement may run.
func TestTempDiskIsBounded(t *testing.T) {
	d, _ := openFixture(t, Config{MaxTempDiskBytes: 1 << 20, DefaultTimeout: time.Minute})
	if !d.srv.maria {
		t.Skip("tmp_disk_table_size is MariaDB's; MySQL has no bound a session may set (docs/engines.md)")
	}
	_, err := d.Query(context.Background(), "SELECT COUNT(*) FROM (SELECT a.x, b.x AS y FROM big a, big b GROUP BY a.x, b.x) AS g", env.Limits{})
	enginetest.CheckKind(t, err, []error{env.ErrTooLarge})
}
