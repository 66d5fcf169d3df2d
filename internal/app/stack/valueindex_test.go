package stack_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
	"github.com/sqlgym/sqlgym/internal/testkit/waitfor"
)

// TestOpenValueIndexRefusesItsFolder: a folder inside a dataset's, and
// one that cannot be made (a file stands in its way), are refused as a
// PlacementError naming the folder, before anything is written in it.
func TestOpenValueIndexRefusesItsFolder(t *testing.T) {
	ds, err := stack.Demo(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dirs := datasets.Dirs(nil, []*env.Dataset{ds})
	inside := filepath.Join(dirs[0], "index")
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, why string }{
		{inside, "inside " + dirs[0]},
		{filepath.Join(blocked, "index"), "cannot be made"},
	} {
		store, err := stack.OpenValueIndex(valueindex.Config{Dir: tt.dir}, t.TempDir(), dirs, zap.NewNop())
		var pe *stack.PlacementError
		if !errors.As(err, &pe) || pe.Dir != tt.dir || !strings.Contains(pe.Err.Error(), tt.why) {
			if store != nil {
				store.Close()
			}
			t.Errorf("%s: err = %v, want a PlacementError saying %q", tt.dir, err, tt.why)
		}
	}
	if _, err := os.Stat(inside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused folder inside the dataset was made: %v", err)
	}
}

// TestOpenValueIndexWarms: without a Dir the index lives under the data
// folder, and WarmValueIndex builds each database's index there, each
// logged as ready.
func TestOpenValueIndexWarms(t *testing.T) {
	ctx := context.Background()
	ds, err := stack.Demo(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	data := t.TempDir()
	store, err := stack.OpenValueIndex(valueindex.Config{}, data, datasets.Dirs(nil, []*env.Dataset{ds}), zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	eng := stack.NewEngines(stack.EngineConfig{})
	defer eng.Catalog.Close()
	stack.WarmValueIndex(store, []*env.Dataset{ds}, eng.Catalog)
	ready := func() bool { return logs.FilterMessage("value index ready").Len() == len(ds.DBs) }
	if !waitfor.Within(waitfor.Timeout, ready) {
		t.Fatalf("%d of %d databases logged ready: %v", logs.FilterMessage("value index ready").Len(), len(ds.DBs), logs.All())
	}
	files, err := filepath.Glob(filepath.Join(data, "value-index", "*.fts4.sqlite"))
	if err != nil || len(files) != len(ds.DBs) {
		t.Fatalf("index files under the data folder: %v (%v), want one per database", files, err)
	}
}

// TestRegisterSearchMetrics: a stack with a value index exports its
// search counters, a search counted once it is answered; one without
// an index registers nothing.
func TestRegisterSearchMetrics(t *testing.T) {
	ctx := context.Background()
	ds, err := stack.Demo(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	dss := []*env.Dataset{ds}
	data := t.TempDir()
	st, err := stack.Build(ctx, stack.Plan{Datasets: dss, Values: func() (*valueindex.Store, error) {
		return stack.OpenValueIndex(valueindex.Config{}, data, datasets.Dirs(nil, dss), zap.NewNop())
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	reg := prometheus.NewRegistry()
	st.RegisterSearchMetrics(reg)
	task := ds.Tasks[0]
	db, err := st.Catalog.DB(ctx, ds, task.DBID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Values.SearchValues(ctx, ds, task.DBID, db, env.ValueQuery{Query: "a", Limit: 3}); err != nil {
		t.Fatal(err)
	}
	if n := metricstest.Value(t, reg, "sqlgym_value_searches_total"); n != 1 {
		t.Errorf("sqlgym_value_searches_total = %v after one search, want 1", n)
	}
	families, err := reg.Gather()
	if err != nil || len(families) != 5 {
		t.Errorf("%d metric families (%v), want the index's 5", len(families), err)
	}
	bare := stack.New(stack.EngineConfig{}, nil, ds)
	defer bare.Close()
	none := prometheus.NewRegistry()
	bare.RegisterSearchMetrics(none)
	if families, _ := none.Gather(); len(families) != 0 {
		t.Errorf("a stack without an index registered %d metric families", len(families))
	}
}
