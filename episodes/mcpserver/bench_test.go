package mcpserver_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/mcpserver"
	"github.com/sqlgym/sqlgym/schemas"
)

// benchSQL is the statement each benchmarked call runs: one row of the
// demo's library.
const benchSQL = `{"sql":"SELECT count(*) FROM books"}`

// BenchmarkMCPvsNative times, in each op, one execute_sql through an MCP
// session (the Go SDK's client over Streamable HTTP) and the same step
// over sqlgym/1 (episodes/client over a WebSocket), on one server on the
// demo, from 8 clients per core at once. It reports each surface's calls
// per second at that concurrency and their ratio.
func BenchmarkMCPvsNative(b *testing.B) {
	h := start(b, options{})
	var mcpTime, nativeTime, calls atomic.Int64
	b.SetParallelism(8)
	clients := atomic.Int64{}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		clients.Add(1)
		ctx := context.Background()
		cs, err := h.dial("")
		if err != nil {
			b.Error(err)
			return
		}
		defer cs.Close()
		native, err := client.Dial(ctx, h.demo.URL, "")
		if err != nil {
			b.Error(err)
			return
		}
		defer native.Close()
		var episode string
		for i := 0; pb.Next(); i++ {
			if i%60 == 0 { // a fresh pair of episodes within the 64-turn budget
				episode = benchEpisodes(b, cs, native)
			}
			t0 := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: schemas.ToolExecuteSQL, Arguments: json.RawMessage(benchSQL)})
			t1 := time.Now()
			_, nerr := native.Step(ctx, episode, schemas.Action{Tool: schemas.ToolExecuteSQL, Arguments: json.RawMessage(benchSQL)})
			t2 := time.Now()
			if err != nil || res.IsError || nerr != nil {
				b.Errorf("call: %v %v %v", err, res, nerr)
				return
			}
			mcpTime.Add(int64(t1.Sub(t0)))
			nativeTime.Add(int64(t2.Sub(t1)))
			calls.Add(1)
		}
	})
	n, par := float64(calls.Load()), float64(clients.Load())
	if n == 0 {
		return
	}
	mcpRate := n * par / time.Duration(mcpTime.Load()).Seconds()
	nativeRate := n * par / time.Duration(nativeTime.Load()).Seconds()
	b.ReportMetric(mcpRate, "mcp-calls/s")
	b.ReportMetric(nativeRate, "native-steps/s")
	b.ReportMetric(mcpRate/nativeRate, "mcp/native")
}

// benchEpisodes starts an episode in the MCP session and one natively,
// both of 64 turns, and returns the native one's id.
func benchEpisodes(b *testing.B, cs *mcp.ClientSession, native *client.Client) string {
	ctx := context.Background()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: mcpserver.ToolStartEpisode,
		Arguments: map[string]any{"task_id": "demo/library-001", "max_turns": 64}})
	if err != nil || res.IsError {
		b.Fatalf("start_episode: %v %v", err, res)
	}
	turns := 64
	r, err := native.Reset(ctx, schemas.ResetParams{TaskID: "demo/library-001", MaxTurns: &turns})
	if err != nil {
		b.Fatal(err)
	}
	return r.EpisodeID
}
