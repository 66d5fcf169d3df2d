package bench

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/rpc"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/examples/demo"
	"github.com/sqlgym/sqlgym/internal/testserver"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// serverOptions shape a test server.
type serverOptions struct {
	dataset     *env.Dataset // nil: the embedded demo
	token       string
	maxEpisodes int
	durable     bool // fsync the trajectory log as sqlgym serve does
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
	dir := tb.TempDir()
	ds := o.dataset
	if ds == nil {
		var err error
		if ds, err = demo.Load(context.Background(), filepath.Join(dir, "demo"), sqlite.Build); err != nil {
			tb.Fatal(err)
		}
	}
	logDir := filepath.Join(dir, "data")
	rec, err := trajlog.Open(logDir, trajlog.Options{NoSync: !o.durable})
	if err != nil {
		tb.Fatal(err)
	}
	catalog := env.NewCatalog(sqlite.New(sqlite.Config{}))
	tb.Cleanup(func() { rec.Close(); catalog.Close() }) // after the server has stopped
	srv := testserver.Start(tb, episodes.Config{
		Datasets: []*env.Dataset{ds}, Catalog: catalog, Recorder: rec, Version: "test",
		Runner:      tools.NewRunner(tools.Config{RowLimit: 50, ObservationBytes: 8192, QueryTimeout: 5 * time.Second}),
		Judge:       judge.New(judge.Config{PredTimeout: 30 * time.Second, GoldTimeout: 30 * time.Second}),
		Reward:      schemas.DefaultRewardSpec(),
		MaxEpisodes: o.maxEpisodes,
	}, testserver.Options{Server: func(c *rpc.ServerConfig) { c.Token = o.token }})
	tb.Cleanup(func() {
		srv.Stop()
		srv.Manager.Shutdown(context.Background()) // records the episodes left live
	})
	return srv, ds, logDir
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
