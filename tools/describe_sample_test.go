package tools

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/internal/testkit/bigdb"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// sampleLine is the line of a sampled profile that says how many rows
// were read, of how many.
var sampleLine = regexp.MustCompile(`Estimated from a sample of ([\d,]+) of about ([\d,]+) rows: (\d+) runs of up to ([\d,]+) consecutive rows, spread evenly over the table by (\w+)`)

// sampleOf is what a sampled profile says it read: rows read, of the
// table's rows, and the unit the runs were spread by.
func sampleOf(t *testing.T, profile string) (read, of int64, unit string) {
	t.Helper()
	m := sampleLine.FindStringSubmatch(profile)
	if m == nil {
		t.Fatalf("the profile does not say it was estimated from a sample:\n%s", profile)
	}
	return number(t, m[1]), number(t, m[2]), m[5]
}

func number(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(strings.ReplaceAll(s, ",", ""), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// estimated is the "about N ± M" of value in a profile's most frequent
// values.
func estimated(t *testing.T, profile, value string) (n, margin int64) {
	t.Helper()
	m := regexp.MustCompile(regexp.QuoteMeta(value) + ` \(about ([\d,]+) ± ([\d,]+)\)`).FindStringSubmatch(profile)
	if m == nil {
		t.Fatalf("no estimate of %s in:\n%s", value, profile)
	}
	return number(t, m[1]), number(t, m[2])
}

// TestDescribeColumnWorkIsBounded profiles the same columns of a
// generated database at two sizes, ten times apart, with a sample of
// 1,000 rows: on both the reply says it read at most 1,000 rows, of the
// table's true row count, and each status's estimated rows are within
// twice their stated 95% margin of the truth (each status is a sixth of
// the orders, stored in turn: a pattern a sample read at one point of it
// each time would miss). A table of no more rows than the sample is profiled whole,
// with exact counts.
func TestDescribeColumnWorkIsBounded(t *testing.T) {
	const sample = 1000
	r := NewRunner(Config{DescribeSampleRows: sample})
	for _, orders := range []int{3_000, 30_000} {
		db := openFile(t, bigdb.Build(t, orders))
		got := describe(t, r, db, env.SQLite, "orders", "status")
		if got.Error != nil {
			t.Fatalf("%d orders: %+v", orders, got.Error)
		}
		read, of, unit := sampleOf(t, got.Content)
		if read > sample || read < sample*9/10 || of != int64(orders) || unit != "rowid" {
			t.Errorf("%d orders: read %d of %d by %s, want at most %d (and near it) of %d by rowid:\n%s",
				orders, read, of, unit, sample, orders, got.Content)
		}
		listed := 0
		for _, status := range bigdb.Statuses {
			if !strings.Contains(got.Content, "'"+status+"' (about") {
				continue // five of the six are listed
			}
			listed++
			n, margin := estimated(t, got.Content, "'"+status+"'")
			if truth := int64(orders / 6); n < truth-2*margin || n > truth+2*margin {
				t.Errorf("%d orders: %s estimated %d ± %d, truth %d, out of twice the margin", orders, status, n, margin, truth)
			}
		}
		if listed != describeTopValues {
			t.Errorf("%d orders: %d statuses listed with estimates, want %d:\n%s", orders, listed, describeTopValues, got.Content)
		}
		containsAll(t, got.Content, "distinct values: 6 (each seen more than once in the sample, so likely all)")
		note := describe(t, r, db, env.SQLite, "orders", "note").Content
		containsAll(t, note, fmt.Sprintf("NULL: about %s (90.0%% ±", grouped(float64(orders)*0.9)))
		ref := describe(t, r, db, env.SQLite, "orders", "ref").Content
		containsAll(t, ref, "distinct values: about "+grouped(float64(orders))+" (between", "none seen more than once in the sample")
	}
	small := openFile(t, bigdb.Build(t, 600)) // 600 orders, 120 customers: no more rows than the sample
	got := describe(t, r, small, env.SQLite, "orders", "status").Content
	containsAll(t, got, "Rows: 600; NULL: 0 (0.0%); distinct values: 6", "Most frequent values (rows): 'cancelled' (100)")
	if strings.Contains(got, "sample of") {
		t.Errorf("a table within the sample was sampled:\n%s", got)
	}
}

// TestDescribeColumnWithoutRowid profiles a WITHOUT ROWID table larger
// than the sample: it has no positions to sample by, so its first rows
// are read, and the reply says so and scales nothing.
func TestDescribeColumnWithoutRowid(t *testing.T) {
	db := openScript(t, `CREATE TABLE kv(k INTEGER PRIMARY KEY, v TEXT) WITHOUT ROWID;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) INSERT INTO kv SELECT i, 'v' || (i % 3) FROM n;`)
	got := describe(t, NewRunner(Config{DescribeSampleRows: 100}), db, env.SQLite, "kv", "v").Content
	containsAll(t, got,
		"Read from the first 100 rows only: the table has more, and no row positions to sample it by",
		"Rows: more than 100; NULL: 0 of the first 100 (0.0%); distinct values: at least 3",
		"Most frequent values (rows of the sample): 'v1' (34), 'v0' (33), 'v2' (33)")
}

// TestDescribeColumnSampledPostgres profiles a PostgreSQL table larger
// than the sample: by pages (ctid ranges), at most the sample's rows,
// and the table's rows from the engine's statistics once ANALYZE ran.
func TestDescribeColumnSampledPostgres(t *testing.T) {
	base, schema := pgtest.Schema(t, `
CREATE TABLE orders (id integer PRIMARY KEY, status text, note text);
INSERT INTO orders SELECT i, (ARRAY['shipped','pending','cancelled'])[i % 3 + 1], CASE WHEN i % 4 = 0 THEN 'gift' END
FROM generate_series(1, 20000) AS i;`)
	ctx := context.Background()
	conn := pgtest.Conn(t)
	if err := postgres.EnsureReader(ctx, conn, postgres.DefaultRole, schema); err != nil {
		t.Fatal(err)
	}
	db, err := postgres.New(postgres.Config{}).Open(ctx, postgres.Source(base, schema))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	r := NewRunner(Config{DescribeSampleRows: 2000})
	got := describe(t, r, db, env.Postgres, "orders", "status").Content
	read, of, unit := sampleOf(t, got)
	if read > 2000 || unit != "page" || of < 15000 || of > 25000 {
		t.Errorf("read %d of about %d by %s, want at most 2000 of about 20000 by page:\n%s", read, of, unit, got)
	}
	if _, err := conn.Exec(ctx, fmt.Sprintf("ANALYZE %q.orders", schema)); err != nil {
		t.Fatal(err)
	}
	got = describe(t, r, db, env.Postgres, "orders", "note").Content
	containsAll(t, got, "of about 20,000 (the engine's statistics) rows", "NULL: about 15,000 (75.0% ±")
}

// TestRoundEstimate checks the rounding of an estimate to its margin.
func TestRoundEstimate(t *testing.T) {
	for _, c := range []struct{ v, m, wantV, wantM float64 }{
		{1668400, 32599, 1668000, 33000},
		{800, 783, 800, 790},
		{200000, 12241, 200000, 13000},
		{10, 19.2, 10, 20},
		{3, 4.2, 3, 5},
	} {
		if v, m := roundEstimate(c.v, c.m); v != c.wantV || m != c.wantM {
			t.Errorf("roundEstimate(%g, %g) = %g, %g; want %g, %g", c.v, c.m, v, m, c.wantV, c.wantM)
		}
	}
}
