package mysql

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/enginetest"
)

func TestValuesAreFaithful(t *testing.T) {
	d, _ := openFixture(t, Config{})
	rs := query(t, d, "SELECT * FROM singer ORDER BY singer_id", env.Limits{})
	want := [][]any{
		{int64(1), "Ana", "France", int64(30), 1.5, []byte{0, 0xff}, "1990-01-02", "2020-01-02 03:04:05", "2021-05-06 07:08:09",
			int64(10), `{"k": [1, 2]}`, 0.1, float64(math.MaxUint64), nil},
		{int64(2), "Bo", "Spain", nil, 2.0, nil, nil, nil, nil, int64(0), "null", 1e300, int64(7), nil},
		{int64(3), "Cy", nil, int64(41), nil, []byte{}, nil, nil, nil, nil, nil, -2.5, nil, nil},
		{int64(4), "Dé", "Perú", int64(25), 12345678.25, nil, nil, nil, nil, nil, nil, 0.0, int64(0), nil},
	}
	if !reflect.DeepEqual(rs.Rows, want) {
		t.Errorf("rows:\n got %#v\nwant %#v", rs.Rows, want)
	}
	if rs.Columns[0] != "singer_id" || len(rs.Columns) != 14 {
		t.Errorf("columns = %v", rs.Columns)
	}
	rs = query(t, d, "SELECT 7 DIV 2, 7 / 2, CAST('x' AS BINARY), NULL, 'a' = 'A', SUM(net_worth), 1 / 3, AVG(singer_id), SUM(age) FROM singer", env.Limits{})
	if want := []any{int64(3), 3.5, []byte("x"), nil, int64(1), 12345681.75, 1.0 / 3, 2.5, int64(96)}; !reflect.DeepEqual(rs.Rows[0], want) {
		t.Errorf("expressions = %#v, want %#v", rs.Rows[0], want)
	}
}

func TestTablesAndDescribe(t *testing.T) {
	d, _ := openFixture(t, Config{})
	tables, err := d.Tables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Name)
	}
	if want := []string{"big", "concert", "digits", "order items", "singer"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tables = %v, want %v", names, want)
	}
	c, err := d.Describe(context.Background(), "CONCERT", 2)
	if err != nil {
		t.Fatal(err)
	}
	wantFK := []env.ForeignKey{{Columns: []string{"singer_id"}, RefTable: "singer", RefColumns: []string{"singer_id"}}}
	if c.Name != "concert" || !reflect.DeepEqual(c.PrimaryKey, []string{"concert_id"}) || !reflect.DeepEqual(c.ForeignKeys, wantFK) {
		t.Errorf("concert = %+v", c)
	}
	if !c.Columns[1].NotNull || c.Columns[2].NotNull || !strings.HasPrefix(c.Columns[0].Type, "int") {
		t.Errorf("columns = %+v", c.Columns)
	}
	if c.Samples == nil || len(c.Samples.Rows) != 2 {
		t.Errorf("samples = %+v, want 2 rows", c.Samples)
	}
	o, err := d.Describe(context.Background(), "order items", 0)
	if err != nil || !reflect.DeepEqual(o.PrimaryKey, []string{"select", "id"}) {
		t.Errorf("order items = %+v, %v; want the key (select, id)", o, err)
	}
	_, err = d.Describe(context.Background(), "nope", 0)
	if !errors.Is(err, env.ErrNoSuchTable) {
		t.Errorf("describe nope: %v, want no such table", err)
	}
}

func TestBounds(t *testing.T) {
	d, _ := openFixture(t, Config{MaxResultRows: 5000, MaxDBConns: 1})
	rs := query(t, d, "SELECT x, label FROM big ORDER BY x", env.Limits{MaxRows: 3, MaxCellBytes: 4})
	if len(rs.Rows) != 3 || !rs.Truncated || rs.Rows[2][1] != "row …" {
		t.Errorf("capped = %v truncated %v", rs.Rows, rs.Truncated)
	}
	_, err := d.Query(context.Background(), "SELECT x FROM big", env.Limits{})
	enginetest.CheckKind(t, err, []error{env.ErrTooLarge})
	if st := d.eng.PoolStats(); st.Open > 1 || st.InUse != 0 {
		t.Errorf("pool stats %+v: want at most the one connection, idle", st)
	}
	// The one connection was stopped and dropped; the next call has a new one.
	rs = query(t, d, "SELECT count(*) FROM big", env.Limits{})
	if rs.Rows[0][0] != int64(10000) {
		t.Errorf("count = %v", rs.Rows[0][0])
	}
}

func TestReadsNameTablesAndColumns(t *testing.T) {
	d, _ := openFixture(t, Config{})
	tests := []struct {
		sql            string
		tables, fields []string
	}{
		{"SELECT name FROM singer WHERE age > 30", []string{"singer"}, []string{"singer.age", "singer.name"}},
		{"SELECT count(*) FROM concert", []string{"concert"}, []string{}},
		{"SELECT T1.name, T2.year FROM singer AS T1 JOIN concert AS T2 ON T1.singer_id = T2.singer_id",
			[]string{"concert", "singer"}, []string{"concert.singer_id", "concert.year", "singer.name", "singer.singer_id"}},
		{`SELECT "order items".* FROM "order items"`, []string{"order items"}, []string{"order items.concert_id", "order items.id", "order items.select"}},
		{"SELECT 1", []string{}, []string{}},
	}
	for _, tc := range tests {
		rs := query(t, d, tc.sql, env.Limits{Reads: true})
		if !reflect.DeepEqual(rs.ReadTables, tc.tables) || !reflect.DeepEqual(rs.ReadColumns, tc.fields) {
			t.Errorf("%s: read %v %v, want %v %v", tc.sql, rs.ReadTables, rs.ReadColumns, tc.tables, tc.fields)
		}
	}
	if rs := query(t, d, "SELECT name FROM singer", env.Limits{}); rs.ReadTables != nil {
		t.Errorf("reads without Limits.Reads = %v, want nil", rs.ReadTables)
	}
}

func TestStatementErrors(t *testing.T) {
	d, _ := openFixture(t, Config{})
	tests := []struct {
		sql  string
		kind error
		want string
	}{
		{"SELECT nope FROM singer", env.ErrSQL, "Unknown column 'nope'"},
		{"SELECT * FROM nope", env.ErrSQL, "doesn't exist"},
		{"SELEC 1", env.ErrSQL, "syntax error"},
		{"SELECT 1; SELECT 2", env.ErrMultiStatement, "one statement"},
		{"SELECT 1 # a comment", nil, ""},
		{"EXPLAIN SELECT name FROM singer", nil, ""},
		// the catalog query the prompt gives (tools.schemaHint)
		{"SELECT table_name, column_name, column_type FROM information_schema.columns WHERE table_schema = DATABASE() ORDER BY table_name, ordinal_position", nil, ""},
		{"VALUES (1), (2)", nil, ""},
		{"WITH t AS (SELECT 1 AS x) SELECT x FROM t", nil, ""},
		{"SELECT 1 # a comment; SELECT 2", env.ErrMultiStatement, "one statement"}, // either lexer's count of two refuses
		{"SELECT '\\'; SELECT 2'", env.ErrMultiStatement, "one statement"},
	}
	for _, tc := range tests {
		_, err := d.Query(context.Background(), tc.sql, env.Limits{})
		if tc.kind == nil {
			if err != nil {
				t.Errorf("%s: %v", tc.sql, err)
			}
			continue
		}
		if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %v saying %q", tc.sql, err, tc.kind, tc.want)
		}
	}
}

func TestSourceAndAccount(t *testing.T) {
	if _, err := parseSource("mysql://root@h:3306/"); err == nil {
		t.Error("a source without #DATABASE was accepted")
	}
	if _, err := parseSource("mysql://root@h:3306/db#x"); err == nil {
		t.Error("a URL naming a database was accepted")
	}
	if _, err := parseSource("postgres://h/#x"); err == nil {
		t.Error("a postgres URL was accepted")
	}
	if got := Redact("mysql://u:secret@h:1/#db"); strings.Contains(got, "secret") || !strings.HasSuffix(got, "#db") {
		t.Errorf("Redact = %q", got)
	}
	long := Account("sqlgym_reader", "cre_Doc_Template_Mgt")
	other := Account("sqlgym_reader", "cre_Doc_Template_Mgx")
	if len([]rune(long)) > maxAccountChars || long == other {
		t.Errorf("accounts %q and %q: want distinct names of at most %d characters", long, other, maxAccountChars)
	}
	if got := Account("r", "db"); got != "r.db" {
		t.Errorf("Account = %q", got)
	}
	if got := grantDB("a_b%c"); got != "`a\\_b\\%c`" {
		t.Errorf("grantDB = %s", got)
	}
}

// TestSessionMemoryBound: on MariaDB a statement whose session passes
// max_session_mem_used (Config.MaxSessionMemory) fails as too large, and
// the next statement runs.
func TestSessionMemoryBound(t *testing.T) {
	d, _ := openFixture(t, Config{MaxSessionMemory: 8 << 20, MaxDBConns: 1})
	if !d.srv.maria {
		t.Skip("max_session_mem_used is MariaDB's") // the tests run on MariaDB (scripts/mariadb-up)
	}
	_, err := d.Query(context.Background(),
		"SELECT count(*) FROM (SELECT DISTINCT CONCAT(a.x, 'x', b.x) AS v FROM big a, big b WHERE b.x <= 200) AS t", env.Limits{Timeout: time.Minute})
	enginetest.CheckKind(t, err, []error{env.ErrTooLarge})
	if !strings.Contains(err.Error(), "max-session-mem-used") {
		t.Errorf("err = %v, want it to name the bound", err)
	}
	if rs := query(t, d, "SELECT count(*) FROM singer", env.Limits{}); rs.Rows[0][0] != int64(4) {
		t.Errorf("next statement: %v", rs.Rows)
	}
}

// TestIdleConnectionsWithinTheServerBound: a connection is kept idle only
// while the server's databases hold at most MaxConns in all.
func TestIdleConnectionsWithinTheServerBound(t *testing.T) {
	url, a := database(t, fixtureScript)
	_, b := database(t, fixtureScript)
	e := New(Config{MaxConns: 1})
	for _, name := range []string{a, b, a, b} {
		d, err := e.Open(context.Background(), Source(url, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Close() })
		query(t, d, "SELECT count(*) FROM singer", env.Limits{})
		if st := e.PoolStats(); st.Open != 1 || st.InUse != 0 {
			t.Fatalf("after a statement on %s: %+v, want 1 connection open, idle", name, st)
		}
	}
}
