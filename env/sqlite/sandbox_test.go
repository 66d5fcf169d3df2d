package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/enginetest"
)

// attack is one hostile statement and the kinds of *env.QueryError it may
// end in; no kinds means it must succeed (a harmless spelling).
type attack struct {
	name  string
	sql   string
	kinds []error
}

// attacks are run against a database whose directory is dir.
func attacks(dir string) []attack {
	denied, sqlErr, multi := []error{env.ErrDenied}, []error{env.ErrSQL}, []error{env.ErrMultiStatement}
	slow := []error{env.ErrTimeout}
	big := []error{env.ErrTooLarge}
	slowOrBig := []error{env.ErrTimeout, env.ErrTooLarge}
	newFile := filepath.Join(dir, "new.db")
	return []attack{
		{"insert", "INSERT INTO singer (singer_id, name) VALUES (9, 'x')", denied},
		{"update", "UPDATE singer SET age = 1", denied},
		{"delete", "DELETE FROM big", denied},
		{"replace", "REPLACE INTO singer (singer_id, name) VALUES (1, 'x')", denied},
		{"insert or replace", "INSERT OR REPLACE INTO singer (singer_id, name) VALUES (1, 'x')", denied},
		{"upsert", "INSERT INTO singer (singer_id, name) VALUES (1, 'x') ON CONFLICT(singer_id) DO UPDATE SET name = 'y'", denied},
		{"with insert", "WITH n(v) AS (SELECT 9) INSERT INTO concert (concert_id, singer_id) SELECT v, 1 FROM n", denied},
		{"with update", "WITH n AS (SELECT 1) UPDATE singer SET name = 'x'", denied},
		{"with delete", "WITH n AS (SELECT 1) DELETE FROM singer", denied},
		{"create table", "CREATE TABLE t (x)", denied},
		{"create table as", "CREATE TABLE t AS SELECT * FROM singer", denied},
		{"create index", "CREATE INDEX i ON singer(name)", denied},
		{"create view", "CREATE VIEW v AS SELECT 1", denied},
		{"create trigger", "CREATE TRIGGER tr AFTER INSERT ON singer BEGIN DELETE FROM big; END", []error{env.ErrDenied, env.ErrMultiStatement}},
		{"create trigger one body statement", "CREATE TRIGGER tr AFTER INSERT ON singer BEGIN SELECT 1 END", denied},
		{"create temp table", "CREATE TEMP TABLE t (x)", denied},
		{"create temp view", "CREATE TEMP VIEW v AS SELECT 1", denied},
		{"create virtual table", "CREATE VIRTUAL TABLE f USING fts4(x)", denied},
		{"drop table", "DROP TABLE singer", denied},
		{"drop index", "DROP INDEX concert_year", denied},
		{"drop view", "DROP VIEW singer_names", denied},
		{"alter add column", "ALTER TABLE singer ADD COLUMN z", denied},
		{"alter rename", "ALTER TABLE singer RENAME TO s2", denied},
		{"explain create", "EXPLAIN CREATE TABLE t (x)", denied},
		{"explain insert", "EXPLAIN INSERT INTO singer (name) VALUES ('x')", denied},
		{"attach file", "ATTACH DATABASE '" + newFile + "' AS x", denied},
		{"attach memory", "ATTACH ':memory:' AS m", denied},
		{"explain attach", "EXPLAIN ATTACH '" + newFile + "' AS x", denied},
		{"detach", "DETACH DATABASE main", denied},
		{"pragma query_only", "PRAGMA query_only = 0", denied},
		{"pragma query_only spelled", "pragma Query_Only=OFF", denied},
		{"pragma writable_schema", "PRAGMA writable_schema = 1", denied},
		{"pragma writable_schema main", "PRAGMA main.WRITABLE_SCHEMA=ON", denied},
		{"pragma journal_mode", "PRAGMA journal_mode = WAL", denied},
		{"pragma journal_mode call", "PRAGMA journal_mode(delete)", denied},
		{"pragma user_version", "PRAGMA user_version = 5", denied},
		{"pragma temp_store_directory", "PRAGMA temp_store_directory = '" + dir + "'", denied},
		{"pragma database_list (shows the file path)", "PRAGMA database_list", denied},
		{"pragma function", "SELECT * FROM pragma_journal_mode('wal')", []error{env.ErrDenied, env.ErrSQL}},
		{"comment then drop", "SELECT 1 -- \n; DROP TABLE singer", multi},
		{"block comment then delete", "SELECT 1 /* */; DELETE FROM singer", multi},
		{"comment hides keyword", "/* SELECT */ DELETE FROM singer", denied},
		{"comment inside", "SELECT 1 /*; DROP TABLE singer */", nil},
		{"line comment inside", "SELECT 1 -- ; DROP TABLE singer", nil},
		{"two statements", "SELECT 1; DELETE FROM singer", multi},
		{"commit and drop", "SELECT 1; COMMIT; DROP TABLE singer", multi},
		{"begin", "BEGIN", denied},
		{"begin immediate", "BEGIN IMMEDIATE", denied},
		{"commit", "COMMIT", denied},
		{"rollback", "ROLLBACK", denied},
		{"savepoint", "SAVEPOINT a", denied},
		{"release", "RELEASE a", denied},
		{"vacuum", "VACUUM", denied},
		{"vacuum into", "VACUUM INTO '" + newFile + "'", denied},
		{"explain vacuum into", "EXPLAIN VACUUM INTO '" + newFile + "'", denied},
		{"reindex", "REINDEX", denied},
		{"reindex index", "REINDEX concert_year", denied},
		{"analyze", "ANALYZE", denied},
		{"load_extension", "SELECT load_extension('x')", denied},
		{"load_extension entry", "SELECT load_extension('/tmp/x.so', 'sqlite3_x_init')", denied},
		{"fts3_tokenizer", "SELECT fts3_tokenizer('simple')", denied},
		{"readfile", "SELECT readfile('/etc/passwd')", sqlErr},
		{"writefile", "SELECT writefile('" + newFile + "', 'x')", sqlErr},
		{"sqlite_master insert", "INSERT INTO sqlite_master VALUES ('table', 'x', 'x', 0, '')", denied},
		{"sqlite_master update", "WITH n AS (SELECT 1) UPDATE sqlite_master SET sql = 'x'", []error{env.ErrDenied, env.ErrSQL}},
		{"sqlite_master delete", "WITH n AS (SELECT 1) DELETE FROM sqlite_master", []error{env.ErrDenied, env.ErrSQL}},
		{"parameters", "SELECT * FROM singer WHERE name = ?", sqlErr},
		// The second round (issue 19), as a model trained on PostgreSQL
		// would try them here.
		{"read other sessions' statements", "SELECT * FROM pg_stat_activity", sqlErr},
		{"read every schema as xml", "SELECT database_to_xml(true, true, '')", sqlErr},
		{"wal write", "SELECT pg_logical_emit_message(false, 'x', 'y')", sqlErr},
		{"memory bomb", "SELECT length(group_concat(s, '')) FROM (SELECT group_concat(label, '') AS s FROM big) AS a, big AS b", slowOrBig},
		{"empty", " -- nothing\n ; ", sqlErr},
		{"recursive count", "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r", slow},
		{"recursive rows", "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r", slowOrBig},
		{"recursive union", "WITH RECURSIVE r(x) AS (SELECT 1 UNION SELECT x + 1 FROM r) SELECT max(x) FROM r", slow},
		{"randomblob", "SELECT randomblob(2000000000)", big},
		{"zeroblob", "SELECT zeroblob(1e9)", big},
		{"printf", "SELECT printf('%.*c', 2000000000, 'x')", big},
		{"replace blow-up", "SELECT replace(hex(zeroblob(4000000)), '0', '0000000000')", big},
		// On a loaded machine the value may not reach the size limit before
		// the timeout: either way the call is bounded.
		{"group_concat blow-up", "SELECT group_concat(a.label) FROM big AS a, (SELECT 1 FROM big LIMIT 2000) AS b", slowOrBig},
		{"group_concat cross join", "SELECT group_concat(a.label) FROM big AS a, big AS b", slowOrBig},
		{"cross join rows", "SELECT a.x, b.x FROM big AS a, big AS b", slowOrBig},
		{"cross join count", "SELECT count(*) FROM big AS a, big AS b, big AS c", slow},
		{"order by cross join", "SELECT a.x, b.x FROM big AS a, big AS b ORDER BY random()", slow},
		{"order by cross join limit", "SELECT a.label FROM big AS a, big AS b ORDER BY a.label || b.label DESC LIMIT 1", slow},
	}
}

func TestAdversarialStatements(t *testing.T) {
	d, path := openFixture(t)
	dir := filepath.Dir(path)
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wantHash, wantDir, wantWD := fileHash(t, path), listDir(t, dir), listDir(t, wd)
	lim := env.Limits{Timeout: time.Second, MaxRows: 0}
	cases := attacks(dir)
	if len(cases) < 30 {
		t.Fatalf("only %d attacks", len(cases))
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := d.Query(context.Background(), tc.sql, lim)
			if took := time.Since(start); took > lim.Timeout+time.Second {
				t.Errorf("took %v, want at most %v", took, lim.Timeout+time.Second)
			}
			checkKind(t, err, tc.kinds)
			checkServing(t, d)
			if got := fileHash(t, path); got != wantHash {
				t.Fatalf("database file changed: sha256 %s, want %s", got, wantHash)
			}
			if got := listDir(t, dir); !reflect.DeepEqual(got, wantDir) {
				t.Fatalf("database directory holds %v, want %v", got, wantDir)
			}
			if got := listDir(t, wd); !reflect.DeepEqual(got, wantWD) {
				t.Fatalf("working directory holds %v, want %v", got, wantWD)
			}
		})
	}
}

// checkServing checks that an ordinary query still works.
func checkServing(t *testing.T, d env.DB) {
	t.Helper()
	rs, err := d.Query(context.Background(), "SELECT name FROM singer WHERE singer_id = 2", env.Limits{})
	if err != nil {
		t.Fatalf("ordinary query after the attack: %v", err)
	}
	if want := [][]any{{"Bo"}}; !reflect.DeepEqual(rs.Rows, want) {
		t.Fatalf("ordinary query after the attack = %v, want %v", rs.Rows, want)
	}
}

func TestDeniedMessagesNameTheAction(t *testing.T) {
	d, _ := openFixture(t)
	tests := []struct{ sql, want string }{
		{"WITH n AS (SELECT 1) DELETE FROM singer", "DELETE from singer"},
		{"EXPLAIN CREATE TABLE t (x)", "changing the schema"},
		{"EXPLAIN ALTER TABLE singer ADD COLUMN z", "ALTER TABLE singer"},
		{"EXPLAIN BEGIN", "BEGIN (a transaction)"},
		{"PRAGMA query_only = 0", "PRAGMA query_only = 0"},
		{"SELECT load_extension('x')", "load_extension()"},
		{"VACUUM", "VACUUM statements are not allowed"},
		{"EXPLAIN ATTACH ':memory:' AS m", "ATTACH"},
		{"SELECT 1; SELECT 2", "only one statement per call is allowed"},
	}
	for _, tc := range tests {
		_, err := d.Query(context.Background(), tc.sql, env.Limits{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Query(%q) = %v, want a message containing %q", tc.sql, err, tc.want)
		}
	}
}

// checkKind is the engines' shared check of an attack's error.
func checkKind(t *testing.T, err error, kinds []error) { enginetest.CheckKind(t, err, kinds) }
