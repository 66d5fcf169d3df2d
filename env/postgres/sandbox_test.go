package postgres

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// attacks are run with files written under dir, were they to escape.
func attacks(dir, schema string) []attack {
	denied, sqlErr, multi := []error{env.ErrDenied}, []error{env.ErrSQL}, []error{env.ErrMultiStatement}
	slow := []error{env.ErrTimeout}
	slowOrBig := []error{env.ErrTimeout, env.ErrTooLarge}
	deniedOrSQL := []error{env.ErrDenied, env.ErrSQL}
	file := filepath.Join(dir, "escaped")
	return []attack{
		{"commit and drop", "SELECT 1; COMMIT; DROP TABLE singer", multi},
		{"commit first", "COMMIT; DROP TABLE singer", multi},
		{"rollback and insert", "SELECT 1; ROLLBACK; INSERT INTO singer (singer_id, name) VALUES (9, 'x')", multi},
		{"dollar-quoted tail", "SELECT $a$x$a$; DROP TABLE singer", multi},
		{"set transaction read write", "SET TRANSACTION READ WRITE", denied},
		{"start transaction read write", "START TRANSACTION READ WRITE", denied},
		{"set_config read write", "SELECT set_config('transaction_read_only', 'off', true)", deniedOrSQL},
		{"set_config role", "SELECT set_config('role', 'postgres', false)", deniedOrSQL},
		{"set_config session authorization", "SELECT set_config('session_authorization', 'postgres', false)", deniedOrSQL},
		{"set_config default read write", "SELECT set_config('default_transaction_read_only', 'off', false)", denied},
		{"set_config statement timeout", "SELECT set_config('statement_timeout', '0', false), pg_sleep(30)", denied},
		{"set role", "SET ROLE postgres", denied},
		{"reset session authorization", "RESET SESSION AUTHORIZATION", denied},
		{"pg_sleep", "SELECT pg_sleep(30)", slow},
		{"pg_sleep in a where", "SELECT name FROM singer WHERE pg_sleep(30) IS NOT NULL", slow},
		{"generate_series count", "SELECT count(*) FROM generate_series(1, 1000000000000)", slowOrBig},
		{"generate_series rows", "SELECT g FROM generate_series(1, 1000000000000) AS g", slowOrBig},
		{"generate_series cross join", "SELECT count(*) FROM big AS a, big AS b, big AS c", slowOrBig},
		{"string_agg bomb", "SELECT string_agg(a.label, ',') FROM big AS a, big AS b", slowOrBig},
		{"repeat bomb", "SELECT repeat('x', 1000000000)", denied},
		{"recursive count", "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT count(*) FROM r", slowOrBig},
		{"recursive rows", "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x FROM r", slowOrBig},
		{"copy to program", "COPY singer TO PROGRAM 'touch " + file + "'", denied},
		{"copy query to program", "COPY (SELECT 1) TO PROGRAM 'touch " + file + "'", denied},
		{"copy to file", "COPY singer TO '" + file + "'", denied},
		{"copy from file", "COPY singer FROM '/etc/hostname'", denied},
		{"lo_import", "SELECT lo_import('/etc/hostname')", denied},
		{"lo_export", "SELECT lo_export(lo_create(0), '" + file + "')", denied},
		{"lo_create", "SELECT lo_create(0)", denied},
		{"pg_read_file", "SELECT pg_read_file('/etc/hostname')", denied},
		{"pg_ls_dir", "SELECT pg_ls_dir('.')", denied},
		{"dblink", "SELECT * FROM dblink('dbname=postgres user=postgres', 'DROP TABLE " + schema + ".singer') AS t(x text)", denied},
		{"dblink_exec quoted", `SELECT "dblink_exec"('dbname=postgres', 'DROP TABLE singer')`, denied},
		{"do block", "DO $$ BEGIN DROP TABLE singer; END $$", denied},
		{"insert", "INSERT INTO singer (singer_id, name) VALUES (9, 'x')", denied},
		{"update", "UPDATE singer SET age = 1", denied},
		{"delete", "DELETE FROM big", denied},
		{"truncate", "TRUNCATE big", denied},
		{"drop", "DROP TABLE singer", denied},
		{"create table", "CREATE TABLE t (x int)", denied},
		{"create temp table", "CREATE TEMP TABLE t (x int)", denied},
		{"select into", "SELECT * INTO TEMP t FROM singer", deniedOrSQL},
		{"data-modifying with", "WITH d AS (DELETE FROM singer RETURNING *) SELECT * FROM d", denied},
		{"for update", "SELECT * FROM singer FOR UPDATE", denied},
		{"explain analyze delete", "EXPLAIN ANALYZE DELETE FROM singer", denied},
		{"nextval", "SELECT nextval('sqlgym_none')", deniedOrSQL},
		{"terminate other sessions", "SELECT pg_terminate_backend(pid) FROM pg_stat_activity", denied},
		{"query_to_xml", "SELECT query_to_xml('SELECT pg_terminate_backend(1)', true, true, '')", denied},
		{"advisory lock", "SELECT pg_advisory_lock(42)", denied},
		{"prepare", "PREPARE p AS SELECT 1", denied},
		{"listen", "LISTEN x", denied},
		{"parameters", "SELECT * FROM singer WHERE name = $1", sqlErr},
		{"empty", " -- nothing\n ; ", sqlErr},
		{"typo", "SELEC name FROM singer", sqlErr},
		// The second round (issue 19): reading other sessions and
		// schemas, memory, durable writes.
		{"read other sessions' statements", "SELECT string_agg(query, ' ## ') FROM pg_stat_activity WHERE state = 'active' AND pid <> pg_backend_pid()", denied},
		{"read statement statistics", "SELECT query FROM pg_stat_statements", denied},
		{"read locks", "SELECT * FROM pg_locks", denied},
		{"read prepared statements", "SELECT * FROM pg_prepared_statements", denied},
		{"read every schema as xml", "SELECT database_to_xml(true, true, '')", denied},
		{"list other schemas", "SELECT nspname FROM pg_namespace", denied},
		{"memory bomb", "SELECT length(string_agg(s, '')) FROM (SELECT string_agg('x', '') AS s FROM generate_series(1, 1000000)) AS a, generate_series(1, 1000)", slowOrBig},
		{"wal write", "SELECT count(pg_logical_emit_message(false, 'x', 'y')) FROM generate_series(1, 20)", denied},
		{"transaction id", "SELECT txid_current()", denied},
		{"statistics reset", "SELECT pg_stat_reset()", denied},
	}
}

func TestAdversarialStatements(t *testing.T) {
	base, schema := fixture(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS dblink SCHEMA "+pgx.Identifier{schema}.Sanitize()); err != nil {
		t.Logf("dblink not installed (%v): its cases test the denial before the server only", err)
	}
	e := New(Config{MaxResultRows: 100_000})
	d, err := e.Open(ctx, Source(base, schema)) // a superuser's URL: the engine logs in as the reader
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	dir := t.TempDir()
	wantData := snapshot(t, conn, schema)
	lim := env.Limits{Timeout: time.Second}
	for _, tc := range attacks(dir, schema) {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			_, err := d.Query(ctx, tc.sql, lim)
			if took := time.Since(start); took > lim.Timeout+5*time.Second {
				t.Errorf("took %v, want about %v at most", took, lim.Timeout)
			}
			checkKind(t, err, tc.kinds)
			checkServing(t, d)
			if got := snapshot(t, conn, schema); got != wantData {
				t.Fatalf("the schema changed:\n%s\nwant\n%s", got, wantData)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Fatalf("a file appeared: %v", entries[0].Name())
			}
			checkNotRunning(t, base, tc.sql)
		})
	}
	checkSessionReset(t, d)
	if st := e.PoolStats(); st.InUse != 0 {
		t.Errorf("pool stats %+v after the attacks: connections still in use", st)
	}
}

// checkSessionReset checks that what a call set for its session is gone
// by the next call: settings.
func checkSessionReset(t *testing.T, d env.DB) {
	t.Helper()
	for range 4 { // whichever pooled connection each call gets
		rs, err := d.Query(context.Background(),
			"SELECT current_setting('default_transaction_read_only'), current_setting('work_mem')", env.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if want := []any{"on", "4MB"}; !reflect.DeepEqual(rs.Rows[0], want) {
			t.Fatalf("session after the attacks = %v, want %v", rs.Rows[0], want)
		}
	}
}

// snapshot describes the schema's tables and their contents, as the
// superuser sees them.
func snapshot(t *testing.T, conn *pgx.Conn, schema string) string {
	t.Helper()
	ctx := context.Background()
	var b strings.Builder
	rows, err := conn.Query(ctx, `SELECT c.relname, c.relkind FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY 1`, schema)
	if err != nil {
		t.Fatal(err)
	}
	rels, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Name string
		Kind string
	}])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		b.WriteString(r.Name + " " + r.Kind + "\n")
	}
	for _, table := range []string{"singer", "concert", "order items", "big"} {
		var digest string
		q := "SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) FROM " + pgx.Identifier{schema, table}.Sanitize() + " AS t"
		if err := conn.QueryRow(ctx, q).Scan(&digest); err != nil {
			t.Fatal(err)
		}
		b.WriteString(table + " " + digest + "\n")
	}
	var los int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM pg_largeobject_metadata").Scan(&los); err != nil {
		t.Fatal(err)
	}
	if los > 0 {
		b.WriteString("large objects\n")
	}
	return b.String()
}

// checkKind is the engines' shared check of an attack's error.
func checkKind(t *testing.T, err error, kinds []error) { enginetest.CheckKind(t, err, kinds) }
