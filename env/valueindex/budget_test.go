package valueindex

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/internal/testkit/bigdb"
)

// openSQLite opens a SQLite file as the one database "db" of a dataset,
// with a Store of cfg over a directory of the test.
func openSQLite(t *testing.T, path string, cfg Config) (*Store, *env.Dataset, env.DB) {
	t.Helper()
	ds := &env.Dataset{Name: "t", Dialect: env.SQLite, DBs: map[string]string{"db": path}}
	cat := env.NewCatalog(sqlite.New(sqlite.Config{}))
	t.Cleanup(func() { cat.Close() })
	db, err := cat.DB(context.Background(), ds, "db")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Dir = t.TempDir()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, ds, db
}

// find searches q in table.column and returns the matches.
func find(t *testing.T, s *Store, ds *env.Dataset, db env.DB, table, column, q string) *env.ValueMatches {
	t.Helper()
	m, err := s.SearchValues(context.Background(), ds, "db", db, env.ValueQuery{Query: q, Table: table, Column: column, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestEveryValueIsFoundWithinTheBudget indexes a generated shop database
// (internal/testkit/bigdb: 4,000 distinct customer names, 20,000 order numbers)
// at the default budget: every column is whole, and names from every
// part of the alphabet, the last included, are each found first.
func TestEveryValueIsFoundWithinTheBudget(t *testing.T) {
	s, ds, db := openSQLite(t, bigdb.Build(t, 20_000), Config{})
	for _, id := range []int{1, 1000, 2718, 3999, 4000} {
		name := bigdb.Name(id)
		m := find(t, s, ds, db, "customers", "name", name)
		if len(m.Matches) == 0 || m.Matches[0].Value != name || len(m.Partial) != 0 {
			t.Errorf("%s: matches %+v, partial %+v; want it first, the column whole", name, m.Matches, m.Partial)
		}
	}
	if m := find(t, s, ds, db, "orders", "ref", "ORD-000019999"); len(m.Matches) == 0 || m.Matches[0].Value != "ORD-000019999" {
		t.Errorf("order ORD-000019999: %+v", m.Matches)
	}
}

// skewScript is a table of 300 values, 'w<i>' stored i times, and a
// table of 20 values stored once each.
const skewScript = `CREATE TABLE skew(v TEXT); CREATE TABLE small(v TEXT);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300),
  r(i, k) AS (SELECT i, 1 FROM n UNION ALL SELECT i, k + 1 FROM r WHERE k < i)
INSERT INTO skew SELECT 'w' || i FROM r;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20) INSERT INTO small SELECT 's' || i FROM n;`

// TestCutColumnsKeepTheirMostFrequent indexes a column of 300 values of
// skewed frequency, beside a small column, within a budget that holds
// about 100 of them: the small column is whole, the large one keeps its
// most frequent values and the rest of the budget (no room is left that
// it could use), a value cut from it is not found, and the search names
// the column, how many of its values were indexed and what cut it.
func TestCutColumnsKeepTheirMostFrequent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "skew.sqlite")
	if err := sqlite.Build(context.Background(), path, skewScript); err != nil {
		t.Fatal(err)
	}
	budget := 100 * valueCost("w300")
	s, ds, db := openSQLite(t, path, Config{MaxBytes: budget})
	m := find(t, s, ds, db, "skew", "v", "w300")
	if len(m.Matches) == 0 || m.Matches[0].Value != "w300" || m.Matches[0].Rows != 300 {
		t.Errorf("the most frequent value: %+v, want w300 (300 rows) first", m.Matches)
	}
	if len(m.Partial) != 1 {
		t.Fatalf("partial %+v, want skew.v", m.Partial)
	}
	p := m.Partial[0]
	var small int64
	for i := 1; i <= 20; i++ {
		small += valueCost(fmt.Sprintf("s%d", i))
	}
	kept := int64(0) // the most frequent values that fit beside the small column
	for cost, i := small, 300; i > 0 && cost+valueCost(fmt.Sprintf("w%d", i)) <= budget; i-- {
		cost += valueCost(fmt.Sprintf("w%d", i))
		kept++
	}
	if p.Table != "skew" || p.Column != "v" || p.Indexed != kept || p.Distinct != 300 || p.Bound != s.cfg.boundBytes() {
		t.Errorf("partial %+v, want skew.v: %d of 300 indexed, cut by %q", p, kept, s.cfg.boundBytes())
	}
	least := fmt.Sprintf("w%d", 300-kept) // the most frequent value cut
	if m := find(t, s, ds, db, "skew", "v", least); slices.ContainsFunc(m.Matches, func(x env.ValueMatch) bool { return x.Value == least }) {
		t.Errorf("%s was cut, yet found: %+v", least, m.Matches)
	}
	if m := find(t, s, ds, db, "small", "v", "s17"); len(m.Matches) == 0 || m.Matches[0].Value != "s17" || len(m.Partial) != 0 {
		t.Errorf("small.v: %+v %+v, want s17 found, the column whole", m.Matches, m.Partial)
	}
}

// TestIndexFileWithinItsBound indexes the shop database within budgets
// smaller than it needs: each file stays within its bound, and every
// column cut is named with the bound.
func TestIndexFileWithinItsBound(t *testing.T) {
	path := bigdb.Build(t, 20_000)
	for _, budget := range []int64{1 << 20, 4 << 20} {
		s, ds, db := openSQLite(t, path, Config{MaxBytes: budget})
		m := find(t, s, ds, db, "", "", "Babi")
		if len(m.Partial) == 0 {
			t.Errorf("budget %d: no column cut", budget)
		}
		for _, p := range m.Partial {
			if p.Bound != s.cfg.boundBytes() || p.Indexed >= p.Distinct {
				t.Errorf("budget %d: %+v", budget, p)
			}
		}
		_, file, err := identify(ds, "db", s.cfg)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(file)
		if err != nil || fi.Size() > budget {
			t.Errorf("budget %d: index file %v bytes, %v", budget, fi.Size(), err)
		}
	}
}

// TestWaterFill checks the sharing of what is left among needs.
func TestWaterFill(t *testing.T) {
	for _, c := range []struct {
		left        int64
		needs, want []int64
	}{
		{100, []int64{10, 50, 80}, []int64{10, 45, 45}},
		{1000, []int64{10, 50, 80}, []int64{10, 50, 80}},
		{90, []int64{40, 40, 40}, []int64{30, 30, 30}},
		{0, []int64{5}, []int64{0}},
	} {
		if got := waterFill(c.left, c.needs); !slices.Equal(got, c.want) {
			t.Errorf("waterFill(%d, %v) = %v, want %v", c.left, c.needs, got, c.want)
		}
	}
}
