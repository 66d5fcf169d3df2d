package stack_test

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/postgres"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/schemas"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// demoAndLog is the embedded demo and a file log, each in a temporary
// folder of the test.
func demoAndLog(t *testing.T) (*env.Dataset, *filelog.Log) {
	t.Helper()
	ds, err := stack.Demo(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	log, err := filelog.Open(t.TempDir(), filelog.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	return ds, log
}

// TestStackServesTheDemo builds the stack over the embedded demo, serves
// its Manager and submits a task's gold: the episode is paid as correct
// and recorded, and Close closes the recorder.
func TestStackServesTheDemo(t *testing.T) {
	ctx := context.Background()
	ds, log := demoAndLog(t)
	st := stack.New(stack.EngineConfig{}, log, ds)
	t.Cleanup(func() { // last: the stack closed its recorder
		if err := log.Begin(ctx, &schemas.Trajectory{EpisodeID: "ep_after"}); !errors.Is(err, filelog.ErrClosed) {
			t.Errorf("a write after Close: %v, want %v", err, filelog.ErrClosed)
		}
	})
	t.Cleanup(func() { // after the server has stopped
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	if st.Postgres != nil {
		t.Fatal("a stack without a PostgreSQL config has a PostgreSQL engine")
	}
	cfg := st.Config()
	if cfg.Catalog != st.Catalog || cfg.Runner != st.Runner || cfg.Judge != st.Judge || cfg.Recorder != log || len(cfg.Datasets) != 1 {
		t.Fatalf("the Manager's config is not the stack's: %+v", cfg)
	}
	srv := testserver.Start(t, cfg, testserver.Options{})
	c := srv.Dial(t)
	task := ds.Tasks[0]
	r, err := c.Reset(ctx, schemas.ResetParams{TaskID: task.ID})
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Step(ctx, r.EpisodeID, client.ToolCall(schemas.ToolSubmit, map[string]any{"sql": task.GoldSQL}))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Terminated || res.Info.Outcome != "correct" {
		t.Fatalf("the gold of %s ended %q (terminated %v), want correct", task.ID, res.Info.Outcome, res.Terminated)
	}
	srv.Stop()
	var ids []string
	if err := log.Episodes(ctx, trajlog.Filter{}, func(r *trajlog.Record) error { ids = append(ids, r.EpisodeID); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != r.EpisodeID {
		t.Fatalf("recorded %v, want [%s]", ids, r.EpisodeID)
	}
}

// TestEnginesWithPostgres builds the PostgreSQL engine beside SQLite
// when its config is given.
func TestEnginesWithPostgres(t *testing.T) {
	e := stack.NewEngines(stack.EngineConfig{Postgres: &postgres.Config{}})
	defer e.Catalog.Close()
	if e.Postgres == nil || e.Postgres.Dialect() != env.Postgres {
		t.Fatalf("PostgreSQL engine %v, want one", e.Postgres)
	}
}
