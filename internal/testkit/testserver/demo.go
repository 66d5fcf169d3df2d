package testserver

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

// DemoOptions shape a server started by StartDemo.
type DemoOptions struct {
	Dataset  *env.Dataset // served instead of the embedded demo (nil: the demo)
	RowLimit int          // the runner's row limit (0: tools.DefaultRowLimit)
	Durable  bool         // fsync the trajectory log, as sqlgym serve does
	LogDir   string       // the trajectory log's folder ("": one in the test's temporary folder)
	// Engines changes the engines' config (the runner's and the judge's
	// bounds, the value index) before the stack is built; dir as for Config.
	Engines func(ec *stack.EngineConfig, dir string)
	// Config changes the Manager's config before it starts; dir is the
	// test's temporary folder, which holds the demo and the log.
	Config  func(cfg *episodes.Config, dir string)
	Options // the server's; zero Limits report the runner's and judge's
}

// Demo is a server over a dataset, recording to a trajectory log in a
// temporary folder, as sqlgym serve does.
type Demo struct {
	*Server
	Dataset *env.Dataset // the dataset served
	LogDir  string       // the trajectory log's folder
	Log     *filelog.Log // the log recorded to; closed when the test ends, or earlier by the test
}

// StartDemo serves the embedded demo (or o.Dataset) on a loopback port
// for the test's length, on SQLite, with the runner and judge sqlgym
// serve has. When the test ends the server stops, the episodes left live
// are recorded, and the log and catalog are closed.
func StartDemo(tb testing.TB, o DemoOptions) *Demo {
	tb.Helper()
	if o.RowLimit == 0 {
		o.RowLimit = tools.DefaultRowLimit
	}
	const obsBytes, queryTimeout, goldTimeout = tools.DefaultObservationBytes, 5 * time.Second, 30 * time.Second
	dir := tb.TempDir()
	ds := o.Dataset
	if ds == nil {
		var err error
		if ds, err = stack.Demo(context.Background(), filepath.Join(dir, "demo")); err != nil {
			tb.Fatal(err)
		}
	}
	logDir := o.LogDir
	if logDir == "" {
		logDir = filepath.Join(dir, "data")
	}
	rec, err := filelog.Open(logDir, filelog.Options{NoSync: !o.Durable})
	if err != nil {
		tb.Fatal(err)
	}
	ec := stack.EngineConfig{
		Runner: tools.Config{RowLimit: o.RowLimit, ObservationBytes: obsBytes, QueryTimeout: queryTimeout},
		Judge:  judge.Config{PredTimeout: goldTimeout, GoldTimeout: goldTimeout},
	}
	if o.Engines != nil {
		o.Engines(&ec, dir)
	}
	st := stack.New(ec, rec, ds)
	tb.Cleanup(func() { st.Close() }) // after the server has stopped
	cfg := st.Config()
	cfg.Version = "test"
	if o.Config != nil {
		o.Config(&cfg, dir)
	}
	if o.Limits == (schemas.Limits{}) {
		o.Limits = schemas.Limits{RowLimit: ec.Runner.RowLimit, ObservationBytes: ec.Runner.ObservationBytes,
			QueryTimeoutMS: float64(ec.Runner.QueryTimeout.Milliseconds()), GoldTimeoutMS: float64(ec.Judge.GoldTimeout.Milliseconds())}
	}
	srv := Start(tb, cfg, o.Options)
	tb.Cleanup(func() {
		srv.Stop()
		srv.Manager.Shutdown(context.Background()) // records the episodes left live
	})
	return &Demo{Server: srv, Dataset: ds, LogDir: logDir, Log: rec}
}
