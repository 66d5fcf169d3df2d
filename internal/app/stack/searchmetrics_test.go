package stack_test

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/datasets"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/internal/app/stack"
	"github.com/sqlgym/sqlgym/internal/testkit/metricstest"
)

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
