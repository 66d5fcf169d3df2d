package openenv_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/schemas"
)

// benchTurns is each benchmark episode's turn budget: a reset every
// benchTurns steps, on both surfaces alike.
const benchTurns = 64

// BenchmarkStep measures execute_sql steps of the demo's first task (its
// gold) through the OpenEnv WebSocket and through the native protocol's
// Go client. Each op is one step on each surface, one right after the
// other, so both see the same load; each of the GOMAXPROCS x -cpu
// goroutines (b.RunParallel) holds one socket of each kind and plays its
// own episodes one step at a time. It reports each surface's steps per
// second per socket (1 / its mean step time) and their ratio:
// docs/benchmarks.md has the numbers.
func BenchmarkStep(b *testing.B) {
	s := start(b, nil, nil)
	task := s.Dataset.Tasks[0]
	var openenvNS, nativeNS atomic.Int64
	b.RunParallel(func(pb *testing.PB) {
		oe, err := newBenchOpenEnv(s.ws, task.ID)
		if err != nil {
			b.Error(err)
			return
		}
		defer oe.conn.Close()
		nat, err := newBenchNative(s.URL, task.ID)
		if err != nil {
			b.Error(err)
			return
		}
		defer nat.c.Close()
		args := map[string]any{"sql": task.GoldSQL}
		for pb.Next() {
			t0 := time.Now()
			if err := oe.step(args); err != nil {
				b.Error(err)
				return
			}
			t1 := time.Now()
			if err := nat.step(args); err != nil {
				b.Error(err)
				return
			}
			openenvNS.Add(int64(t1.Sub(t0)))
			nativeNS.Add(int64(time.Since(t1)))
		}
	})
	n := float64(max(b.N, 1))
	oeRate, natRate := n*1e9/float64(max(openenvNS.Load(), 1)), n*1e9/float64(max(nativeNS.Load(), 1))
	b.ReportMetric(oeRate, "openenv-steps/s")
	b.ReportMetric(natRate, "native-steps/s")
	b.ReportMetric(oeRate/natRate, "openenv/native")
}

// benchOpenEnv is one OpenEnv WebSocket playing episodes of a task.
type benchOpenEnv struct {
	conn  *websocket.Conn
	task  string
	turns int
}

func newBenchOpenEnv(url, task string) (*benchOpenEnv, error) {
	conn, _, err := websocket.DefaultDialer.Dial(url, nil)
	return &benchOpenEnv{conn: conn, task: task}, err
}

// step sends one execute_sql step, after a reset every benchTurns steps.
func (o *benchOpenEnv) step(args map[string]any) error {
	if o.turns%benchTurns == 0 {
		if err := o.roundTrip(reset(map[string]any{"task_id": o.task, "max_turns": benchTurns})); err != nil {
			return err
		}
	}
	o.turns++
	return o.roundTrip(callTool(schemas.ToolExecuteSQL, args))
}

// benchReply is what the benchmark's OpenEnv client reads of a reply,
// typed as the native client's replies are.
type benchReply struct {
	Type string `json:"type"`
	Data struct {
		Observation json.RawMessage `json:"observation"`
		Reward      *float64        `json:"reward"`
		Done        bool            `json:"done"`
		Message     string          `json:"message"`
	} `json:"data"`
}

func (o *benchOpenEnv) roundTrip(m any) error {
	var reply benchReply
	if err := o.conn.WriteJSON(m); err != nil {
		return err
	}
	if err := o.conn.ReadJSON(&reply); err != nil {
		return err
	}
	if reply.Type == "error" {
		return &replyError{reply.Data.Message}
	}
	return nil
}

// replyError is an error reply the benchmark got.
type replyError struct{ msg string }

func (e *replyError) Error() string { return "error reply: " + e.msg }

// benchNative is one native client playing episodes of a task.
type benchNative struct {
	c     *client.Client
	task  string
	id    string
	turns int
}

func newBenchNative(url, task string) (*benchNative, error) {
	c, err := client.Dial(context.Background(), url, "")
	return &benchNative{c: c, task: task}, err
}

// step sends one execute_sql step, after a reset every benchTurns steps.
func (n *benchNative) step(args map[string]any) error {
	ctx := context.Background()
	if n.turns%benchTurns == 0 {
		turns := benchTurns
		r, err := n.c.Reset(ctx, schemas.ResetParams{TaskID: n.task, MaxTurns: &turns})
		if err != nil {
			return err
		}
		n.id = r.EpisodeID
	}
	n.turns++
	_, err := n.c.Step(ctx, n.id, client.ToolCall(schemas.ToolExecuteSQL, args))
	return err
}
