package bench

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// benchQuery is the step every op takes: an execute_sql that costs the
// database next to nothing, so what is timed is the path around it.
var benchQuery = client.ToolCall("execute_sql", map[string]any{"sql": "SELECT 1"})

// BenchmarkEpisodeOverWebSocket times one episode.step (an execute_sql of
// SELECT 1 on the demo) per op against a real server, its trajectory log
// unsynced:
//
//   - direct: Manager.Step called in process, no socket (the floor);
//   - socket: the same step over a WebSocket, one call in flight;
//   - socket-pipelined-64: 64 episodes stepping at once on one socket.
//
// The socket's overhead per step is socket minus direct. An episode
// takes up to 64 steps; then a new one is reset, outside the timer for
// direct and inside it (amortized over 64 steps) for the socket runs.
func BenchmarkEpisodeOverWebSocket(b *testing.B) {
	srv := startServer(b, serverOptions{})
	b.Run("direct", func(b *testing.B) {
		ctx := context.Background()
		var id string
		for i := 0; i < b.N; i++ {
			if i%64 == 0 {
				b.StopTimer()
				id = resetDirect(b, srv.Manager)
				b.StartTimer()
			}
			if _, err := srv.Manager.Step(ctx, schemas.StepParams{EpisodeID: id, Action: benchQuery}); err != nil {
				b.Fatal(err)
			}
		}
		reportSteps(b)
	})
	b.Run("socket", func(b *testing.B) {
		stepOverSocket(b, srv.Dial(b), 1)
	})
	b.Run("socket-pipelined-64", func(b *testing.B) {
		stepOverSocket(b, srv.Dial(b), 64)
	})
}

// stepOverSocket takes b.N steps on c from workers goroutines, each
// stepping its own episode.
func stepOverSocket(b *testing.B, c *client.Client, workers int) {
	ctx := context.Background()
	var next atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	for range workers {
		wg.Go(func() {
			var id string
			for turn := 0; next.Add(1) <= int64(b.N); turn++ {
				if turn%64 == 0 {
					res, err := c.Reset(ctx, schemas.ResetParams{MaxTurns: new(64)})
					if err != nil {
						b.Error(err)
						return
					}
					id = res.EpisodeID
				}
				if _, err := c.Step(ctx, id, benchQuery); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	reportSteps(b)
}

func resetDirect(b *testing.B, m *episodes.Manager) string {
	res, err := m.Reset(context.Background(), schemas.ResetParams{MaxTurns: new(64)})
	if err != nil {
		b.Fatal(err)
	}
	return res.EpisodeID
}

func reportSteps(b *testing.B) {
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
}
