package sqltext

import "testing"

func TestTieBreak(t *testing.T) {
	tests := []struct {
		sql  string
		cols int
		want string // "": false
	}{
		{"SELECT a, b FROM t ORDER BY a DESC LIMIT 1", 2, "SELECT a, b FROM t ORDER BY a DESC, 1, 2 LIMIT 1"},
		{"SELECT a FROM t ORDER BY a NULLS LAST -- x", 1, "SELECT a FROM t ORDER BY a NULLS LAST, 1 -- x"},
		{"SELECT a FROM t ORDER BY (a)LIMIT 1", 1, "SELECT a FROM t ORDER BY (a), 1 LIMIT 1"},
		{"SELECT a FROM t ORDER BY a;", 1, "SELECT a FROM t ORDER BY a, 1;"},
		{"SELECT a FROM t LIMIT 1", 1, "SELECT a FROM t ORDER BY 1 LIMIT 1"},
		{"SELECT a, b FROM t/**/LIMIT 1", 2, "SELECT a, b FROM t/**/ ORDER BY 1, 2 LIMIT 1"},
		{"SELECT a FROM t OFFSET 3", 1, "SELECT a FROM t ORDER BY 1 OFFSET 3"},
		{"(SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY 1 DESC", 1, "(SELECT a FROM t) UNION (SELECT b FROM u) ORDER BY 1 DESC, 1"},
		{"SELECT a FROM t", 1, ""},
		{"SELECT a FROM t LIMIT ALL", 1, ""},
		{"SELECT a FROM t ORDER BY a", 0, ""},
		{"SELECT a FROM t ORDER BY a LIMIT ?", 1, ""},
	}
	for _, tt := range tests {
		got, ok := TieBreak(tt.sql, tt.cols)
		if ok != (tt.want != "") || got != tt.want {
			t.Errorf("TieBreak(%q, %d) = %q, %v; want %q", tt.sql, tt.cols, got, ok, tt.want)
		}
	}
}
