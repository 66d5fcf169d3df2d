package episodes_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/sqlgym/sqlgym/episodes/jsonrpc"
	"github.com/sqlgym/sqlgym/schemas"
)

// BenchmarkStepFrame times one episode.step through the whole server
// stack but the socket: its frame is parsed and dispatched, the step runs
// (an execute_sql of a one-row query on a real SQLite file), its reply
// frame is encoded and its trajectory line is written to the real log
// (unsynced: an fsync would time the disk). It reports allocations per
// step, so a regression in the request path shows here. An episode takes
// 64 steps; the reset of the next one is outside the timer.
func BenchmarkStepFrame(b *testing.B) {
	h := newHarness(b, options{})
	d := jsonrpc.NewDispatcher(h.mgr, schemas.Limits{})
	ctx := context.Background()
	var ep string
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if i%64 == 0 {
			b.StopTimer()
			ep = reset(b, h.dial(), schemas.ResetParams{TaskID: "t/count", MaxTurns: new(64)}).EpisodeID
			b.StartTimer()
		}
		frame := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"episode.step","params":{"episode_id":%q,"action":{"tool":"execute_sql","arguments":{"sql":"SELECT name, price FROM items WHERE id = 2"}}}}`, i, ep)
		reply := d.Prepare(frame).Run(ctx)
		if !bytes.Contains(reply, []byte(`"result":{"observation"`)) {
			b.Fatalf("step %d: %s", i, reply)
		}
		jsonrpc.ReleaseFrame(reply) // as the server's writer does once the frame is written
	}
}
