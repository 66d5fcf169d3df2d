package postgres

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// spyStatements are what a model would run to read another session's
// SQL (a gold being judged, another episode's answer) or another task's
// schema. Each must be refused.
func spyStatements(other string) map[string]string {
	o := pgx.Identifier{other}.Sanitize()
	return map[string]string{
		"other sessions' statements":   "SELECT string_agg(query, ' ## ') FROM pg_stat_activity WHERE pid <> pg_backend_pid()",
		"activity, qualified":          "SELECT query FROM pg_catalog.pg_stat_activity",
		"activity, quoted":             `SELECT query FROM "pg_stat_activity"`,
		"activity function":            "SELECT * FROM pg_stat_get_activity(NULL)",
		"statement statistics":         "SELECT query FROM pg_stat_statements",
		"locks":                        "SELECT * FROM pg_locks",
		"lock status function":         "SELECT * FROM pg_lock_status()",
		"prepared statements":          "SELECT * FROM pg_prepared_statements",
		"another task's table":         "SELECT * FROM " + o + ".singer",
		"another task's schema as xml": "SELECT schema_to_xml('" + other + "', true, true, '')",
		"every schema as xml":          "SELECT database_to_xml(true, true, '')",
		"a table named as text":        "SELECT table_to_xml('" + other + ".singer', true, true, '')",
		"other schemas' names":         "SELECT nspname FROM pg_namespace",
		"other tables' names":          "SELECT relname FROM pg_class",
		"other tables' statistics":     "SELECT most_common_vals FROM pg_stats",
		"switch to another role":       "SELECT set_config('role', '" + SchemaRole(DefaultRole, other) + "', true)",
	}
}

// TestAModelSeesNoOtherSessionOrSchema is issue 19's first case: while
// another schema's statements run, a model's statements learn nothing of
// them, and nothing of any other schema.
func TestAModelSeesNoOtherSessionOrSchema(t *testing.T) {
	base, mine := fixture(t)
	_, other := fixture(t)
	e := New(Config{})
	ctx := context.Background()
	d := open(t, e, base, mine)
	o := open(t, e, base, other)
	stop := runGold(t, o, base, "sqlgym_gold_marker")
	defer stop()
	for name, sql := range spyStatements(other) {
		t.Run(name, func(t *testing.T) {
			_, err := d.Query(ctx, sql, env.Limits{Timeout: 2 * time.Second})
			checkKind(t, err, []error{env.ErrDenied})
		})
	}
	rs, err := d.Query(ctx, "SELECT table_schema FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema')", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs.Rows {
		if r[0] != mine {
			t.Errorf("information_schema.tables lists a table of schema %v", r[0])
		}
	}
}

// TestTheSchemaRoleHidesOtherSessions checks the guard under the
// statement check: with the check bypassed, a session of the schema's
// role still reads no other session's query text, and no other schema.
func TestTheSchemaRoleHidesOtherSessions(t *testing.T) {
	base, mine := fixture(t)
	_, other := fixture(t)
	o := open(t, New(Config{}), base, other)
	stop := runGold(t, o, base, "sqlgym_gold_marker")
	defer stop()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User = DefaultRole
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, "SET LOCAL ROLE "+pgx.Identifier{SchemaRole(DefaultRole, mine)}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	var seen int
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%sqlgym_gold_marker%'").Scan(&seen); err != nil {
		t.Fatal(err)
	}
	if seen != 0 {
		t.Errorf("the schema's role read %d statements of another session", seen)
	}
	if _, err := tx.Exec(ctx, "SELECT * FROM "+pgx.Identifier{other, "singer"}.Sanitize()); err == nil {
		t.Error("the schema's role read another schema's table")
	}
}

// TestNoDurableWrites is issue 19's third case: every function that could
// write past the rolled-back transaction is refused, and the WAL does not
// grow by what the attack would have written.
func TestNoDurableWrites(t *testing.T) {
	d, base, _ := openFixture(t, Config{})
	ctx := context.Background()
	before := walBytes(t, base)
	for _, sql := range []string{
		"SELECT count(pg_logical_emit_message(false, 'x', string_agg('y', ''))) FROM generate_series(1, 1000000)",
		"SELECT pg_logical_emit_message(true, 'x', 'y')",
		"SELECT txid_current()",
		"SELECT pg_current_xact_id()",
		"SELECT nextval('s')",
		"SELECT setval('s', 1)",
		"SELECT pg_notify('c', 'x')",
		"SELECT pg_stat_reset()",
		"SELECT pg_stat_reset_shared('bgwriter')",
		"SELECT pg_stat_reset_single_table_counters(1)",
		"SELECT pg_switch_wal()",
		"SELECT pg_create_restore_point('x')",
		"SELECT pg_replication_origin_create('x')",
		"SELECT pg_create_logical_replication_slot('x', 'test_decoding')",
		"SELECT lo_create(0)",
		"SELECT lo_from_bytea(0, '\\x00')",
		"SELECT set_config('work_mem', '4GB', false)",
		"SELECT pg_advisory_lock(1)",
		"SELECT pg_try_advisory_xact_lock(1)",
		"SELECT pg_reload_conf()",
		"SELECT pg_rotate_logfile()",
		"SELECT pg_file_write('x', 'y', false)",
		"SELECT pg_log_backend_memory_contexts(1)",
	} {
		t.Run(sql, func(t *testing.T) {
			_, err := d.Query(ctx, sql, env.Limits{Timeout: 2 * time.Second})
			checkKind(t, err, []error{env.ErrDenied})
		})
	}
	if grew := walBytes(t, base) - before; grew > 8<<20 {
		t.Errorf("the WAL grew by %d bytes during the attacks", grew)
	}
	rs, err := d.Query(ctx, "SELECT current_setting('log_min_messages'), current_setting('log_min_error_statement')", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Rows[0]; got[0] != "fatal" || got[1] != "panic" {
		t.Errorf("the reader's errors reach the server's log: log_min_messages %v, log_min_error_statement %v", got[0], got[1])
	}
}

// walBytes is the server's WAL position in bytes.
func walBytes(t *testing.T, base string) int64 {
	t.Helper()
	var n int64
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, "SELECT pg_current_wal_lsn() - '0/0'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// open opens schema on base with e, closed when the test ends.
func open(t *testing.T, e *Engine, base, schema string) env.DB {
	t.Helper()
	d, err := e.Open(context.Background(), Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// runGold keeps a statement holding marker running on d, as a judge
// would run a gold, until stop is called; it returns once the server
// runs it.
func runGold(t *testing.T, d env.DB, base, marker string) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			d.Query(ctx, "SELECT name, pg_sleep(0.2) FROM singer WHERE name <> '"+marker+"'", env.Limits{Timeout: 5 * time.Second})
		}
	}()
	waitfor.Until(t, "the gold runs", func() bool {
		for _, q := range running(t, base, marker) {
			if strings.Contains(q, "pg_sleep") {
				return true
			}
		}
		return false
	})
	return func() { cancel(); wg.Wait() }
}

// TestAColumnNamedLikeACatalogRelation: a column of the task's own
// schema named like a denied relation is usable qualified; unqualified,
// the name is the catalog's and stays denied.
func TestAColumnNamedLikeACatalogRelation(t *testing.T) {
	base, schema := pgtest.Schema(t, `CREATE TABLE roles (pg_locks text); INSERT INTO roles VALUES ('mine');`)
	ensureReader(t, schema)
	d := open(t, New(Config{}), base, schema)
	ctx := context.Background()
	rs, err := d.Query(ctx, "SELECT r.pg_locks FROM roles AS r", env.Limits{})
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0] != "mine" {
		t.Fatalf("qualified own column: %v, %v", rs, err)
	}
	_, err = d.Query(ctx, "SELECT * FROM pg_locks", env.Limits{})
	checkKind(t, err, []error{env.ErrDenied})
}
