package suitegen

import (
	"context"
	"testing"
)

// BenchmarkBuildSpiderDB builds the suites of one Spider-dev database,
// concert_singer (45 tasks, 23 distinct golds), with the default
// configuration (100 candidates, no held-out databases) into a new store.
func BenchmarkBuildSpiderDB(b *testing.B) {
	ds := subset(b, spider(b), "concert_singer")
	for b.Loop() {
		if _, err := Build(context.Background(), ds, b.TempDir(), Config{Seed: 1}); err != nil {
			b.Fatal(err)
		}
	}
}
