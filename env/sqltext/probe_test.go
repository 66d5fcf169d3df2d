package sqltext

import (
	"reflect"
	"testing"
)

func TestTieProbe(t *testing.T) {
	tests := []struct {
		sql  string
		want Probe
	}{
		{"SELECT name FROM t ORDER BY age DESC LIMIT 1",
			Probe{SQL: "SELECT age, name FROM t ORDER BY age DESC LIMIT 4", Added: 1, KeyCols: []int{0}, Window: capped(0, 1)}},
		{"SELECT a, count(*) AS c FROM t GROUP BY 1 ORDER BY c DESC, 1 LIMIT 2, 3",
			Probe{SQL: "SELECT a, count(*) AS c FROM t GROUP BY 1 ORDER BY c DESC, 1 LIMIT 8", KeyCols: []int{1, 0}, Window: capped(2, 3)}},
		{"SELECT a FROM t GROUP BY 1, b ORDER BY count(*), 1 OFFSET 2",
			Probe{SQL: "SELECT count(*), a FROM t GROUP BY 2, b ORDER BY count(*), 2 ", Added: 1, KeyCols: []int{0, 1}, Window: Window{Offset: 2}}},
		{"SELECT a FROM t GROUP BY 1 WITH ROLLUP ORDER BY b",
			Probe{SQL: "SELECT b, a FROM t GROUP BY 2 WITH ROLLUP ORDER BY b", Added: 1, KeyCols: []int{0}}},
		{"SELECT a FROM t UNION SELECT b FROM u ORDER BY a LIMIT 1",
			Probe{SQL: "SELECT a FROM t UNION SELECT b FROM u ORDER BY a LIMIT 4", KeyCols: []int{0}, Window: capped(0, 1)}},
		{"SELECT * FROM t ORDER BY b LIMIT 2",
			Probe{SQL: "SELECT b, * FROM t ORDER BY b LIMIT 5", Added: 1, KeyCols: []int{0}, Window: capped(0, 2)}},
		{"SELECT a, * FROM t ORDER BY 2, a",
			Probe{SQL: "SELECT a, * FROM t ORDER BY 2, a", KeyCols: []int{1, 0}}},
		{"SELECT t.name FROM t JOIN u ON t.id = u.id ORDER BY name",
			Probe{SQL: "SELECT t.name FROM t JOIN u ON t.id = u.id ORDER BY name", KeyCols: []int{0}}},
		{`SELECT a, b FROM t ORDER BY A, "b", T.b`,
			Probe{SQL: `SELECT T.b, a, b FROM t ORDER BY A, "b", T.b`, Added: 1, KeyCols: []int{1, 2, 0}}},
		{"SELECT DISTINCT a, b FROM t ORDER BY b DESC LIMIT 1",
			Probe{SQL: "SELECT DISTINCT a, b FROM t ORDER BY b DESC LIMIT 4", KeyCols: []int{1}, Window: capped(0, 1)}},
		{"SELECT a FROM t LIMIT 2", Probe{SQL: "SELECT a FROM t LIMIT 5", KeyCols: []int{}, Window: capped(0, 2)}},
		{"SELECT a FROM t ORDER BY b LIMIT 1 /* keep */ OFFSET 1 -- end",
			Probe{SQL: "SELECT b, a FROM t ORDER BY b LIMIT 5 /* keep */ -- end", Added: 1, KeyCols: []int{0}, Window: capped(1, 1)}},
		{"SELECT a FROM t ORDER BY b-OFFSET 1--end\n",
			Probe{SQL: "SELECT b-, a FROM t ORDER BY b- --end\n", Added: 1, KeyCols: []int{0}, Window: Window{Offset: 1}}},
		{"SELECT a FROM t ORDER BY b LIMIT -1", Probe{SQL: "SELECT b, a FROM t ORDER BY b ", Added: 1, KeyCols: []int{0}}},
		{"SELECT a FROM t LIMIT 9223372036854775807", Probe{SQL: "SELECT a FROM t ", KeyCols: []int{}, Window: capped(0, 1<<63-1)}},
		{"SELECT SQL_NO_CACHE a FROM t ORDER BY b;",
			Probe{SQL: "SELECT SQL_NO_CACHE b, a FROM t ORDER BY b;", Added: 1, KeyCols: []int{0}}},
		{"WITH c AS (SELECT a, b FROM t) (SELECT a FROM c ORDER BY b, a LIMIT 1)",
			Probe{SQL: "WITH c AS (SELECT a, b FROM t) (SELECT b, a FROM c ORDER BY b, a LIMIT 4)", Added: 1, KeyCols: []int{0, 1}, Window: capped(0, 1)}},
	}
	for _, tt := range tests {
		got, ok := TieProbe(tt.sql, 3)
		if !ok || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("TieProbe(%q) = %+v, %v;\nwant %+v", tt.sql, got, ok, tt.want)
		}
	}
}

func TestTieProbeRefuses(t *testing.T) {
	for _, sql := range []string{
		"SELECT a FROM t",                                         // nothing to probe
		"SELECT a FROM t LIMIT ALL",                               // nor here
		"SELECT a FROM t ORDER BY a LIMIT ?",                      // unreadable window
		"SELECT DISTINCT a FROM t ORDER BY b",                     // a key column would change DISTINCT
		"SELECT DISTINCT ON (a) a, b FROM t ORDER BY a, b",        // which row a group keeps is left to ties
		"SELECT a FROM t UNION SELECT b FROM u ORDER BY lower(a)", // a compound sorts on its columns only
		"(SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY a",    // whose list is not read here
		"SELECT a AS x FROM t ORDER BY x + 1",                     // the alias means nothing in the select list
		"SELECT a x FROM t ORDER BY -X",                           // nor without AS, in any case
		"SELECT *, a AS x FROM t ORDER BY x",                      // an alias after a *: its column is unknown
		"SELECT a AS x, b AS x FROM t ORDER BY x",                 // two aliases alike
		"SELECT t.a, u.a FROM t, u ORDER BY a",                    // two columns alike
		"SELECT a FROM t ORDER BY 2",                              // no such position
		"SELECT a FROM t ORDER BY 0",                              // nor here
		"SELECT a FROM t ORDER BY 99999999999999999999",           // nor here
	} {
		if got, ok := TieProbe(sql, 3); ok {
			t.Errorf("TieProbe(%q) = %+v, true; want false", sql, got)
		}
	}
}
