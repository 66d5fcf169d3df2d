package bench

import (
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/transport"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serverOptions shape a test server.
type serverOptions struct {
	dataset     *env.Dataset // nil: the embedded demo
	token       string
	maxEpisodes int
	durable     bool // fsync the trajectory log as sqlgym serve does
	// queryTimeout bounds a query the runner runs (0: StartDemo's).
	queryTimeout time.Duration
}

// startServer serves a dataset on a loopback port for the test's length,
// recording to a trajectory log in a temporary folder, as sqlgym serve
// does.
func startServer(tb testing.TB, o serverOptions) *testserver.Server {
	tb.Helper()
	srv, _, _ := startServerLog(tb, o)
	return srv
}

// startServerLog is startServer, also returning the dataset served and
// the trajectory log's folder.
func startServerLog(tb testing.TB, o serverOptions) (*testserver.Server, *env.Dataset, string) {
	tb.Helper()
	d := testserver.StartDemo(tb, testserver.DemoOptions{
		Dataset: o.dataset, Durable: o.durable,
		Engines: func(ec *stack.EngineConfig, _ string) {
			if o.queryTimeout > 0 {
				ec.Runner.QueryTimeout = o.queryTimeout
			}
		},
		Config:  func(c *episodes.Config, _ string) { c.MaxEpisodes = o.maxEpisodes },
		Options: testserver.Options{Server: func(c *transport.ServerConfig) { c.Token = o.token }},
	})
	return d.Server, d.Dataset, d.LogDir
}

// tasksOf are a dataset's tasks as Config.Tasks takes them.
func tasksOf(ds *env.Dataset) []Task {
	out := make([]Task, len(ds.Tasks))
	for i, t := range ds.Tasks {
		out[i] = Task{ID: t.ID, GoldSQL: t.GoldSQL}
	}
	return out
}

// checkCounts fails t where the report's counts disagree with each other.
func checkCounts(t *testing.T, rep *Report) {
	t.Helper()
	if rep.Started != rep.Ended+rep.Failed {
		t.Errorf("started %d, want ended %d + failed %d", rep.Started, rep.Ended, rep.Failed)
	}
	var outcomes int64
	for _, n := range rep.Outcomes {
		outcomes += n
	}
	if outcomes != rep.Ended {
		t.Errorf("outcomes %v add up to %d, want the %d episodes ended", rep.Outcomes, outcomes, rep.Ended)
	}
	if got := rep.Latency[keyReset].Count; got != rep.Started+rep.ResetsFailed {
		t.Errorf("%d resets timed, want started %d + refused %d", got, rep.Started, rep.ResetsFailed)
	}
	var byTool int64
	for _, tool := range []string{"inspect_schema", "execute_sql", "submit"} {
		byTool += rep.Latency[stepKey(tool)].Count
	}
	if all := rep.Latency[keyStep].Count; byTool != all || all < rep.Steps {
		t.Errorf("steps timed: %d by tool, %d in all; want equal and at least the %d steps counted", byTool, all, rep.Steps)
	}
}
