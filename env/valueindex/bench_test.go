package valueindex

import (
	"context"
	"testing"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/internal/testkit/cputime"
)

// BenchmarkHostileQuery is one search_values call of 125 words over a
// column of 240,000 distinct values (docs/benchmarks.md): random words
// (each goes through the typo pass), and the four words a quarter of the
// values hold each followed by random ones (the most values to score).
// The index is built before the timer starts.
func BenchmarkHostileQuery(b *testing.B) {
	s, ds, db := vocabStore(b, 240_000, Config{})
	for _, bb := range []struct {
		name  string
		query string
	}{
		{"random", randomQuery(7, 125)},
		{"common", commonQuery(7, 125)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			q := env.ValueQuery{Query: bb.query, Limit: 5}
			start := cputime.Process()
			for b.Loop() {
				if _, err := s.SearchValues(context.Background(), ds, "big", db, q); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(cputime.PerOp(start, b.N), "cpu-ms/op")
		})
	}
}
