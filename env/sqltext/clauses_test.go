package sqltext

import (
	"reflect"
	"testing"
)

// capped is the window of LIMIT limit OFFSET offset.
func capped(offset, limit int64) Window { return Window{Offset: offset, Limit: limit, HasLimit: true} }

func TestTopOrder(t *testing.T) {
	tests := []struct {
		sql  string
		want Order
	}{
		{"SELECT a FROM t", Order{}},
		{"SELECT a FROM t ORDER BY a", Order{Terms: []string{"a"}, Desc: []bool{false}}},
		{"select a from t order by a desc, b asc limit 5",
			Order{Terms: []string{"a", "b"}, Desc: []bool{true, false}, Window: capped(0, 5)}},
		{"SELECT a FROM t LIMIT 10 OFFSET 20", Order{Window: capped(20, 10)}},
		{"SELECT a FROM t LIMIT 20, 10", Order{Window: capped(20, 10)}},
		{"SELECT a FROM t OFFSET 5", Order{Window: Window{Offset: 5}}},
		{"SELECT a FROM t OFFSET 5 LIMIT 2", Order{Window: capped(5, 2)}},
		{"SELECT a FROM t OFFSET 1 ROW FETCH NEXT 2 ROWS ONLY", Order{Window: capped(1, 2)}},
		{"SELECT a FROM t FETCH FIRST ROW ONLY", Order{Window: capped(0, 1)}},
		{"SELECT a FROM t LIMIT ALL", Order{}},
		{"SELECT a FROM t LIMIT -1 OFFSET -3", Order{}},
		{"SELECT a FROM t LIMIT 0", Order{Window: capped(0, 0)}},
		{"SELECT a FROM t ORDER BY a NULLS LAST, b DESC NULLS FIRST",
			Order{Terms: []string{"a", "b"}, Desc: []bool{false, true}}},
		{`SELECT a FROM t ORDER BY a COLLATE "C" DESC`, Order{Terms: []string{"a"}, Desc: []bool{true}, Collate: true}},
		{`SELECT a FROM t ORDER BY a COLLATE pg_catalog."C"`, Order{Terms: []string{"a"}, Desc: []bool{false}, Collate: true}},
		{"SELECT a FROM t ORDER BY lower(a COLLATE nocase)",
			Order{Terms: []string{"lower(a COLLATE nocase)"}, Desc: []bool{false}, Collate: true}},
		{"SELECT a, row_number() OVER (ORDER BY b) FROM t WINDOW w AS (ORDER BY c)", Order{}},
		{"SELECT group_concat(a ORDER BY b) FROM t", Order{}},
		{"WITH c AS (SELECT a FROM t ORDER BY a LIMIT 1) SELECT a FROM c", Order{}},
		{"WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c LIMIT 5), d AS NOT MATERIALIZED (SELECT 2) SELECT n FROM c ORDER BY n DESC",
			Order{Terms: []string{"n"}, Desc: []bool{true}}},
		{"SELECT a FROM t WHERE b IN (SELECT b FROM u ORDER BY b LIMIT 3)", Order{}},
		{"SELECT a FROM t WHERE b = 'ORDER BY x LIMIT 1' -- ORDER BY y\n", Order{}},
		{"SELECT a FROM t /* ORDER BY x */ ORDER BY /* a */ a -- LIMIT 1", Order{Terms: []string{"a"}, Desc: []bool{false}}},
		{`SELECT "order" FROM t ORDER BY "limit" LIMIT 1`, Order{Terms: []string{`"limit"`}, Desc: []bool{false}, Window: capped(0, 1)}},
		{"SELECT a FROM t UNION SELECT b FROM u ORDER BY 1 LIMIT 1",
			Order{Terms: []string{"1"}, Desc: []bool{false}, Window: capped(0, 1), Compound: true}},
		{"(SELECT a FROM t LIMIT 2) UNION ALL (SELECT b FROM u) LIMIT 3", Order{Window: capped(0, 3), Compound: true}},
		{"SELECT DISTINCT a FROM t ORDER BY a", Order{Terms: []string{"a"}, Desc: []bool{false}, Distinct: true}},
		{"SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b DESC",
			Order{Terms: []string{"a", "b"}, Desc: []bool{false, true}, Distinct: true}},
		{"((SELECT a FROM t ORDER BY a LIMIT 2));", Order{Terms: []string{"a"}, Desc: []bool{false}, Window: capped(0, 2)}},
		{"SELECT a FROM t ORDER BY a IS DISTINCT FROM b", Order{Terms: []string{"a IS DISTINCT FROM b"}, Desc: []bool{false}}},
		{"SELECT a FROM t ORDER BY CASE WHEN a > 1 THEN 0 ELSE 1 END, a LIMIT 1",
			Order{Terms: []string{"CASE WHEN a > 1 THEN 0 ELSE 1 END", "a"}, Desc: []bool{false, false}, Window: capped(0, 1)}},
	}
	for _, tt := range tests {
		got, ok := TopOrder(tt.sql)
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TopOrder(%q) = %+v, %v; want %+v", tt.sql, got, ok, tt.want)
		}
	}
}

func TestTopOrderRefuses(t *testing.T) {
	for _, sql := range []string{
		"", ";", "DELETE FROM t", "VALUES (1) ORDER BY 1", "WITH c AS (SELECT 1) DELETE FROM t",
		"SELECT a FROM t LIMIT ?", "SELECT a FROM t LIMIT $1", "SELECT a FROM t LIMIT 1 + 1", "SELECT a FROM t LIMIT (SELECT 1)",
		"SELECT a FROM t LIMIT 1.5", "SELECT a FROM t LIMIT 0x10", "SELECT a FROM t LIMIT 99999999999999999999",
		"SELECT a FROM t ORDER BY a FETCH FIRST 2 ROWS WITH TIES", "SELECT a FROM t FETCH FIRST 2 ROWS",
		"SELECT a FROM t ORDER BY a USING <", "SELECT a FROM t ORDER BY a LIMIT 1 LIMIT 2",
		"SELECT a FROM t LIMIT 1, 2 OFFSET 3", "SELECT a FROM t ORDER BY a FOR UPDATE", "SELECT a FROM t LIMIT 1 FOR UPDATE",
		"SELECT a FROM t; SELECT b FROM u", "SELECT a FROM t ORDER BY 'unclosed", `SELECT a FROM "t`, "SELECT a /* open",
		"SELECT (a FROM t", "SELECT a) FROM t", "SELECT a FROM t ORDER BY a ORDER BY b",
		"SELECT a FROM t LIMIT 1 UNION SELECT b FROM u", "SELECT a FROM t ORDER BY a UNION SELECT b FROM u",
		"SELECT a FROM t ORDER BY", "SELECT a FROM t ORDER BY a,", "SELECT a FROM t ORDER BY DESC",
		"SELECT FROM t", "SELECT a, FROM t", "SELECT 0 ORDER BY ORDER", "SELECT a FROM t ORDER BY a WHERE b", "WITH c AS SELECT 1 SELECT 2", "WITH (SELECT 1) SELECT 2",
	} {
		if got, ok := TopOrder(sql); ok {
			t.Errorf("TopOrder(%q) = %+v, true; want false", sql, got)
		}
	}
}

func TestOutputCount(t *testing.T) {
	tests := []struct {
		sql  string
		want int // -1: false
	}{
		{"SELECT a, b AS c, count(*) FROM t", 3},
		{"SELECT count(*) FROM t ORDER BY 1", 1},
		{"SELECT 1", 1},
		{"SELECT a FROM t UNION SELECT b FROM u", 1},
		{"WITH x AS (SELECT 1, 2) SELECT a, f(b, c) FROM x", 2},
		{"SELECT CASE WHEN a THEN 1 ELSE 2 END, 'x, y', \"p, q\" FROM t", 3},
		{"SELECT DISTINCT ON (a, b) a, b, c FROM t", 3},
		{"SELECT ALL a, b FROM t", 2},
		{"SELECT a IS NOT DISTINCT FROM b, c FROM t", 2},
		{"SELECT * FROM t", -1},
		{"SELECT t.*, a FROM t", -1},
		{"SELECT a, s.t.* FROM t", -1},
		{"(SELECT a, b FROM t) UNION (SELECT c, d FROM u)", -1},
		{"SELECT", -1},
		{"SELECT FROM t", -1},
		{"SELECT a FROM t LIMIT x", -1},
	}
	for _, tt := range tests {
		n, ok := OutputCount(tt.sql)
		if tt.want < 0 && ok || tt.want >= 0 && (!ok || n != tt.want) {
			t.Errorf("OutputCount(%q) = %d, %v; want %d", tt.sql, n, ok, tt.want)
		}
	}
}
