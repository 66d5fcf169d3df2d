package pgstore_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/trajlog/pgstore"
	"github.com/sqlgym/sqlgym/internal/testkit/pgtest"
)

// BenchmarkEpisodes writes episodes of four steps from parallel writers,
// as a busy server does: each End waits for its commit. Reported per
// episode (5 rows: the episode and its steps, then its end).
func BenchmarkEpisodes(b *testing.B) {
	url, _ := pgtest.URL(b)
	s, err := pgstore.Open(context.Background(), url)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	var n atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := fmt.Sprintf("ep_%d", n.Add(1))
			tr := episode(id, "demo/1", "correct", 1, t0, 4)
			begin := *tr
			if err := s.Begin(ctx, &begin); err != nil {
				b.Error(err)
				return
			}
			for i := range tr.Steps {
				if err := s.Step(ctx, id, &tr.Steps[i]); err != nil {
					b.Error(err)
					return
				}
			}
			if err := s.End(ctx, tr); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
