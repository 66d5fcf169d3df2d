package replay_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/sqlite"
	"github.com/sqlgym/sqlgym/episodes"
	"github.com/sqlgym/sqlgym/episodes/client"
	"github.com/sqlgym/sqlgym/episodes/replay"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/examples/demo"
	gymstack "github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/spiderdev"
	"github.com/sqlgym/sqlgym/internal/testkit/testserver"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
	"github.com/sqlgym/sqlgym/tools"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// memStore records episodes in memory, as a store would: Begin, Step and
// End build the records a Reader gives back.
type memStore struct {
	mu    sync.Mutex
	order []string
	recs  map[string]*trajlog.Record
}

func newMemStore() *memStore { return &memStore{recs: map[string]*trajlog.Record{}} }

func (m *memStore) Begin(_ context.Context, t *schemas.Trajectory) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := &trajlog.Record{Trajectory: *t}
	r.Steps = []schemas.StepRecord{}
	m.recs[t.EpisodeID] = r
	m.order = append(m.order, t.EpisodeID)
	return nil
}

func (m *memStore) Step(_ context.Context, id string, s *schemas.StepRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r := m.recs[id]
	r.Steps = append(r.Steps, *s)
	r.TotalReward += s.Reward
	return nil
}

func (m *memStore) End(_ context.Context, t *schemas.Trajectory) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.recs[t.EpisodeID] = &trajlog.Record{Trajectory: *t, Complete: true}
	return nil
}

func (m *memStore) Close() error { return nil }

func (m *memStore) Episodes(ctx context.Context, f trajlog.Filter, fn func(*trajlog.Record) error) error {
	m.mu.Lock()
	var recs []*trajlog.Record
	for _, id := range m.order {
		c := *m.recs[id]
		recs = append(recs, &c)
	}
	m.mu.Unlock()
	for _, r := range recs {
		if f.Match(r) {
			if err := fn(r); err != nil {
				return err
			}
		}
	}
	return nil
}

// records returns every record, incomplete ones included.
func (m *memStore) records(t *testing.T) []*trajlog.Record {
	t.Helper()
	var out []*trajlog.Record
	m.Episodes(context.Background(), trajlog.Filter{Incomplete: true}, func(r *trajlog.Record) error {
		out = append(out, r)
		return nil
	})
	return out
}

// stack is what a server and a replayer are built from: the same
// datasets, runner and judge settings.
type stack struct {
	datasets []*env.Dataset
	catalog  *env.Catalog
	runner   *tools.Runner
	judge    *judge.Judge
}

func newStack(t *testing.T, dss ...*env.Dataset) *stack {
	t.Helper()
	e := gymstack.NewEngines(gymstack.EngineConfig{Runner: tools.Config{QueryTimeout: 10 * time.Second},
		Judge: judge.Config{PredTimeout: 30 * time.Second, GoldTimeout: 30 * time.Second}})
	t.Cleanup(func() { e.Catalog.Close() })
	return &stack{datasets: dss, catalog: e.Catalog, runner: e.Runner, judge: e.Judge}
}

// replayer builds a Replayer on its own catalog and judge (a fresh gold
// cache), as a later sqlgym replay run would.
func (s *stack) replayer(t *testing.T, workers int) *replay.Replayer {
	t.Helper()
	fresh := newStack(t, s.datasets...)
	r, err := replay.New(replay.Config{Datasets: fresh.datasets, Catalog: fresh.catalog, Runner: fresh.runner,
		Judge: fresh.judge, Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// serve runs a real episode server of the stack recording into w, and
// returns a client connected to it.
func (s *stack) serve(t *testing.T, w trajlog.Writer, maxTurns int) *client.Client {
	t.Helper()
	ts := testserver.Start(t, episodes.Config{Datasets: s.datasets, Catalog: s.catalog, Runner: s.runner, Judge: s.judge,
		Reward: schemas.DefaultRewardSpec(), Recorder: w, Version: "test", MaxTurns: maxTurns, MaxEpisodes: 10000},
		testserver.Options{})
	return ts.Dial(t)
}

// demoDataset materializes the embedded demo into a temporary folder.
func demoDataset(t *testing.T) *env.Dataset {
	t.Helper()
	ds, err := demo.Load(context.Background(), t.TempDir(), sqlite.Build)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// spiderDataset loads the shared Spider-dev data, or skips the test where
// it is absent (fails under CI, where it must be there).
func spiderDataset(t *testing.T) *env.Dataset {
	t.Helper()
	ds, err := datasets.LoadSpider("spider-dev", spiderdev.Dir(t))
	if err != nil {
		t.Fatal(err)
	}
	return ds
}
