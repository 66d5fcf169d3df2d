package openenv_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// benchTurns is each benchmark episode's turn budget: a reset every
// benchTurns steps, on both surfaces alike.
const benchTurns = 64

// BenchmarkStep measures execute_sql steps of the demo's first task (its
// gold) per second through the OpenEnv WebSocket and through the native
// protocol's Go client, on GOMAXPROCS x -cpu sockets at once
// (b.RunParallel), each socket playing its own episodes one step at a
// time: docs/benchmarks.md has the numbers.
func BenchmarkStep(b *testing.B) {
	s := start(b, nil, nil)
	task := s.Dataset.Tasks[0]
	args := map[string]any{"sql": task.GoldSQL}
	b.Run("surface=openenv", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			conn, _, err := websocket.DefaultDialer.Dial(s.ws, nil)
			if err != nil {
				b.Error(err)
				return
			}
			defer conn.Close()
			roundTrip := func(m any) bool {
				var reply benchReply
				if conn.WriteJSON(m) != nil || conn.ReadJSON(&reply) != nil || reply.Type == "error" {
					b.Errorf("reply %+v", reply)
					return false
				}
				return true
			}
			for turn := 0; pb.Next(); turn++ {
				if turn%(benchTurns) == 0 && !roundTrip(reset(map[string]any{"task_id": task.ID, "max_turns": benchTurns})) {
					return
				}
				if !roundTrip(callTool(schemas.ToolExecuteSQL, args)) {
					return
				}
			}
		})
		reportRate(b)
	})
	b.Run("surface=native", func(b *testing.B) {
		b.RunParallel(func(pb *testing.PB) {
			ctx := context.Background()
			c, err := client.Dial(ctx, s.URL, "")
			if err != nil {
				b.Error(err)
				return
			}
			defer c.Close()
			turns := benchTurns
			var id string
			for turn := 0; pb.Next(); turn++ {
				if turn%benchTurns == 0 {
					r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID, MaxTurns: &turns})
					if err != nil {
						b.Error(err)
						return
					}
					id = r.EpisodeID
				}
				if _, err := c.Step(ctx, id, client.ToolCall(schemas.ToolExecuteSQL, args)); err != nil {
					b.Error(err)
					return
				}
			}
		})
		reportRate(b)
	})
}

// benchReply is what the benchmark's OpenEnv client reads of a reply,
// typed as the native client's replies are.
type benchReply struct {
	Type string `json:"type"`
	Data struct {
		Observation json.RawMessage `json:"observation"`
		Reward      *float64        `json:"reward"`
		Done        bool            `json:"done"`
	} `json:"data"`
}

// reportRate reports the steps per second of the run.
func reportRate(b *testing.B) {
	if e := b.Elapsed(); e > 0 {
		b.ReportMetric(float64(b.N)/e.Seconds(), "steps/s")
	}
}
