package rollout_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/episodes/trajlog/filelog"
	"github.com/sqlgym/sqlgym/internal/app/rollout"
	"github.com/sqlgym/sqlgym/internal/app/rollout/report"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// world is a real episode server: the demo dataset on SQLite, a Manager
// recording to a trajectory log in a temporary folder, played in process
// or, served, over a WebSocket through episodes/client.
type world struct {
	ds      *env.Dataset
	catalog *env.Catalog
	runner  *tools.Runner
	log     *filelog.Log
	env     rollout.Env
}

// newWorld plays the episodes on the Manager in this process.
func newWorld(t *testing.T) *world { return buildWorld(t, false) }

// newServedWorld plays them on a server of the same Manager, through a
// client connected to its socket.
func newServedWorld(t *testing.T) *world { return buildWorld(t, true) }

func buildWorld(t *testing.T, served bool) *world {
	t.Helper()
	w, cfg := worldStack(t)
	if served {
		w.env = rollout.ClientEnv{C: testserver.Start(t, cfg, testserver.Options{}).Dial(t)}
		return w
	}
	mgr, err := episodes.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	w.env = rollout.ManagerEnv{M: mgr}
	return w
}

// worldStack builds a world's stack, and the config of the Manager that
// plays its episodes, which the caller starts.
func worldStack(t *testing.T) (*world, episodes.Config) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	ds, err := stack.Demo(ctx, filepath.Join(dir, "demo"))
	if err != nil {
		t.Fatal(err)
	}
	log, err := filelog.Open(filelog.LogDir(dir), filelog.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	st := stack.New(stack.EngineConfig{}, log, ds)
	t.Cleanup(func() { st.Close() })
	w := &world{ds: ds, catalog: st.Catalog, runner: st.Runner, log: log}
	cfg := st.Config()
	cfg.MaxTurns = 4
	return w, cfg
}

// chat is a client of the stub with short timeouts and waits.
func (m *stubModel) chat(t *testing.T) *rollout.Chat {
	t.Helper()
	c, err := rollout.NewChat(rollout.ChatConfig{BaseURL: m.url(), Model: "stub-model", Attempts: 5,
		RequestTimeout: 300 * time.Millisecond, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// episodes reads the run's recorded episodes.
func (w *world) episodes(t *testing.T, run string, incomplete bool) []*schemas.Trajectory {
	t.Helper()
	var out []*schemas.Trajectory
	f := trajlog.Filter{Tags: map[string]string{rollout.TagRun: run}, Incomplete: incomplete}
	err := w.log.Episodes(context.Background(), f, func(r *trajlog.Record) error {
		out = append(out, &r.Trajectory)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// question is a demo task's question.
func (w *world) question(t *testing.T, id string) string {
	t.Helper()
	task, ok := w.ds.Task(id)
	if !ok {
		t.Fatalf("no task %s", id)
	}
	return task.Question
}

func (w *world) gold(t *testing.T, id string) string {
	t.Helper()
	task, _ := w.ds.Task(id)
	return task.GoldSQL
}

func (w *world) voter() report.Voter {
	return &rollout.Voter{Catalog: w.catalog, Datasets: []*env.Dataset{w.ds}}
}
