package stack

import (
	"context"
	"errors"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/valueindex"
	"github.com/sqlgym/sqlgym/episodes/trajlog"
	"github.com/sqlgym/sqlgym/reward/judge"
	"github.com/sqlgym/sqlgym/schemas"
)

// Plan is what a stack is built from: its datasets and engines' bounds,
// and the steps that depend on how the server is configured, each run in
// Build's order; a nil step is skipped.
type Plan struct {
	Datasets []*env.Dataset
	Engines  EngineConfig
	// Reward is the spec episodes are paid by; nil is the default spec.
	Reward *schemas.RewardSpec
	// RewardPreset resolves a preset's name for a reset's reward; nil
	// refuses every name.
	RewardPreset func(name string) (schemas.RewardSpec, error)
	// Values opens the value index that search_values reads (the
	// runner's Values); it runs first, and a nil store means none.
	Values func() (*valueindex.Store, error)
	// Check checks the datasets' databases through the built catalog
	// (sqlgym serve's startup check).
	Check func(ctx context.Context, catalog *env.Catalog, datasets []*env.Dataset) error
	// Suites gives the test suites the judge judges a correct submission
	// on; a nil result judges on the task's database alone.
	Suites func(ctx context.Context, catalog *env.Catalog, datasets []*env.Dataset) (judge.Suites, error)
	// Recorder opens where episodes are recorded; it runs last.
	Recorder func(ctx context.Context) (trajlog.Writer, error)
}

// Build builds the stack p plans: the value index, the engines (with the
// index as the runner's values), the databases' check, the judge on its
// suites, then the recorder. When a step fails, what was built is closed
// (the index's builds stopped before the databases they read) and its
// error returned.
func Build(ctx context.Context, p Plan) (*Stack, error) {
	st := &Stack{Datasets: p.Datasets, Reward: schemas.DefaultRewardSpec(), RewardPreset: p.RewardPreset}
	if p.Reward != nil {
		st.Reward = *p.Reward
	}
	if p.Values != nil {
		store, err := p.Values()
		if err != nil {
			return nil, err
		}
		if store != nil {
			st.Values, p.Engines.Runner.Values = store, store
		}
	}
	st.Engines = NewEngines(p.Engines)
	if err := st.finish(ctx, p); err != nil {
		return nil, errors.Join(err, st.Close())
	}
	return st, nil
}

// finish runs Build's steps after the engines.
func (st *Stack) finish(ctx context.Context, p Plan) error {
	if p.Check != nil {
		if err := p.Check(ctx, st.Catalog, st.Datasets); err != nil {
			return err
		}
	}
	if p.Suites != nil {
		suites, err := p.Suites(ctx, st.Catalog, st.Datasets)
		if err != nil {
			return err
		}
		if suites != nil {
			cfg := p.Engines.Judge
			cfg.Suites = suites
			st.Judge = judge.New(cfg)
		}
	}
	if p.Recorder != nil {
		rec, err := p.Recorder(ctx)
		if err != nil {
			return err
		}
		st.Recorder = rec
	}
	return nil
}
