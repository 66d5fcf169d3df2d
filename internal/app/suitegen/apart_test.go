package suitegen

import (
	"context"
	"github.com/sqlgym/sqlgym/internal/testkit/sqlitetest"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/reward"
)

// TestApart checks the rule that tells a neighbour apart from its gold.
func TestApart(t *testing.T) {
	rows := func(vs ...[]any) [][]any { return vs }
	tests := []struct {
		name    string
		ordered bool
		gold    [][]any
		n       run
		want    bool
	}{
		{"same rows", false, rows([]any{int64(1), "a"}), run{rows: rows([]any{int64(1), "a"}), ok: true}, false},
		{"1 and 1.0 agree", false, rows([]any{int64(1)}), run{rows: rows([]any{1.0}), ok: true}, false},
		{"another value", false, rows([]any{int64(1)}), run{rows: rows([]any{int64(2)}), ok: true}, true},
		{"a row more", false, rows([]any{int64(1)}), run{rows: rows([]any{int64(1)}, []any{int64(2)}), ok: true}, true},
		{"a duplicate more: the bag differs", false, rows([]any{int64(1)}), run{rows: rows([]any{int64(1)}, []any{int64(1)}), ok: true}, true},
		{"columns swapped: the bird rule keeps their order", false, rows([]any{int64(1), "a"}), run{rows: rows([]any{"a", int64(1)}), ok: true}, true},
		{"rows reordered, unordered gold", false, rows([]any{int64(1)}, []any{int64(2)}), run{rows: rows([]any{int64(2)}, []any{int64(1)}), ok: true}, false},
		{"rows reordered, ordered gold", true, rows([]any{int64(1)}, []any{int64(2)}), run{rows: rows([]any{int64(2)}, []any{int64(1)}), ok: true}, true},
		{"both empty", false, nil, run{ok: true}, false},
		{"failed: not told apart", false, rows([]any{int64(1)}), run{}, false},
	}
	for _, tt := range tests {
		g := goldRun{run: run{rows: tt.gold, ok: true}, ordered: tt.ordered, prep: reward.NewGold(tt.gold)}
		if got := g.apart(tt.n); got != tt.want {
			t.Errorf("%s: apart = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestTieBreaks checks the two tie-settling rewrites of a gold.
func TestTieBreaks(t *testing.T) {
	tests := []struct {
		gold      string
		cols      int
		asc, desc string
	}{
		{"SELECT name FROM singer ORDER BY age LIMIT 1", 1,
			"SELECT name FROM singer ORDER BY age, 1 ASC LIMIT 1", "SELECT name FROM singer ORDER BY age, 1 DESC LIMIT 1"},
		{"SELECT name, age FROM singer ORDER BY age DESC", 2,
			"SELECT name, age FROM singer ORDER BY age DESC, 1 ASC, 2 ASC", "SELECT name, age FROM singer ORDER BY age DESC, 1 DESC, 2 DESC"},
		{"SELECT name FROM singer LIMIT 3;", 1,
			"SELECT name FROM singer ORDER BY 1 ASC LIMIT 3", "SELECT name FROM singer ORDER BY 1 DESC LIMIT 3"},
		{"SELECT a FROM x UNION SELECT b FROM y ORDER BY 1 LIMIT 2", 1,
			"SELECT a FROM x UNION SELECT b FROM y ORDER BY 1, 1 ASC LIMIT 2", "SELECT a FROM x UNION SELECT b FROM y ORDER BY 1, 1 DESC LIMIT 2"},
		{"SELECT name FROM singer", 1, "", ""},
		{"SELECT name FROM (SELECT name FROM singer ORDER BY age LIMIT 2)", 1, "", ""},
		{"SELECT name FROM singer WHERE age > (SELECT age FROM singer ORDER BY age LIMIT 1)", 1, "", ""},
	}
	for _, tt := range tests {
		asc, desc, ok := tieBreaks(tt.gold, tt.cols)
		if ok != (tt.asc != "") || asc != tt.asc || desc != tt.desc {
			t.Errorf("tieBreaks(%q) = %q, %q, %v; want %q, %q", tt.gold, asc, desc, ok, tt.asc, tt.desc)
		}
	}
}

// TestGoldTied runs golds on a database with ties and checks which the
// runner finds depend on tie order.
func TestGoldTied(t *testing.T) {
	db := sqlitetest.Open(t, musicSchema+
		`INSERT INTO singer VALUES (1, 'Ann', 30, 'France'), (2, 'Bob', 30, 'Spain'), (3, 'Cid', 50, 'France'), (4, 'Cid', 50, 'France');`)
	tests := []struct {
		gold string
		want bool
	}{
		{"SELECT name FROM singer ORDER BY age LIMIT 1", true},                 // Ann and Bob tie at 30
		{"SELECT name FROM singer ORDER BY age DESC LIMIT 1", false},           // the two at 50 are both Cid
		{"SELECT name FROM singer ORDER BY age", true},                         // Ann and Bob in either order
		{"SELECT name FROM singer ORDER BY age, name", false},                  // settled
		{"SELECT country FROM singer LIMIT 2", true},                           // any two rows
		{"SELECT count(*) FROM singer LIMIT 1", false},                         // one row
		{"SELECT name FROM singer WHERE age > 40 ORDER BY age LIMIT 1", false}, // only Cid
		{"SELECT name FROM singer", false},                                     // order does not count
	}
	r := runner{lim: env.Limits{MaxRows: 100}}
	for _, tt := range tests {
		g, err := r.gold(context.Background(), db, tt.gold)
		if err != nil || !g.ok {
			t.Fatalf("%s: %v, ok %v", tt.gold, err, g.ok)
		}
		if g.tied != tt.want {
			t.Errorf("%s: tied = %v, want %v", tt.gold, g.tied, tt.want)
		}
	}
}
