package repl

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

func TestDifferences(t *testing.T) {
	rows := func(lines ...string) [][]json.RawMessage {
		var out [][]json.RawMessage
		for _, l := range lines {
			var row []json.RawMessage
			if err := json.Unmarshal([]byte("["+l+"]"), &row); err != nil {
				t.Fatal(err)
			}
			out = append(out, row)
		}
		return out
	}
	tests := []struct {
		name string
		c    Comparison
		want []string
	}{
		{"each lacks a row", Comparison{Pred: Result{Columns: []string{"n"}, Rows: rows(`1`, `2`)}, Gold: Result{Columns: []string{"n"}, Rows: rows(`2.0`, `3`)}},
			[]string{"yours: 2 rows × 1 column (n)", "gold:  2 rows × 1 column (n)", "first row of yours the gold lacks: #1 (1)", "first row of the gold yours lacks: #2 (3)"}},
		{"a duplicate counts in a bag", Comparison{Pred: Result{Rows: rows(`"a"`, `"a"`)}, Gold: Result{Rows: rows(`"a"`)}},
			[]string{"yours: 2 rows × 1 column", "gold:  1 row × 1 column", "first row of yours the gold lacks: #2 (a)"}},
		{"not in a set", Comparison{Distinct: true, Pred: Result{Rows: rows(`"a"`, `"a"`, `null`)}, Gold: Result{Rows: rows(`"a"`)}},
			[]string{"yours: 3 rows × 1 column", "gold:  1 row × 1 column", "first row of yours the gold lacks: #3 (NULL)"}},
		{"out of order", Comparison{Ordered: true, Pred: Result{Rows: rows(`1, "x"`, `2, "y"`)}, Gold: Result{Rows: rows(`1, "x"`, `3, "y"`)}},
			[]string{"yours: 2 rows × 2 columns", "gold:  2 rows × 2 columns",
				"the gold orders its rows (ORDER BY); the first that differs is #2: yours (2, y), gold (3, y)"}},
		{"a prefix of the gold", Comparison{Ordered: true, Pred: Result{Rows: rows(`1`)}, Gold: Result{Rows: rows(`1`, `2`), Truncated: true}},
			[]string{"yours: 1 row × 1 column", "gold:  2 rows × 1 column, more rows past what was read", "the first 1 row agree; the gold's goes on with #2 (2)"}},
		{"the gold failed", Comparison{Gold: Result{Err: "no such table: t"}}, []string{"the gold failed here: no such table: t"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := differences(&tt.c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestOpenStatement(t *testing.T) {
	for sql, want := range map[string]bool{
		"SELECT 'a":         true,
		`SELECT "a`:         true,
		"SELECT /* note":    true,
		"SELECT 1 -- note":  false,
		"SELECT 'a' ":       false,
		"SELECT 1 /* x */":  false,
		"selec":             false,
		"SELECT 'it''s":     true,
		"SELECT 'it''s' AS": false,
	} {
		if got := open(sql); got != want {
			t.Errorf("open(%q) = %v, want %v", sql, got, want)
		}
	}
}
