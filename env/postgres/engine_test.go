package postgres

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

func TestValues(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	rs, err := d.Query(context.Background(), `SELECT singer_id, name, country, age, net_worth, photo, born, updated,
		active, tags, info, ratio FROM singer ORDER BY singer_id`, env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"singer_id", "name", "country", "age", "net_worth", "photo", "born", "updated",
		"active", "tags", "info", "ratio"}
	if !reflect.DeepEqual(rs.Columns, wantCols) {
		t.Errorf("columns = %v, want %v", rs.Columns, wantCols)
	}
	want := [][]any{
		{int64(1), "Ana", "France", int64(30), 1.5, []byte{0, 0xff}, "1990-01-02", "2020-01-02 03:04:05",
			true, "{a,b}", `{"k": [1, 2]}`, 0.1},
		{int64(2), "Bo", "Spain", nil, 2.0, nil, nil, nil, false, "{}", "null", math.NaN()},
		{int64(3), "Cy", nil, int64(41), nil, []byte{}, nil, nil, nil, nil, nil, math.Inf(-1)},
		{int64(4), "Dé", "Perú", int64(25), 12345678.25, nil, nil, nil, nil, nil, nil, 1e300},
	}
	if len(rs.Rows) != len(want) {
		t.Fatalf("rows = %v, want %v", rs.Rows, want)
	}
	for i := range want {
		if !sameRow(rs.Rows[i], want[i]) {
			t.Errorf("row %d = %#v, want %#v", i, rs.Rows[i], want[i])
		}
	}
}

// sameRow compares rows, NaN equal to NaN.
func sameRow(got, want []any) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		g, gok := got[i].(float64)
		w, wok := want[i].(float64)
		if gok && wok && math.IsNaN(g) && math.IsNaN(w) {
			continue
		}
		if !reflect.DeepEqual(got[i], want[i]) {
			return false
		}
	}
	return true
}

func TestAggregateValues(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	rs, err := d.Query(context.Background(),
		"SELECT sum(x), avg(x), count(*), sum(x)::numeric / 4, max(label), 7::bigint, now()::date = current_date FROM big", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(50005000), 5000.5, int64(10000), 12501250.0, "row 9999", int64(7), true}
	if !reflect.DeepEqual(rs.Rows[0], want) {
		t.Errorf("row = %#v, want %#v", rs.Rows[0], want)
	}
}

// TestNumericPastFloat64 pins what docs/engines.md says of numeric
// values float64 cannot hold: a whole number within int64 is exact, any
// other value is the nearest float64, so digits past the 17th are lost
// and two numerics that differ only there read the same.
func TestNumericPastFloat64(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	rs, err := d.Query(context.Background(), `SELECT 9223372036854775807::numeric, 9223372036854775808::numeric,
0.1::numeric, 123456789012345678.5::numeric, 1.23456789012345678901::numeric, 1.23456789012345678999::numeric,
'NaN'::numeric, 'Infinity'::numeric, 12345678901234567890::numeric::text`, env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	row := rs.Rows[0]
	want := []any{int64(math.MaxInt64), 9223372036854775808.0, 0.1, 1.2345678901234568e17, 1.2345678901234568, 1.2345678901234568}
	if !reflect.DeepEqual(row[:6], want) {
		t.Errorf("numerics = %#v, want %#v", row[:6], want)
	}
	if f, ok := row[6].(float64); !ok || !math.IsNaN(f) || row[7] != math.Inf(1) || row[8] != "12345678901234567890" {
		t.Errorf("NaN, Infinity, ::text = %#v, %#v, %#v; want NaN, +Inf and every digit as text", row[6], row[7], row[8])
	}
}

func TestLimits(t *testing.T) {
	d, _, _ := openFixture(t, Config{MaxResultRows: 5000})
	ctx := context.Background()
	tests := []struct {
		name  string
		sql   string
		lim   env.Limits
		rows  int
		trunc bool
		kind  error
	}{
		{"row cap", "SELECT x FROM big ORDER BY x", env.Limits{MaxRows: 50}, 50, true, nil},
		{"exactly the cap", "SELECT x FROM big WHERE x <= 50", env.Limits{MaxRows: 50}, 50, false, nil},
		{"byte budget", "SELECT label FROM big", env.Limits{MaxResultBytes: 10 * (24 + 16 + 8)}, 10, true, nil},
		{"many batches", "SELECT x FROM big WHERE x <= 3000", env.Limits{}, 3000, false, nil},
		{"ceiling", "SELECT x FROM big", env.Limits{}, 0, false, env.ErrTooLarge},
		{"a hundred million rows, capped", "SELECT a.x, b.x FROM big AS a, big AS b", env.Limits{MaxRows: 10}, 10, true, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := d.Query(ctx, tc.sql, tc.lim)
			if tc.kind != nil {
				if !errors.Is(err, tc.kind) {
					t.Fatalf("err = %v, want %v", err, tc.kind)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Rows) != tc.rows || rs.Truncated != tc.trunc {
				t.Errorf("%d rows, truncated %v; want %d, %v", len(rs.Rows), rs.Truncated, tc.rows, tc.trunc)
			}
		})
	}
	rs, err := d.Query(ctx, "SELECT string_agg('é', '') FROM generate_series(1, 10)", env.Limits{MaxCellBytes: 5})
	if err != nil || rs.Rows[0][0] != "éé…" || !rs.Truncated {
		t.Errorf("cut cell = %v, %v; want éé… and truncated", rs, err)
	}
}

func TestRowTooLong(t *testing.T) {
	d, _, _ := openFixture(t, Config{MaxValueBytes: 1 << 16})
	_, err := d.Query(context.Background(), "SELECT string_agg('x', '') FROM generate_series(1, 100000)", env.Limits{})
	if !errors.Is(err, env.ErrTooLarge) {
		t.Fatalf("err = %v, want too large", err)
	}
	checkServing(t, d)
}

func TestReadColumns(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT name FROM singer WHERE age > 20", []string{"singer.age", "singer.name"}},
		{"SELECT count(*) FROM singer", []string{}},
		{`SELECT s.name, c.year FROM singer AS s JOIN concert AS c ON c.singer_id = s.singer_id WHERE c.year = 2015`,
			[]string{"concert.singer_id", "concert.year", "singer.name", "singer.singer_id"}},
		{`SELECT "select" FROM "order items" WHERE id = 1`, []string{"order items.id", "order items.select"}},
		{"SELECT name FROM singer WHERE country = 'a.b' ORDER BY age", []string{"singer.age", "singer.country", "singer.name"}},
		{"SELECT 1", []string{}},
		{"EXPLAIN SELECT name FROM singer", []string{}},
		{"SELECT n FROM (SELECT name AS n FROM singer) AS sub", []string{"singer.name"}},
		{"SELECT upper(name), sum(age) FROM singer GROUP BY name LIMIT 2", []string{"singer.age", "singer.name"}},
		{"SELECT name::text, true FROM singer", []string{"singer.name"}},
	}
	for _, tc := range tests {
		rs, err := d.Query(context.Background(), tc.sql, env.Limits{Reads: true})
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if !reflect.DeepEqual(rs.ReadColumns, tc.want) {
			t.Errorf("%s: read columns %q, want %q", tc.sql, rs.ReadColumns, tc.want)
		}
	}
}

func TestReadTables(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	tests := []struct {
		sql  string
		want []string
	}{
		{"SELECT count(*) FROM singer", []string{"singer"}},
		{`SELECT s.name FROM singer AS s JOIN concert AS c ON c.singer_id = s.singer_id`, []string{"concert", "singer"}},
		{"SELECT 4", []string{}},
		{"SELECT 4 FROM information_schema.schemata LIMIT 1", []string{}},
		{"EXPLAIN SELECT name FROM singer", []string{}},
	}
	for _, tc := range tests {
		rs, err := d.Query(context.Background(), tc.sql, env.Limits{Reads: true})
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		if !reflect.DeepEqual(rs.ReadTables, tc.want) {
			t.Errorf("%s: read tables %q, want %q", tc.sql, rs.ReadTables, tc.want)
		}
	}
}

func TestSchemaCalls(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	ctx := context.Background()
	tables, err := d.Tables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tb := range tables {
		names = append(names, tb.Name)
	}
	if want := []string{"singer", "concert", "order items", "big"}; !reflect.DeepEqual(names, want) {
		t.Errorf("tables = %v, want %v", names, want)
	}
	oi, err := d.Describe(ctx, "ORDER ITEMS", 1)
	if err != nil {
		t.Fatal(err)
	}
	want := &env.Table{
		Name: "order items",
		Columns: []env.Column{{Name: "id", Type: "integer", NotNull: true}, {Name: "concert_id", Type: "integer"},
			{Name: "select", Type: "text", NotNull: true}},
		PrimaryKey:  []string{"select", "id"},
		ForeignKeys: []env.ForeignKey{{Columns: []string{"concert_id", "id"}, RefTable: "concert", RefColumns: []string{"concert_id", "singer_id"}}},
	}
	samples := oi.Samples
	oi.Samples = nil
	if !reflect.DeepEqual(oi, want) {
		t.Errorf("Describe = %+v, want %+v", oi, want)
	}
	if samples == nil || len(samples.Rows) != 1 || len(samples.Columns) != 3 {
		t.Errorf("samples = %+v, want 1 row of 3 columns", samples)
	}
	s, err := d.Describe(ctx, "singer", 0)
	if err != nil || s.Columns[4].Type != "numeric(10,2)" || s.Columns[9].Type != "text[]" {
		t.Errorf("singer = %+v, %v; want numeric(10,2) and text[] columns", s, err)
	}
	if _, err := d.Describe(ctx, "nope", 1); !errors.Is(err, env.ErrNoSuchTable) {
		t.Errorf("unknown table: err = %v, want no such table", err)
	}
	if imm, ok := d.(env.Immutable); !ok || !imm.Immutable() {
		t.Error("the database does not report itself immutable")
	}
}

func TestRunsAsTheReader(t *testing.T) {
	d, _, schema := openFixture(t, Config{})
	rs, err := d.Query(context.Background(),
		"SELECT current_user, session_user, current_schema(), current_setting('transaction_read_only')", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []any{SchemaRole(DefaultRole, schema), DefaultRole, schema, "on"}; !reflect.DeepEqual(rs.Rows[0], want) {
		t.Errorf("session = %v, want %v", rs.Rows[0], want)
	}
}

func TestTimeoutStopsTheServer(t *testing.T) {
	d, base, _ := openFixture(t, Config{})
	start := time.Now()
	_, err := d.Query(context.Background(), "SELECT pg_sleep(60)", env.Limits{Timeout: 300 * time.Millisecond})
	if !errors.Is(err, env.ErrTimeout) || !strings.Contains(err.Error(), "timed out after 300ms") {
		t.Fatalf("err = %v, want a timeout after 300ms", err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %v", took)
	}
	checkNotRunning(t, base, "pg_sleep(60)")
	checkServing(t, d)
}

func TestCancelStopsTheServer(t *testing.T) {
	d, base, _ := openFixture(t, Config{})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := d.Query(ctx, "SELECT pg_sleep(61)", env.Limits{Timeout: time.Minute})
		done <- err
	}()
	waitRunning(t, base, "pg_sleep(61)")
	cancel()
	err := <-done
	var qe *env.QueryError
	if !errors.Is(err, context.Canceled) || errors.As(err, &qe) {
		t.Fatalf("err = %v, want the context's cancellation, not a query error", err)
	}
	checkNotRunning(t, base, "pg_sleep(61)")
	checkServing(t, d)
}

func TestOpenFailsClearly(t *testing.T) {
	base, schema := fixture(t)
	e := New(Config{})
	tests := []struct{ name, source, want string }{
		{"missing schema", Source(base, schema+"_missing"), "no such schema"},
		{"no schema", base, "no schema after '#'"},
		{"not a URL", Source("mysql://x/y", "s"), `want a postgres:// URL`},
		{"unknown role", Source(base, schema), "sqlgym_nobody"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eng := e
			if tc.name == "unknown role" {
				eng = New(Config{Role: "sqlgym_nobody"})
			}
			d, err := eng.Open(context.Background(), tc.source)
			if err == nil {
				d.Close()
				t.Fatal("Open succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to say %q", err, tc.want)
			}
		})
	}
}

// TestSchemaCallsOnAMixedCaseSchema: a schema named with capitals (as
// sqlgym import names Spider's cre_Doc_Template_Mgt) lists its own
// tables, not those of its lower-case namesake.
func TestSchemaCallsOnAMixedCaseSchema(t *testing.T) {
	base := pgtest.Database(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, `CREATE SCHEMA "Shop_DB"; CREATE TABLE "Shop_DB".item (id integer PRIMARY KEY);
CREATE SCHEMA shop_db; CREATE TABLE shop_db.other (x integer)`)
	if err != nil {
		t.Fatal(err)
	}
	if err := EnsureReader(ctx, conn, DefaultRole, "Shop_DB", "shop_db"); err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{}).Open(ctx, Source(base, "Shop_DB"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	tables, err := d.Tables(ctx)
	if err != nil || len(tables) != 1 || tables[0].Name != "item" || !reflect.DeepEqual(tables[0].PrimaryKey, []string{"id"}) {
		t.Fatalf("Tables = %+v, %v; want item with its primary key", tables, err)
	}
	if tb, err := d.Describe(ctx, "ITEM", 0); err != nil || tb.Name != "item" {
		t.Errorf("Describe(ITEM) = %+v, %v; want item", tb, err)
	}
}

// TestReadsOnlyWhenAsked: without Limits.Reads no plan is read and no
// table or column is reported; with it both are.
func TestReadsOnlyWhenAsked(t *testing.T) {
	d, _, _ := openFixture(t, Config{})
	rs, err := d.Query(context.Background(), "SELECT name FROM singer", env.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if rs.ReadColumns != nil || rs.ReadTables != nil {
		t.Errorf("without Reads: columns %q, tables %q; want none", rs.ReadColumns, rs.ReadTables)
	}
	rs, err = d.Query(context.Background(), "SELECT name FROM singer", env.Limits{Reads: true})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rs.ReadColumns, []string{"singer.name"}) || !reflect.DeepEqual(rs.ReadTables, []string{"singer"}) {
		t.Errorf("with Reads: columns %q, tables %q", rs.ReadColumns, rs.ReadTables)
	}
}
