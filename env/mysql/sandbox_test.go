package mysql

import (
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/enginetest"
)

// attack is one hostile statement and the kinds of *env.QueryError it may
// end in; no kinds means it must succeed (a harmless spelling). A bounded
// attack may also succeed, its result then checked by ok.
type attack struct {
	name    string
	sql     string
	kinds   []error
	bounded bool
	ok      func(*env.ResultSet) error
}

// attacks are the hostile statements of the suite; file is a path that
// must not exist after them, other another database of the server.
func attacks(file, other string) []attack {
	denied, multi, slow := []error{env.ErrDenied}, []error{env.ErrMultiStatement}, []error{env.ErrTimeout}
	deniedOrSQL := []error{env.ErrDenied, env.ErrSQL}
	slowOrBig := []error{env.ErrTimeout, env.ErrTooLarge}
	atMost := func(limit int64) func(*env.ResultSet) error {
		return func(rs *env.ResultSet) error {
			if v, _ := rs.Rows[0][0].(int64); rs.Rows[0][0] != nil && v > limit {
				return fmt.Errorf("got %d, more than the bound %d", v, limit)
			}
			return nil
		}
	}
	return []attack{
		{name: "load_file", sql: "SELECT LOAD_FILE('/etc/hostname')", kinds: denied},
		{name: "load_file after a double-quoted name ending in a backslash", sql: `SELECT 1 AS "\", LOAD_FILE('/etc/hostname') AS "x"`, kinds: denied},
		{name: "load_file quoted", sql: "SELECT `load_file`('/etc/hostname')", kinds: denied},
		{name: "into outfile", sql: "SELECT * FROM singer INTO OUTFILE '" + file + "'", kinds: denied},
		{name: "into dumpfile", sql: "SELECT photo FROM singer LIMIT 1 INTO DUMPFILE '" + file + "'", kinds: denied},
		{name: "into user variable", sql: "SELECT name FROM singer LIMIT 1 INTO @kept", kinds: denied},
		{name: "load data", sql: "LOAD DATA INFILE '/etc/hostname' INTO TABLE singer", kinds: denied},
		{name: "load data local", sql: "LOAD DATA LOCAL INFILE '/etc/hostname' INTO TABLE singer", kinds: denied},
		{name: "sleep past the limit", sql: "SELECT SLEEP(30)", kinds: slow},
		{name: "sleep in a where", sql: "SELECT name FROM singer WHERE SLEEP(30) = 0", kinds: slow},
		{name: "benchmark past the limit", sql: "SELECT BENCHMARK(1000000000000, MD5('a'))", kinds: slow, bounded: true},
		{name: "get_lock", sql: "SELECT GET_LOCK('sqlgym_attack', 0)", kinds: denied},
		{name: "get_lock in an executable comment", sql: "SELECT 1 /*! , GET_LOCK('sqlgym_attack', 0) */", kinds: denied},
		{name: "get_lock in a MariaDB executable comment", sql: "SELECT 1 /*M! , GET_LOCK('sqlgym_attack', 0) */", kinds: denied},
		{name: "is_used_lock", sql: "SELECT IS_USED_LOCK('sqlgym_attack')", kinds: denied},
		{name: "processlist", sql: "SELECT info FROM information_schema.PROCESSLIST", kinds: denied},
		{name: "processlist quoted", sql: "SELECT info FROM `information_schema`.`processlist`", kinds: denied},
		{name: "show processlist", sql: "SHOW FULL PROCESSLIST", kinds: denied},
		{name: "innodb_trx", sql: "SELECT trx_query FROM information_schema.INNODB_TRX", kinds: denied},
		{name: "performance_schema statements", sql: "SELECT sql_text FROM performance_schema.events_statements_current", kinds: denied},
		{name: "sys schema", sql: "SELECT * FROM sys.session", kinds: denied},
		{name: "mysql.user", sql: "SELECT user, authentication_string FROM mysql.user", kinds: denied},
		{name: "explain for connection", sql: "EXPLAIN FOR CONNECTION 1", kinds: denied},
		{name: "set global", sql: "SET GLOBAL max_connections = 1", kinds: denied},
		{name: "set session time limit", sql: "SET SESSION max_statement_time = 0", kinds: denied},
		{name: "set statement for", sql: "SET STATEMENT max_statement_time = 0 FOR SELECT SLEEP(30)", kinds: denied},
		{name: "set_var hint", sql: "SELECT /*+ SET_VAR(max_execution_time = 0) */ SLEEP(30)", kinds: denied},
		{name: "raise group_concat_max_len", sql: "SET SESSION group_concat_max_len = 1000000000", kinds: denied},
		{name: "raise group_concat_max_len by a hint", sql: "SELECT /*+ SET_VAR(group_concat_max_len = 1000000000) */ GROUP_CONCAT(label) FROM big", kinds: denied},
		{name: "raise max_recursive_iterations", sql: "SET max_recursive_iterations = 1000000000", kinds: denied},
		{name: "raise cte_max_recursion_depth by a hint", sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT /*+ SET_VAR(cte_max_recursion_depth = 1000000) */ n + 1 FROM r) SELECT count(*) FROM r", kinds: denied},
		{name: "raise tmp_table_size and max_heap_table_size", sql: "SET tmp_table_size = 1073741824, max_heap_table_size = 1073741824", kinds: denied},
		{name: "raise max_session_mem_used", sql: "SET STATEMENT max_session_mem_used = 0 FOR SELECT 1", kinds: denied},
		{name: "system variable", sql: "SELECT @@datadir", kinds: denied},
		{name: "user variable carried", sql: "SELECT @kept := 1", kinds: denied},
		{name: "handler open", sql: "HANDLER singer OPEN", kinds: denied},
		{name: "lock tables", sql: "LOCK TABLES singer READ", kinds: denied},
		{name: "do", sql: "DO GET_LOCK('sqlgym_attack', 0)", kinds: denied},
		{name: "call", sql: "CALL sys.ps_setup_enable_thread(1)", kinds: denied},
		{name: "for update", sql: "SELECT * FROM singer FOR UPDATE", kinds: denied},
		{name: "for share", sql: "SELECT * FROM singer FOR SHARE", kinds: denied},
		{name: "lock in share mode", sql: "SELECT * FROM singer LOCK IN SHARE MODE", kinds: denied},
		{name: "create temporary table", sql: "CREATE TEMPORARY TABLE t (x INT)", kinds: denied},
		{name: "insert", sql: "INSERT INTO singer (singer_id, name) VALUES (9, 'x')", kinds: denied},
		{name: "update", sql: "UPDATE singer SET age = 1", kinds: denied},
		{name: "delete", sql: "DELETE FROM big", kinds: denied},
		{name: "drop", sql: "DROP TABLE singer", kinds: denied},
		{name: "truncate", sql: "TRUNCATE big", kinds: denied},
		{name: "grant", sql: "GRANT ALL ON *.* TO CURRENT_USER", kinds: denied},
		{name: "kill", sql: "KILL 1", kinds: deniedOrSQL},
		{name: "nextval", sql: "SELECT NEXTVAL(s)", kinds: denied},
		{name: "other database", sql: "SELECT * FROM " + QuoteIdent(other) + ".singer", kinds: denied},
		{name: "other database in the catalog", sql: "SELECT count(*) FROM information_schema.tables WHERE table_schema = '" + other + "'",
			ok: func(rs *env.ResultSet) error {
				if rs.Rows[0][0] != int64(0) {
					return fmt.Errorf("saw %v tables of another database", rs.Rows[0][0])
				}
				return nil
			}},
		{name: "multi statement", sql: "SELECT 1; DROP TABLE singer", kinds: multi},
		{name: "semicolon in an executable comment", sql: "SELECT 1 /*!; DROP TABLE singer */", kinds: denied},
		{name: "backslash-escaped quote hides a semicolon", sql: `SELECT '\'; DROP TABLE singer; -- '`, kinds: multi},
		{name: "hash comment hides a line end", sql: "SELECT 1 #\n; DROP TABLE singer", kinds: multi},
		{name: "dash without a space is minus", sql: "SELECT 1 --1"},
		{name: "repeat bomb", sql: "SELECT LENGTH(REPEAT('x', 1000000000))", kinds: []error{env.ErrTooLarge}, bounded: true, ok: atMost(16 << 20)},
		{name: "group_concat bomb", sql: "SELECT LENGTH(GROUP_CONCAT(a.label)) FROM big a, big b WHERE b.x < 200",
			kinds: slowOrBig, bounded: true, ok: atMost(groupConcatMax)},
		{name: "recursive cte without end", sql: "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r",
			kinds: slowOrBig, bounded: true, ok: atMost(recursionDepth + 1)},
		{name: "cross join count", sql: "SELECT count(*) FROM big a, big b, big c", kinds: slowOrBig},
		{name: "temporary table bomb", sql: "SELECT DISTINCT CONCAT(a.label, b.label) AS v FROM big a, big b ORDER BY v DESC LIMIT 1", kinds: slowOrBig},
		{name: "a denied name that is the database's own column, quoted", sql: `SELECT "procedure" FROM singer`},
		{name: "a denied name that is the database's own column, bare", sql: `SELECT procedure FROM singer`, kinds: denied},
		{name: "connection id is harmless", sql: "SELECT CONNECTION_ID() > 0"},
	}
}

func TestAttacks(t *testing.T) { runAttacks(t, attacks) }

// runAttacks runs the attacks of list on a fixture database, a second
// database beside it, and checks that none changed the tables, wrote the
// file or left anything on the pooled connection.
func runAttacks(t *testing.T, list func(file, other string) []attack) {
	_, other := database(t, fixtureScript)
	d, name := openFixture(t, Config{MaxDBConns: 1, DefaultTimeout: 500 * time.Millisecond})
	admin := adminOf(t)
	before := checksums(t, admin, name)
	file := "/tmp/sqlgym-attack-" + randomHex()
	for _, a := range list(file, other) {
		t.Run(a.name, func(t *testing.T) {
			rs, err := d.Query(context.Background(), a.sql, env.Limits{MaxRows: 10})
			if !a.bounded || err != nil {
				enginetest.CheckKind(t, err, a.kinds)
			}
			if err == nil && a.ok != nil {
				if err := a.ok(rs); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
	if after := checksums(t, admin, name); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("tables changed: %v, were %v", after, before)
	}
	if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s: %v, want no such file", file, err)
	}
	checkNothingCarried(t, d, admin)
}
